#include "ladle/tune/report.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "ladle/layout/layout_spec.hpp"
#include "ladle/site/svg_chart.hpp"
#include "ladle/tune/log_text.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/table.hpp"

namespace ladle::tune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string label(const Trial& t) {
  return layout::layout_label(layout::parse_layout_spec(t.layout));
}

const Trial* best_trial(const std::vector<Trial>& trials) {
  const Trial* best = nullptr;
  for (const Trial& t : trials) {
    if (t.kind == TrialKind::explore && is_measured(t.state) && t.measured_tokens_per_s_per_gpu &&
        (!best || *t.measured_tokens_per_s_per_gpu > *best->measured_tokens_per_s_per_gpu)) {
      best = &t;
    }
  }
  return best;
}

double total_gpu_hours(const std::vector<Trial>& trials) {
  double sum = 0;
  for (const Trial& t : trials) sum += t.gpu_hours.value_or(0);
  return sum;
}

std::string optional_number(const std::optional<double>& v, int decimals) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : "-";
}

site::BarChart trial_chart(const std::vector<Trial>& trials) {
  site::BarChart chart;
  chart.id = "tune-trials";
  chart.title = "Tokens/s per GPU of every trial, predicted when proposed and measured";
  chart.description =
      "One group per trial in proposal order (round, id, layout); a trial without a measurement "
      "has no measured bar.";
  chart.value_label = "tokens/s per GPU";
  chart.decimals = 1;
  site::BarSeries predicted{"predicted", {}};
  site::BarSeries measured{"measured", {}};
  site::BarSeries best{"best measured so far", {}};
  double running = 0;
  for (const Trial& t : trials) {
    chart.categories.push_back(
        fmt::format("r{} #{} {} {}", t.round, t.id, label(t), to_string(t.state)));
    predicted.values.push_back(t.predicted_tokens_per_s_per_gpu);
    measured.values.push_back(t.measured_tokens_per_s_per_gpu);
    if (t.kind == TrialKind::explore && is_measured(t.state) && t.measured_tokens_per_s_per_gpu) {
      running = std::max(running, *t.measured_tokens_per_s_per_gpu);
    }
    best.values.push_back(running > 0 ? std::optional<double>(running) : std::nullopt);
  }
  chart.series = {predicted, measured, best};
  return chart;
}

}  // namespace

std::string render_chart_svg(const TuneDb& db) {
  const std::string figure = site::render_bar_chart(trial_chart(db.trials()));
  const size_t start = figure.find("<svg");
  const size_t end = figure.rfind("</svg>");
  if (start == std::string::npos || end == std::string::npos) return figure;
  std::string svg = figure.substr(start, end + 6 - start);
  if (svg.find("xmlns=") == std::string::npos)
    svg.insert(4, " xmlns=\"http://www.w3.org/2000/svg\"");
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg + "\n";
}

std::string render_report(const TuneDb& db, const TuneSettings& s, const std::string& recipe_path) {
  const std::vector<Trial> trials = db.trials();
  const std::vector<RoundRecord> rounds = db.rounds();
  std::string md = fmt::format("# ladle tune run {}\n\n", s.run_id);
  md += fmt::format(
      "{} on {} x {}, engine {}, scheduler {}; objective {}; budget {} trials{}; trials of {} "
      "steps, "
      "confirmation of {}.\n\n",
      s.model, s.gpus, s.gpu, s.engine, s.scheduler.backend, s.objective, s.budget,
      s.gpu_hours_limit > 0 ? fmt::format(", {} GPU-hours", s.gpu_hours_limit) : "", s.steps,
      s.confirm_steps);
  int64_t explore = 0;
  for (const Trial& t : trials) explore += t.kind == TrialKind::explore;
  const Trial* best = best_trial(trials);
  md += fmt::format(
      "- rounds: {}\n- exploration trials: {}\n- GPU-hours (every job's log span x GPUs): {:.2f}\n",
      rounds.empty() ? 0 : rounds.back().round, explore, total_gpu_hours(trials));
  if (best) {
    md += fmt::format(
        "- best: trial {} ({}), {:.1f} tokens/s per GPU measured, {:.1f} predicted when proposed\n",
        best->id, label(*best), *best->measured_tokens_per_s_per_gpu,
        best->predicted_tokens_per_s_per_gpu);
  }
  if (!recipe_path.empty())
    md += fmt::format("- recipe: {}\n", fs::path(recipe_path).filename().string());
  md += "\n![predicted and measured tokens/s per GPU by trial](chart.svg)\n\n## Trials\n\n";
  md += "| # | round | kind | layout | state | predicted | measured | CV % | GPU-h | note |\n";
  md += "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const Trial& t : trials) {
    // A detail quotes the trial's log: escapes and invalid bytes shown as text (log_text.hpp).
    std::string note = visible_text(t.detail);
    for (char& ch : note) {
      if (ch == '|') ch = '/';
    }
    md += fmt::format(
        "| {} | {} | {} | `{}` | {} | {:.1f} | {} | {} | {} | {} |\n", t.id, t.round,
        to_string(t.kind), t.layout, to_string(t.state), t.predicted_tokens_per_s_per_gpu,
        optional_number(t.measured_tokens_per_s_per_gpu, 1),
        optional_number(t.step_time_cv_percent, 2), optional_number(t.gpu_hours, 3), note);
  }
  md +=
      "\n## Rounds and the calibration\n\nAfter each round the calibration is refitted on every "
      "measured trial.\n\n";
  std::vector<std::string> names;
  if (!rounds.empty()) {
    const json first = json::parse(rounds.front().constants_json, nullptr, false);
    if (first.is_object()) {
      for (const auto& [k, v] : first.items()) names.push_back(k);
    }
  }
  md += "| round | best | best expected improvement | residual spread | memory limit GiB |";
  for (const std::string& n : names) md += " " + n + " |";
  md += " decision |\n|";
  for (size_t i = 0; i < names.size() + 6; ++i) md += " --- |";
  md += "\n";
  for (const RoundRecord& r : rounds) {
    md += fmt::format("| {} | {:.1f} | {:.2f}% | {:.2f}% | {:.1f} |", r.round,
                      r.best_tokens_per_s_per_gpu, 100 * r.best_expected_improvement, 100 * r.sigma,
                      r.memory_limit_gib);
    const json c = json::parse(r.constants_json, nullptr, false);
    for (const std::string& n : names) {
      md += c.is_object() && c.contains(n) && c[n].is_number()
                ? fmt::format(" {:.4g} |", c[n].get<double>())
                : " - |";
    }
    md += " " + r.decision + " |\n";
  }
  return md;
}

void write_report(const TuneDb& db, const TuneSettings& settings, const std::string& recipe_path) {
  util::write_file_atomic((fs::path(settings.out_dir) / "chart.svg").string(),
                          render_chart_svg(db));
  util::write_file_atomic((fs::path(settings.out_dir) / "report.md").string(),
                          render_report(db, settings, recipe_path));
}

std::string status_json(const TuneDb& db) {
  json out = json::object();
  const auto settings_text = db.meta("settings");
  if (settings_text) out["settings"] = json::parse(*settings_text, nullptr, false);
  out["finished"] = db.meta("finished") ? json(*db.meta("finished")) : json(nullptr);
  out["cancelled"] = db.meta("cancelled").has_value();
  const std::vector<Trial> trials = db.trials();
  json list = json::array();
  auto number = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  for (const Trial& t : trials) {
    list.push_back({{"id", t.id},
                    {"round", t.round},
                    {"kind", to_string(t.kind)},
                    {"layout", t.layout},
                    {"state", to_string(t.state)},
                    {"attempt", t.attempt},
                    {"job_name", t.job_name},
                    {"job_id", t.job_id.empty() ? json(nullptr) : json(t.job_id)},
                    {"steps", t.steps},
                    {"predicted_tokens_per_s_per_gpu", t.predicted_tokens_per_s_per_gpu},
                    {"predicted_sigma", t.predicted_sigma},
                    {"predicted_memory_gib", t.predicted_memory_gib},
                    {"expected_improvement", t.expected_improvement},
                    {"measured_tokens_per_s_per_gpu", number(t.measured_tokens_per_s_per_gpu)},
                    {"step_time_s", number(t.step_time_s)},
                    {"step_time_cv_percent", number(t.step_time_cv_percent)},
                    {"gpu_hours", number(t.gpu_hours)},
                    {"detail", visible_text(t.detail)}});
  }
  out["trials"] = list;
  json rounds = json::array();
  for (const RoundRecord& r : db.rounds()) {
    rounds.push_back({{"round", r.round},
                      {"best_trial", r.best_trial},
                      {"best_tokens_per_s_per_gpu", r.best_tokens_per_s_per_gpu},
                      {"best_expected_improvement", r.best_expected_improvement},
                      {"sigma", r.sigma},
                      {"memory_limit_gib", r.memory_limit_gib},
                      {"constants", json::parse(r.constants_json, nullptr, false)},
                      {"decision", r.decision}});
  }
  out["rounds"] = rounds;
  const Trial* best = best_trial(trials);
  out["best"] = best
                    ? json{{"id", best->id},
                           {"layout", best->layout},
                           {"measured_tokens_per_s_per_gpu", *best->measured_tokens_per_s_per_gpu},
                           {"predicted_tokens_per_s_per_gpu", best->predicted_tokens_per_s_per_gpu}}
                    : json(nullptr);
  out["gpu_hours"] = total_gpu_hours(trials);
  // Every text the trials wrote is made valid above; a byte that is not UTF-8 anywhere else (a
  // flag's value in the settings) is replaced rather than ending the command.
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string status_table(const TuneDb& db) {
  const std::vector<Trial> trials = db.trials();
  std::string out;
  if (auto text = db.meta("settings")) {
    const json s = json::parse(*text, nullptr, false);
    if (s.is_object()) {
      out += fmt::format("run {}: {} on {} x {}, {} on {}\n", s.value("run_id", ""),
                         s.value("model", ""), s.value("gpus", 0), s.value("gpu", ""),
                         s.value("engine", ""), s.value("backend", ""));
    }
  }
  out += fmt::format("{:>3}  {:>5}  {:<9}  {:<13}  {:>9}  {:>9}  {:<24}  {}\n", "#", "round",
                     "kind", "state", "predicted", "measured", "layout", "job");
  for (const Trial& t : trials) {
    out +=
        fmt::format("{:>3}  {:>5}  {:<9}  {:<13}  {:>9.1f}  {:>9}  {:<24}  {}{}\n", t.id, t.round,
                    to_string(t.kind), to_string(t.state), t.predicted_tokens_per_s_per_gpu,
                    optional_number(t.measured_tokens_per_s_per_gpu, 1), label(t), t.job_name,
                    t.job_id.empty() ? "" : " (" + visible_text(t.job_id) + ")");
  }
  const Trial* best = best_trial(trials);
  if (best) {
    out += fmt::format("best: trial {} {} at {:.1f} tokens/s per GPU\n", best->id, label(*best),
                       *best->measured_tokens_per_s_per_gpu);
  } else {
    out += "best: none measured yet\n";
  }
  out += fmt::format("GPU-hours: {:.2f}", total_gpu_hours(trials));
  if (auto finished = db.meta("finished"))
    out += fmt::format("; finished, recipe status {}", *finished);
  if (db.meta("cancelled")) out += "; cancelled";
  out += "\n";
  return out;
}

}  // namespace ladle::tune
