#include "ladle/plan/report_render.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "ladle/layout/layout_spec.hpp"
#include "ladle/util/table.hpp"
#include "ladle/util/text.hpp"

namespace ladle::plan {

namespace {

using Json = nlohmann::ordered_json;

// Fixed decimals so that JSON output is byte-stable.
double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

std::string header_line(const ReportHeader& h) {
  return fmt::format("{} on {} x {} ({} {}), rows of {} tokens, global batch {}, {}", h.model, h.cluster.gpus,
                     h.cluster.gpu.name, h.cluster.instance.provider, h.cluster.instance.name,
                     util::format_grouped(static_cast<long long>(h.workload.row_tokens)), h.workload.global_batch,
                     to_string(h.workload.precision));
}

Json header_json(const ReportHeader& h) {
  Json j;
  j["model"] = h.model;
  j["gpu"] = h.cluster.gpu.name;
  j["gpus"] = h.cluster.gpus;
  j["instance"] = h.cluster.instance.name;
  j["row_tokens"] = h.workload.row_tokens;
  j["global_batch"] = h.workload.global_batch;
  j["precision"] = to_string(h.workload.precision);
  j["calibration"] = h.calibration;
  if (h.not_priced) j["not_priced"] = *h.not_priced;
  return j;
}

Json parts_json(const std::vector<Part>& parts, int decimals) {
  Json j = Json::object();
  for (const Part& p : parts) j[p.name] = round_to(p.value, decimals);
  return j;
}

Json prediction_object(const Prediction& p, const ReportHeader& h) {
  Json j;
  j["layout"] = layout::format_layout_spec(p.layout);
  if (h.launch_args) {
    j["engine"] = h.engine;
    j["args"] = h.launch_args(p.layout);
  }
  j["label"] = layout::layout_label(p.layout);
  j["tokens_per_s_per_gpu"] = round_to(p.tokens_per_s_per_gpu, 2);
  j["step_time_s"] = round_to(p.step_time_s, 3);
  j["mfu"] = round_to(p.mfu, 4);
  j["usd_per_million_tokens"] = round_to(p.usd_per_million_tokens, 2);
  j["microbatches"] = p.microbatches;
  j["memory_gib"] = round_to(p.memory_gib, 2);
  j["capacity_gib"] = round_to(p.capacity_gib, 2);
  j["fits"] = p.fits;
  j["worst_stage"] = p.worst_stage;
  j["memory_dominant"] = p.memory_dominant;
  j["host_memory_gib"] = round_to(p.host_memory_gib, 1);
  j["host_capacity_gib"] = round_to(p.host_capacity_gib, 1);
  Json stages = Json::array();
  for (const StageMemory& s : p.stages) {
    Json sj;
    sj["stage"] = s.stage;
    sj["layers"] = s.layers;
    sj["total_gib"] = round_to(s.total_gib, 2);
    sj["parts_gib"] = parts_json(s.parts, 2);
    stages.push_back(sj);
  }
  j["memory_stages"] = stages;
  j["time_dominant"] = p.time_dominant;
  j["step_time_parts_s"] = parts_json(p.step_parts, 3);
  return j;
}

// "not priced: --lr, --seed" for a job given as its own arguments.
std::string not_priced_line(const ReportHeader& h) {
  if (!h.not_priced) return {};
  if (h.not_priced->empty()) return "not priced: none (every argument is priced)\n";
  return fmt::format("not priced ({} argument{} ladle does not price): {}\n", h.not_priced->size(),
                     h.not_priced->size() == 1 ? "" : "s", util::join(*h.not_priced, ", "));
}

std::string percent(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

std::string breakdown_line(const Prediction& p, size_t parts) {
  std::vector<Part> sorted = p.step_parts;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Part& a, const Part& b) { return a.value > b.value; });
  std::string out;
  for (size_t i = 0; i < sorted.size() && i < parts && sorted[i].value > 0; ++i) {
    if (i) out += ", ";
    out += fmt::format("{} {:.2f} s", sorted[i].name, sorted[i].value);
  }
  return out;
}

}  // namespace

std::string render_prediction(const Prediction& p, const ReportHeader& h, double measured) {
  std::string out = fmt::format("predict: {}\n", header_line(h));
  out += fmt::format("layout: {} ({})\n", layout::layout_label(p.layout), layout::format_layout_spec(p.layout));
  out += fmt::format("calibration: {}\n", h.calibration);
  out += not_priced_line(h);
  out += "\n";
  util::Table summary;
  summary.header = {"figure", "value", "note"};
  summary.rows.push_back({"tokens/s per GPU", fmt::format("{:.2f}", p.tokens_per_s_per_gpu),
                          measured > 0 ? fmt::format("measured {:.2f}, error {:+.1f}%", measured,
                                                     100 * (p.tokens_per_s_per_gpu / measured - 1))
                                       : std::string()});
  summary.rows.push_back({"step time s", fmt::format("{:.2f}", p.step_time_s),
                          fmt::format("{} microbatches per DP rank", p.microbatches)});
  summary.rows.push_back({"MFU", percent(p.mfu),
                          fmt::format("6 N tokens/s / {:g} TFLOP/s, N = {}", h.cluster.gpu.bf16_dense_tflops,
                                      util::format_grouped(static_cast<long long>(h.n_params)))});
  summary.rows.push_back({"USD per 1M tokens", fmt::format("{:.2f}", p.usd_per_million_tokens),
                          fmt::format("{:.3f} $ per GPU-hour", h.cluster.instance.usd_per_gpu_hour())});
  out += summary.render() + "\n";

  out += fmt::format("memory per GPU, GiB: worst stage {} of {} uses {:.1f} of {:.1f}: {} ({} dominates)\n",
                     p.worst_stage, p.stages.size(), p.memory_gib, p.capacity_gib, p.fits ? "fits" : "DOES NOT FIT",
                     p.memory_dominant);
  if (p.host_memory_gib > 0) {
    out += fmt::format("host memory per node for offloaded optimizer states: {:.0f} of {:.0f} GiB usable\n",
                       p.host_memory_gib, p.host_capacity_gib);
  }
  util::Table memory;
  memory.header = {"part"};
  for (const StageMemory& s : p.stages) memory.header.push_back(fmt::format("stage {} ({} layers)", s.stage, s.layers));
  for (size_t i = 0; !p.stages.empty() && i < p.stages.front().parts.size(); ++i) {
    std::vector<std::string> row = {p.stages.front().parts[i].name};
    for (const StageMemory& s : p.stages) row.push_back(fmt::format("{:.2f}", s.parts[i].value));
    memory.rows.push_back(row);
  }
  std::vector<std::string> total = {"total"};
  for (const StageMemory& s : p.stages) total.push_back(fmt::format("{:.2f}", s.total_gib));
  memory.rows.push_back(total);
  out += memory.render() + "\n";

  double largest = 0;
  for (const Part& part : p.step_parts) largest = std::max(largest, part.value);
  out += fmt::format("step time, s: {:.2f}; the largest exposed part is {} ({:.2f} s, {})\n", p.step_time_s,
                     p.time_dominant, largest, percent(largest / p.step_time_s));
  util::Table time;
  time.header = {"part", "seconds", "share"};
  for (const Part& part : p.step_parts) {
    if (part.value <= 0) continue;
    time.rows.push_back({part.name, fmt::format("{:.3f}", part.value), percent(part.value / p.step_time_s)});
  }
  out += time.render();
  return out;
}

std::string prediction_json(const Prediction& p, const ReportHeader& h, double measured) {
  Json j = header_json(h);
  j["prediction"] = prediction_object(p, h);
  if (measured > 0) {
    j["measured_tokens_per_s_per_gpu"] = measured;
    j["error"] = round_to(p.tokens_per_s_per_gpu / measured - 1, 4);
  }
  return j.dump(2) + "\n";
}

std::string render_plan(const PlanReport& r, const ReportHeader& h, double margin) {
  std::string out = fmt::format("plan: {}\n", header_line(h));
  out += fmt::format("calibration: {}\n", h.calibration);
  out += not_priced_line(h);
  out += fmt::format("searched {} layouts: {} valid, {} fit in {:.1f} GiB per GPU ({:.0f}% of HBM kept free)\n\n",
                     util::format_grouped(static_cast<long long>(r.enumerated)),
                     util::format_grouped(static_cast<long long>(r.valid)),
                     util::format_grouped(static_cast<long long>(r.fitting)), r.usable_gib, 100 * margin);
  util::Table table;
  table.header = {"rank", "tok/s/GPU", "step s", "MFU", "$/1M tok", "mem GiB", "layout"};
  for (size_t i = 0; i < r.top.size(); ++i) {
    const Prediction& p = r.top[i];
    table.rows.push_back({std::to_string(i + 1), fmt::format("{:.1f}", p.tokens_per_s_per_gpu),
                          fmt::format("{:.2f}", p.step_time_s), percent(p.mfu),
                          fmt::format("{:.2f}", p.usd_per_million_tokens), fmt::format("{:.1f}", p.memory_gib),
                          layout::format_layout_spec(p.layout)});
  }
  out += table.render() + "\n";
  for (size_t i = 0; i < r.top.size(); ++i) {
    const Prediction& p = r.top[i];
    out += fmt::format("{}. {}: {}; memory {} dominates", i + 1, layout::layout_label(p.layout),
                       breakdown_line(p, 4), p.memory_dominant);
    const int64_t twins = i < r.top_same_speed.size() ? r.top_same_speed[i] : 0;
    if (twins > 0) out += fmt::format(" (+{} predicted as fast, with no less memory)", twins);
    out += "\n";
  }
  if (!r.best_rejected.empty()) {
    out += "\nfaster layouts that do not fit (closest first):\n";
    for (const Rejected& x : r.best_rejected) {
      out += fmt::format("  {:.1f} tok/s/GPU  {}\n    {}\n", x.tokens_per_s_per_gpu, layout::format_layout_spec(x.layout),
                         x.reason);
    }
  }
  for (const WatchResult& w : r.watched) {
    out += fmt::format("\nlayout {}: {}", layout::format_layout_spec(w.layout), w.status);
    if (w.rank > 0) out += fmt::format(", {:.1f} tok/s/GPU, rank {} of {}", w.tokens_per_s_per_gpu, w.rank, r.fitting);
    out += "\n";
  }
  return out;
}

std::string plan_json(const PlanReport& r, const ReportHeader& h, double margin) {
  Json j = header_json(h);
  j["memory_margin"] = margin;
  j["usable_gib"] = round_to(r.usable_gib, 2);
  j["enumerated"] = r.enumerated;
  j["valid"] = r.valid;
  j["fitting"] = r.fitting;
  Json top = Json::array();
  for (size_t i = 0; i < r.top.size(); ++i) {
    Json entry = prediction_object(r.top[i], h);
    entry["same_speed_layouts"] = i < r.top_same_speed.size() ? r.top_same_speed[i] : 0;
    top.push_back(entry);
  }
  j["top"] = top;
  Json rejected = Json::array();
  for (const Rejected& x : r.best_rejected) {
    Json xj;
    xj["layout"] = layout::format_layout_spec(x.layout);
    xj["tokens_per_s_per_gpu"] = round_to(x.tokens_per_s_per_gpu, 2);
    xj["reason"] = x.reason;
    rejected.push_back(xj);
  }
  j["best_rejected"] = rejected;
  Json watched = Json::array();
  for (const WatchResult& w : r.watched) {
    Json wj;
    wj["layout"] = layout::format_layout_spec(w.layout);
    wj["status"] = w.status;
    wj["enumerated"] = w.enumerated;
    wj["rank"] = w.rank;
    wj["tokens_per_s_per_gpu"] = round_to(w.tokens_per_s_per_gpu, 2);
    watched.push_back(wj);
  }
  j["watched"] = watched;
  return j.dump(2) + "\n";
}

void mark_frontier(std::vector<SweepPoint>& points) {
  for (SweepPoint& a : points) {
    const double total_a = a.best.tokens_per_s_per_gpu * static_cast<double>(a.gpus);
    a.frontier = true;
    for (const SweepPoint& b : points) {
      const double total_b = b.best.tokens_per_s_per_gpu * static_cast<double>(b.gpus);
      const bool better = total_b >= total_a && b.best.usd_per_million_tokens <= a.best.usd_per_million_tokens &&
                          (total_b > total_a || b.best.usd_per_million_tokens < a.best.usd_per_million_tokens);
      if (better) a.frontier = false;
    }
  }
}

std::string render_sweep(const std::vector<SweepPoint>& points, const ReportHeader& h) {
  std::string out = fmt::format("plan sweep: {} on {}, rows of {} tokens, global batch {}\n", h.model,
                                h.cluster.gpu.name, util::format_grouped(static_cast<long long>(h.workload.row_tokens)),
                                h.workload.global_batch);
  util::Table table;
  table.header = {"GPUs", "tok/s/GPU", "tok/s total", "step s", "$/1M tok", "frontier", "best layout"};
  for (const SweepPoint& s : points) {
    table.rows.push_back({std::to_string(s.gpus), fmt::format("{:.1f}", s.best.tokens_per_s_per_gpu),
                          fmt::format("{:.0f}", s.best.tokens_per_s_per_gpu * static_cast<double>(s.gpus)),
                          fmt::format("{:.2f}", s.best.step_time_s), fmt::format("{:.2f}", s.best.usd_per_million_tokens),
                          s.frontier ? "*" : "", layout::format_layout_spec(s.best.layout)});
  }
  out += table.render();
  out += "frontier (*): no other GPU count gives more tokens/s for less per token\n";
  return out;
}

std::string sweep_json(const std::vector<SweepPoint>& points, const ReportHeader& h) {
  Json j = header_json(h);
  j.erase("gpus");
  Json arr = Json::array();
  for (const SweepPoint& s : points) {
    Json sj;
    sj["gpus"] = s.gpus;
    sj["frontier"] = s.frontier;
    sj["best"] = prediction_object(s.best, ReportHeader{});  // args depend on the GPU count: see plan --gpus N
    arr.push_back(sj);
  }
  j["sweep"] = arr;
  return j.dump(2) + "\n";
}

std::string render_fit(const CalibrationFit& fit) {
  util::Table table;
  table.header = {"recipe", "measured", "fitted", "error", "leave-one-out", "error"};
  double worst_in = 0;
  double worst_loo = 0;
  for (const FitRow& r : fit.rows) {
    table.rows.push_back({r.name, fmt::format("{:.2f}", r.measured), fmt::format("{:.2f}", r.in_sample),
                          fmt::format("{:+.1f}%", 100 * r.in_sample_error()), fmt::format("{:.2f}", r.leave_one_out),
                          fmt::format("{:+.1f}%", 100 * r.leave_one_out_error())});
    worst_in = std::max(worst_in, std::fabs(r.in_sample_error()));
    worst_loo = std::max(worst_loo, std::fabs(r.leave_one_out_error()));
  }
  std::string out = "calibration fit (tokens/s per GPU)\n" + table.render();
  out += fmt::format("worst in-sample error {:.1f}%, worst leave-one-out error {:.1f}%\n\n", 100 * worst_in,
                     100 * worst_loo);
  util::Table constants;
  constants.header = {"constant", "value", "unit", "kind"};
  for (const CalibrationConstant& k : calibration_constants(fit.calibration)) {
    constants.rows.push_back({k.name, fmt::format("{:.4g}", k.value), k.unit, k.fitted ? "fitted" : "fixed"});
  }
  return out + constants.render();
}

std::string fit_json(const CalibrationFit& fit) {
  Json j;
  Json rows = Json::array();
  for (const FitRow& r : fit.rows) {
    Json rj;
    rj["recipe"] = r.name;
    rj["measured"] = r.measured;
    rj["fitted"] = round_to(r.in_sample, 2);
    rj["fitted_error"] = round_to(r.in_sample_error(), 4);
    rj["leave_one_out"] = round_to(r.leave_one_out, 2);
    rj["leave_one_out_error"] = round_to(r.leave_one_out_error(), 4);
    rows.push_back(rj);
  }
  j["recipes"] = rows;
  Json constants = Json::object();
  for (const CalibrationConstant& k : calibration_constants(fit.calibration)) {
    Json kj;
    kj["value"] = k.value;
    kj["fitted"] = k.fitted;
    kj["unit"] = k.unit;
    constants[k.name] = kj;
  }
  j["constants"] = constants;
  return j.dump(2) + "\n";
}

}  // namespace ladle::plan
