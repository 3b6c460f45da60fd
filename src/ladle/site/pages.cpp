#include "ladle/site/pages.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>
#include <optional>
#include <set>

#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/search.hpp"
#include "ladle/site/html.hpp"
#include "ladle/site/recipe_facts.hpp"
#include "ladle/site/rl_section.hpp"
#include "ladle/site/svg_chart.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::site {
namespace {

constexpr int kGpuCountWidth = 6;  // zero padding of the GPU count in the GPU column's sort key

std::string page(const std::string& root, const std::string& title, const std::string& nav,
                 const std::string& body, size_t recipe_count) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{title}</title>\n<link rel=\"icon\" href=\"data:,\">\n"
      "<link rel=\"stylesheet\" href=\"{root}assets/site.css\">\n"
      "<script src=\"{root}assets/site.js\" defer></script>\n</head>\n<body>\n"
      "<header class=\"site-header\"><div class=\"inner\"><a class=\"brand\" href=\"{root}index.html\">ladle "
      "recipes</a><nav aria-label=\"Site\">{nav}</nav></div></header>\n"
      "<main>\n{body}</main>\n"
      "<footer class=\"site-footer\">Built by <code>ladle site</code> from {count} recipe{s}. Figures are as "
      "published in each recipe file.</footer>\n</body>\n</html>\n",
      fmt::arg("title", escape_html(title)), fmt::arg("root", root), fmt::arg("nav", nav),
      fmt::arg("body", body), fmt::arg("count", recipe_count), fmt::arg("s", recipe_count == 1 ? "" : "s"));
}

std::string status_badge(const std::string& status) {
  return "<span class=\"status status-" + slugify(status) + "\">" + escape_html(status) + "</span>";
}

// The status cell of a recipe: its status, and "imported card" for one read from a card.
std::string status_cell(const SiteRecipe& item) {
  std::string out = status_badge(item.recipe.status);
  if (!item.card_source.empty()) {
    out += " <span class=\"status status-card\" title=\"" + escape_html(item.card_source) + "\">imported card</span>";
  }
  return out;
}

// The memory a layout may use per GPU on the recipe's GPU, as the planner counts it (HBM less the
// margin plan keeps at its default --fit-confidence); none for a GPU the hardware catalog does not know.
std::optional<double> usable_gib(const Recipe& r) {
  try {
    const double margin = plan::plan_memory_margin(std::nullopt, std::nullopt, plan::default_calibration());
    return plan::hbm_capacity_gib(plan::make_cluster(r.gpu.type, 1).gpu) * (1.0 - margin);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Draws the GPU's usable memory on a memory chart.
void add_capacity(BarChart& chart, const Recipe& r) {
  if (const std::optional<double> usable = usable_gib(r)) {
    chart.limit = *usable;
    chart.limit_label = fmt::format("usable on {}: {:.1f} GiB", r.gpu.type, *usable);
  }
}

// Time to train this many tokens, shown on a model's page.
constexpr double kTokensForTime = 1e12;
constexpr const char* kTokensForTimeText = "1T tokens";
constexpr double kHoursPerDay = 24;

std::string number_attr(double v) { return fmt::format("{}", v); }

std::string layout_name(const Recipe& r) {
  return r.layout.label.empty() ? r.layout.summary : r.layout.label;
}

// "TP1 PP1 EP8 DP8 · 8 × H200": what tells one bar of a model's charts from another.
std::string bar_label(const Recipe& r) { return layout_name(r) + " \u00b7 " + gpu_count_label(r); }

std::string dl(const std::vector<std::pair<std::string, std::string>>& items, const std::string& cls = "facts") {
  std::string out = "<dl class=\"" + cls + "\">\n";
  for (const auto& [label, html] : items) {
    if (html.empty()) continue;
    out += "<dt>" + escape_html(label) + "</dt><dd>" + html + "</dd>\n";
  }
  return out + "</dl>\n";
}

// Measured step time in seconds: tokens of one optimizer step over the whole job's tokens/s.
std::optional<double> measured_step_time_s(const Recipe& r) {
  if (!r.result || r.result->tokens_per_s_per_gpu <= 0 || r.gpu.count <= 0) return std::nullopt;
  const double step_tokens = static_cast<double>(r.workload.global_batch) * static_cast<double>(r.workload.row_tokens);
  if (step_tokens <= 0) return std::nullopt;
  return step_tokens / (r.result->tokens_per_s_per_gpu * static_cast<double>(r.gpu.count));
}

std::string throughput_cells(const Recipe& r) {
  if (!r.result) {
    std::string predicted;
    if (r.predicted) {
      predicted = " <span class=\"note\">(predicted " + escape_html(format_tokens_per_s(r.predicted->tokens_per_s_per_gpu)) +
                  ")</span>";
    }
    return "<td class=\"num\" data-value=\"\">\u2014" + predicted +
           "</td><td class=\"num\" data-value=\"\">\u2014</td><td class=\"num\" data-value=\"\">\u2014</td>"
           "<td class=\"num\" data-value=\"\">\u2014</td>";
  }
  const RecipeResult& m = *r.result;
  return fmt::format(
      "<td class=\"num\" data-value=\"{}\">{}</td><td class=\"num\" data-value=\"{}\">{}</td>"
      "<td class=\"num\" data-value=\"{}\">{}</td><td class=\"num\" data-value=\"{}\">{}</td>",
      number_attr(m.tokens_per_s_per_gpu), escape_html(format_tokens_per_s(m.tokens_per_s_per_gpu)),
      number_attr(m.usd_per_million_tokens), escape_html(format_usd(m.usd_per_million_tokens)), number_attr(m.mfu),
      escape_html(format_mfu(m.mfu)), number_attr(m.step_time_cv_percent),
      escape_html(format_percent(m.step_time_cv_percent)));
}

std::string gpu_sort_key(const Recipe& r) {
  return fmt::format("{} {:0{}}", util::to_lower(r.gpu.type), r.gpu.count, kGpuCountWidth);
}

std::string filter_select(const std::string& key, const std::string& label, const std::vector<std::string>& values) {
  std::string out = "<label>" + escape_html(label) + " <select data-filter=\"" + key + "\" id=\"filter-" + key +
                    "\"><option value=\"\">all</option>";
  for (const std::string& v : values) {
    out += "<option value=\"" + escape_html(v) + "\">" + escape_html(v) + "</option>";
  }
  return out + "</select></label>\n";
}

// A comparison bar chart over some recipes of one model; `highlight` marks the page's own recipe.
BarChart model_bar_chart(const SiteCatalog& catalog, const std::vector<size_t>& members, bool usd,
                         std::optional<size_t> highlight, const std::string& id) {
  BarChart chart;
  chart.id = id;
  const std::string& model = catalog.recipes[members.front()].recipe.model;
  chart.title = usd ? "$ per 1M tokens, " + model : "Tokens/s per GPU, " + model;
  chart.description = usd ? "Cost of one million training tokens for each layout of " + model +
                                "; shorter bars are cheaper."
                          : "Training throughput per GPU for each layout of " + model + "; longer bars are faster.";
  chart.value_label = usd ? "US dollars per 1M tokens" : "tokens/s per GPU";
  chart.value_prefix = usd ? "$" : "";
  chart.decimals = 2;
  BarSeries measured{"measured", {}};
  BarSeries predicted{"predicted", {}};
  bool any_predicted = false;
  for (const size_t i : members) {
    const Recipe& r = catalog.recipes[i].recipe;
    std::string label = bar_label(r);
    if (highlight && *highlight == i) label += " (this recipe)";
    chart.categories.push_back(label);
    if (r.result) {
      measured.values.push_back(usd ? r.result->usd_per_million_tokens : r.result->tokens_per_s_per_gpu);
    } else {
      measured.values.push_back(std::nullopt);
    }
    if (const auto& p = catalog.recipes[i].prediction) {
      any_predicted = true;
      predicted.values.push_back(usd ? p->usd_per_million_tokens : p->tokens_per_s_per_gpu);
    } else {
      predicted.values.push_back(std::nullopt);
    }
  }
  chart.series.push_back(std::move(measured));
  if (any_predicted) chart.series.push_back(std::move(predicted));
  return chart;
}

// "6,853.27 (80% interval 3,926.12–11,963.55)".
std::string predicted_tokens_text(const Predicted& p) {
  std::string out = format_tokens_per_s(p.tokens_per_s_per_gpu);
  if (p.tokens_per_s_per_gpu_low && p.tokens_per_s_per_gpu_high) {
    out += " (80% interval " + format_tokens_per_s(*p.tokens_per_s_per_gpu_low) + "\u2013" +
           format_tokens_per_s(*p.tokens_per_s_per_gpu_high) + ")";
  }
  return out;
}

// The fact beside the measured tokens/s: the prediction, its interval and where the measurement
// falls in it.
std::string predicted_fact_html(const SiteRecipe& item) {
  const Predicted& p = *item.prediction;
  std::string html = escape_html(predicted_tokens_text(p));
  const Recipe& r = item.recipe;
  if (r.result && p.tokens_per_s_per_gpu > 0) {
    const double measured = r.result->tokens_per_s_per_gpu;
    std::string where;
    if (p.tokens_per_s_per_gpu_low && p.tokens_per_s_per_gpu_high) {
      where = measured < *p.tokens_per_s_per_gpu_low    ? ", below the interval"
              : measured > *p.tokens_per_s_per_gpu_high ? ", above the interval"
                                                        : ", inside the interval";
    }
    html += "<br><span class=\"note\">" +
            escape_html(fmt::format("measured {:+.1f}% against predicted{}", (measured / p.tokens_per_s_per_gpu - 1) * 100,
                                    where)) +
            "</span>";
  }
  if (item.prediction_recomputed) {
    html += "<br><span class=\"note\">" + escape_html("predicted by " + p.planner + " for this layout") + "</span>";
  }
  return html;
}

std::string predicted_section(const SiteRecipe& item) {
  const Recipe& r = item.recipe;
  const Predicted& p = *item.prediction;
  const std::optional<double> measured_step = measured_step_time_s(r);
  auto row = [](const std::string& what, const std::string& predicted, const std::string& measured,
                std::optional<double> ratio) {
    return "<tr><th scope=\"row\">" + escape_html(what) + "</th><td class=\"num\">" + escape_html(predicted) +
           "</td><td class=\"num\">" + escape_html(measured) + "</td><td class=\"num\">" +
           (ratio ? escape_html(fmt::format("{:.2f}", *ratio)) : std::string("\u2014")) + "</td></tr>\n";
  };
  auto ratio = [](std::optional<double> measured, double predicted) -> std::optional<double> {
    if (!measured || predicted == 0) return std::nullopt;
    return *measured / predicted;
  };
  const RecipeResult* m = r.result ? &*r.result : nullptr;
  std::string out = "<h2 id=\"predicted\">Predicted and measured</h2>\n<p>Predicted by " + escape_html(p.planner) +
                    (item.prediction_recomputed ? " when this site was built (the recipe keeps no prediction)" : "") +
                    (m ? ". Measured step time is derived from the measured tokens/s per GPU, the GPU count and "
                         "the tokens of one optimizer step."
                       : "; not measured yet.") +
                    "</p>\n<div class=\"table-wrap\"><table class=\"predicted\"><thead><tr><th scope=\"col\">"
                    "</th><th scope=\"col\" class=\"num\">predicted</th><th scope=\"col\" class=\"num\">measured</th>"
                    "<th scope=\"col\" class=\"num\">measured \u00f7 predicted</th></tr></thead><tbody>\n";
  out += row("Tokens/s per GPU", predicted_tokens_text(p),
             m ? format_tokens_per_s(m->tokens_per_s_per_gpu) : "\u2014",
             ratio(m ? std::optional(m->tokens_per_s_per_gpu) : std::nullopt, p.tokens_per_s_per_gpu));
  out += row("Step time (s)", fmt::format("{:.3f}", p.step_time_s),
             measured_step ? fmt::format("{:.3f}", *measured_step) : "\u2014", ratio(measured_step, p.step_time_s));
  out += row("MFU", format_mfu(p.mfu), m ? format_mfu(m->mfu) : "\u2014",
             ratio(m ? std::optional(m->mfu) : std::nullopt, p.mfu));
  out += row("$ / 1M tokens", format_usd(p.usd_per_million_tokens), m ? format_usd(m->usd_per_million_tokens) : "\u2014",
             ratio(m ? std::optional(m->usd_per_million_tokens) : std::nullopt, p.usd_per_million_tokens));
  out += row("Memory per GPU, worst stage (GiB)", fmt::format("{:.1f}", p.memory_gib), "\u2014", std::nullopt);
  out += "</tbody></table></div>\n<div class=\"charts\">\n";

  if (!p.step_time_breakdown.empty()) {
    BarChart chart;
    chart.id = "chart-step-breakdown";
    chart.title = "Step time by part, predicted and measured";
    chart.description = "The planner's step time split into its parts, with its total beside the measured step time.";
    chart.value_label = "seconds per step";
    chart.decimals = 3;
    BarSeries predicted{"predicted", {}};
    BarSeries measured{"measured", {}};
    for (const PredictedPart& part : p.step_time_breakdown) {
      chart.categories.push_back(part.name);
      predicted.values.push_back(part.value);
      measured.values.push_back(std::nullopt);
    }
    chart.categories.push_back("total step time");
    predicted.values.push_back(p.step_time_s);
    measured.values.push_back(measured_step);
    chart.series.push_back(std::move(predicted));
    if (measured_step) chart.series.push_back(std::move(measured));
    out += render_bar_chart(chart);
  }
  if (!p.memory_breakdown.empty()) {
    BarChart chart;
    chart.id = "chart-memory-breakdown";
    chart.title = "Memory per GPU by part, predicted";
    chart.description = "The planner's memory per GPU on the worst pipeline stage, split into its parts.";
    chart.value_label = "GiB per GPU";
    chart.decimals = 1;
    BarSeries predicted{"predicted", {}};
    for (const PredictedPart& part : p.memory_breakdown) {
      chart.categories.push_back(part.name);
      predicted.values.push_back(part.value);
    }
    chart.categories.push_back("total");
    predicted.values.push_back(p.memory_gib);
    chart.series.push_back(std::move(predicted));
    add_capacity(chart, r);
    out += render_bar_chart(chart);
  }
  if (p.stage_memory.size() > 1) {
    BarChart chart;
    chart.id = "chart-stage-memory";
    chart.title = "Memory per GPU by pipeline stage, predicted";
    chart.description = "The planner's peak memory per GPU on each pipeline stage, first to last.";
    chart.value_label = "GiB per GPU";
    chart.decimals = 1;
    BarSeries predicted{"predicted", {}};
    for (const PredictedPart& stage : p.stage_memory) {
      chart.categories.push_back(stage.name);
      predicted.values.push_back(stage.value);
    }
    chart.series.push_back(std::move(predicted));
    add_capacity(chart, r);
    out += render_bar_chart(chart);
  }
  return out + "</div>\n";
}

// Inline Markdown of the notes: `code` spans and bare http(s) URLs; everything else is text.
std::string render_inline(std::string_view text) {
  std::string out;
  auto plain = [&out](std::string_view part) {
    size_t at = 0;
    while (at < part.size()) {
      size_t found = std::string_view::npos;
      for (const std::string_view scheme : {"https://", "http://"}) found = std::min(found, part.find(scheme, at));
      if (found == std::string_view::npos) break;
      size_t end = found;
      while (end < part.size() && !std::isspace(static_cast<unsigned char>(part[end])) &&
             std::string_view("<>\"'`").find(part[end]) == std::string_view::npos) {
        ++end;
      }
      while (end > found && std::string_view(".,;:)]").find(part[end - 1]) != std::string_view::npos) --end;
      out += escape_html(part.substr(at, found - at));
      const std::string url(part.substr(found, end - found));
      out += render_link(url, url);
      at = end;
    }
    out += escape_html(part.substr(at));
  };
  size_t at = 0;
  while (at < text.size()) {
    const size_t open = text.find('`', at);
    const size_t close = open == std::string_view::npos ? open : text.find('`', open + 1);
    if (close == std::string_view::npos) break;
    plain(text.substr(at, open - at));
    out += "<code>" + escape_html(text.substr(open + 1, close - open - 1)) + "</code>";
    at = close + 1;
  }
  plain(text.substr(std::min(at, text.size())));
  return out;
}

// The notes as Markdown's two common blocks: paragraphs and "- " lists (indented lines continue an item).
std::string render_notes(const std::string& text) {
  std::string out;
  std::string current;
  bool in_list = false;
  bool current_is_item = false;
  auto flush = [&] {
    if (current.empty()) return;
    out += current_is_item ? "<li>" + render_inline(current) + "</li>\n" : "<p>" + render_inline(current) + "</p>\n";
    current.clear();
  };
  auto close_list = [&] {
    if (in_list) out += "</ul>\n";
    in_list = false;
  };
  for (const std::string& line : util::split(text, '\n')) {
    const std::string_view trimmed = util::trim(line);
    if (trimmed.empty()) {
      flush();
      close_list();
      continue;
    }
    const bool bullet = line.starts_with("- ") || line.starts_with("* ");
    if (bullet) {
      flush();
      if (!in_list) out += "<ul>\n";
      in_list = true;
      current_is_item = true;
      current = std::string(trimmed.substr(2));
      continue;
    }
    if (current_is_item && !line.starts_with(" ")) {  // a plain line after a list starts a paragraph
      flush();
      close_list();
      current_is_item = false;
    }
    if (current.empty()) {
      current_is_item = current_is_item && in_list;
      current = std::string(trimmed);
      continue;
    }
    current += " " + std::string(trimmed);
  }
  flush();
  close_list();
  return out;
}

std::string text_or_link(const std::string& value) {
  return safe_link_url(value) ? render_link(value, value) : escape_html(value);
}

// The trials of the tuning run that wrote the recipe: each trial's predicted (when proposed) and
// measured tokens/s per GPU by trial number, the best measured so far, and the table by round.
std::string trials_section(const SiteRecipe& item) {
  LineSeries predicted{"predicted when proposed", {}};
  LineSeries measured{"measured", {}};
  LineSeries best{"best measured so far", {}};
  double best_so_far = 0;
  int64_t rounds = 0;
  for (const SiteTrial& t : item.trials) {
    rounds = std::max(rounds, t.round);
    const double x = static_cast<double>(t.id);
    predicted.points.push_back({x, t.predicted_tokens_per_s_per_gpu});
    if (t.measured_tokens_per_s_per_gpu) {
      measured.points.push_back({x, *t.measured_tokens_per_s_per_gpu});
      if (t.kind == "explore") best_so_far = std::max(best_so_far, *t.measured_tokens_per_s_per_gpu);
    }
    if (best_so_far > 0 && t.kind == "explore") best.points.push_back({x, best_so_far});
  }
  std::string out = "<h2 id=\"trials\">Tuning trials</h2>\n<p>" +
                    escape_html(fmt::format("`ladle tune` ran {} trial{} in {} round{} to choose this layout; the "
                                            "confirmation and reference runs come last.",
                                            item.trials.size(), item.trials.size() == 1 ? "" : "s", rounds,
                                            rounds == 1 ? "" : "s")) +
                    "</p>\n<div class=\"charts\">\n";
  LineChart chart;
  chart.id = "chart-trials";
  chart.title = "Tuning trials: predicted and measured tokens/s per GPU";
  chart.description = "For each trial of the tuning run, in the order they were proposed: the planner's prediction "
                      "when it proposed the trial, the measured figure, and the best measured so far.";
  chart.x_label = "trial";
  chart.y_label = "tokens/s per GPU";
  chart.y_decimals = 1;
  chart.series.push_back(std::move(predicted));
  if (!measured.points.empty()) chart.series.push_back(std::move(measured));
  if (!best.points.empty()) chart.series.push_back(std::move(best));
  out += render_line_chart(chart);
  out += "</div>\n<div class=\"table-wrap\"><table id=\"trials-table\"><thead><tr><th scope=\"col\" class=\"num\">Round"
         "</th><th scope=\"col\" class=\"num\">Trial</th><th scope=\"col\">Layout</th><th scope=\"col\">Kind</th>"
         "<th scope=\"col\">State</th><th scope=\"col\" class=\"num\">Predicted</th><th scope=\"col\" class=\"num\">"
         "Measured</th></tr></thead><tbody>\n";
  for (const SiteTrial& t : item.trials) {
    out += fmt::format(
        "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">"
        "{}</td><td class=\"num\">{}</td></tr>\n",
        t.round, t.id, escape_html(t.layout), escape_html(t.kind), escape_html(t.state),
        escape_html(format_tokens_per_s(t.predicted_tokens_per_s_per_gpu)),
        t.measured_tokens_per_s_per_gpu ? escape_html(format_tokens_per_s(*t.measured_tokens_per_s_per_gpu))
                                        : std::string("\u2014"));
  }
  return out + "</tbody></table></div>\n";
}

// A model's figure against its GPU count: at each count the best measured and the best predicted
// of its recipes (the highest tokens/s, the lowest $ per 1M).
LineChart gpu_count_chart(const SiteCatalog& catalog, const std::vector<size_t>& members, bool usd) {
  std::map<int64_t, double> measured;
  std::map<int64_t, double> predicted;
  auto keep = [usd](std::map<int64_t, double>& at, int64_t count, double v) {
    const auto [it, fresh] = at.emplace(count, v);
    if (!fresh) it->second = usd ? std::min(it->second, v) : std::max(it->second, v);
  };
  for (const size_t i : members) {
    const Recipe& r = catalog.recipes[i].recipe;
    if (r.result) keep(measured, r.gpu.count, usd ? r.result->usd_per_million_tokens : r.result->tokens_per_s_per_gpu);
    if (const auto& p = catalog.recipes[i].prediction) {
      keep(predicted, r.gpu.count, usd ? p->usd_per_million_tokens : p->tokens_per_s_per_gpu);
    }
  }
  const std::string& model = catalog.recipes[members.front()].recipe.model;
  LineChart chart;
  chart.id = usd ? "chart-usd-by-gpus" : "chart-tokens-by-gpus";
  chart.title = usd ? "$ per 1M tokens by GPU count" : "Tokens/s per GPU by GPU count";
  chart.description = (usd ? "The cheapest of " : "The fastest of ") + model +
                      "'s recipes at each GPU count, measured and predicted.";
  chart.x_label = "GPUs";
  chart.y_label = usd ? "US dollars per 1M tokens" : "tokens/s per GPU";
  chart.y_decimals = 2;
  for (const auto& [name, values] : {std::pair{"measured", &measured}, std::pair{"predicted", &predicted}}) {
    if (values->empty()) continue;
    LineSeries series{name, {}};
    for (const auto& [count, v] : *values) series.points.push_back({static_cast<double>(count), v});
    chart.series.push_back(std::move(series));
  }
  return chart;
}

// Predicted memory per GPU of each pipeline stage of each recipe of a model.
BarChart stage_memory_chart(const SiteCatalog& catalog, const std::vector<size_t>& members) {
  BarChart chart;
  chart.id = "chart-stage-memory";
  chart.title = "Memory per GPU by pipeline stage, predicted";
  chart.description = "The planner's peak memory per GPU on each pipeline stage of each recipe of " +
                      catalog.recipes[members.front()].recipe.model + ".";
  chart.value_label = "GiB per GPU";
  chart.decimals = 1;
  BarSeries predicted{"predicted", {}};
  std::set<std::string> gpus;
  for (const size_t i : members) {
    const auto& p = catalog.recipes[i].prediction;
    if (!p) continue;
    const Recipe& r = catalog.recipes[i].recipe;
    // One capacity line: the model's recipes on one GPU type (several types: each bar's label says).
    if (gpus.insert(r.gpu.type).second) {
      if (gpus.size() == 1) {
        add_capacity(chart, r);
      } else {
        chart.limit.reset();
      }
    }
    for (const PredictedPart& stage : p->stage_memory) {
      chart.categories.push_back(layout_name(r) + " \u00b7 " + stage.name);
      predicted.values.push_back(stage.value);
    }
  }
  chart.series.push_back(std::move(predicted));
  return chart;
}

// One of a sweep's figures against GPU count: the planner's best at each count with its 80%
// interval, and the measured recipes of the same model and GPU type as points.
enum class SweepFigure { tokens, usd, days };

LineChart sweep_chart(const SiteCatalog& catalog, const ModelSweep& sweep, SweepFigure figure) {
  LineChart chart;
  const std::string suffix = slugify(sweep.gpu);
  auto value = [figure](double tps, double usd, int64_t gpus) {
    switch (figure) {
      case SweepFigure::usd: return usd;
      case SweepFigure::days: return hours_to_tokens(kTokensForTime, tps, gpus) / kHoursPerDay;
      case SweepFigure::tokens: break;
    }
    return tps;
  };
  switch (figure) {
    case SweepFigure::tokens:
      chart.id = "chart-sweep-tokens-" + suffix;
      chart.title = "Tokens/s per GPU by GPU count, " + sweep.gpu;
      chart.y_label = "tokens/s per GPU";
      break;
    case SweepFigure::usd:
      chart.id = "chart-sweep-usd-" + suffix;
      chart.title = "$ per 1M tokens by GPU count, " + sweep.gpu;
      chart.y_label = "US dollars per 1M tokens";
      break;
    case SweepFigure::days:
      chart.id = "chart-sweep-days-" + suffix;
      chart.title = std::string("Days to train ") + kTokensForTimeText + " by GPU count, " + sweep.gpu;
      chart.y_label = "days";
      break;
  }
  chart.description = "The planner's best layout of " + sweep.model + " at each GPU count on " + sweep.gpu +
                      " with its 80% interval, and the measured recipes as points.";
  chart.x_label = "GPUs";
  chart.x_log2 = true;
  chart.y_decimals = 2;
  LineSeries predicted{"predicted best", {}, {}, {}, false};
  for (const SweepCount& c : sweep.counts) {
    if (!c.fits) continue;
    const double x = static_cast<double>(c.gpus);
    const double tps = c.tokens_per_s_per_gpu;
    // $ per token and days scale with 1 / throughput: the interval's high end is the low cost.
    const double usd_at = [&](double t) { return t > 0 ? c.usd_per_million_tokens * tps / t : 0.0; }(tps);
    predicted.points.push_back({x, value(tps, usd_at, c.gpus)});
    const double lo_tps = c.tokens_per_s_low;
    const double hi_tps = c.tokens_per_s_high;
    if (lo_tps > 0 && hi_tps > 0) {
      const double a = value(lo_tps, c.usd_per_million_tokens * tps / lo_tps, c.gpus);
      const double b = value(hi_tps, c.usd_per_million_tokens * tps / hi_tps, c.gpus);
      predicted.low.push_back({x, std::min(a, b)});
      predicted.high.push_back({x, std::max(a, b)});
    }
  }
  if (predicted.low.size() != predicted.points.size()) {
    predicted.low.clear();
    predicted.high.clear();
  }
  chart.series.push_back(std::move(predicted));
  LineSeries measured{"measured recipes", {}, {}, {}, true};
  for (const size_t i : catalog.recipes_of(sweep.model)) {
    const Recipe& r = catalog.recipes[i].recipe;
    if (r.gpu.type != sweep.gpu || !r.result || r.gpu.count <= 0) continue;
    measured.points.push_back({static_cast<double>(r.gpu.count),
                               value(r.result->tokens_per_s_per_gpu, r.result->usd_per_million_tokens, r.gpu.count)});
  }
  std::sort(measured.points.begin(), measured.points.end(),
            [](const LinePoint& a, const LinePoint& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  if (!measured.points.empty()) chart.series.push_back(std::move(measured));
  return chart;
}

std::string days_text(double tps, int64_t gpus) {
  const double days = hours_to_tokens(kTokensForTime, tps, gpus) / kHoursPerDay;
  return util::format_grouped(days, days < 10 ? 1 : 0);
}

// "How many GPUs?": the planner's sweep of the model on each GPU type of its recipes.
std::string sweep_section(const SiteCatalog& catalog, const std::string& model) {
  std::string out;
  for (const ModelSweep& sweep : catalog.sweeps) {
    if (sweep.model != model) continue;
    const std::string anchor = "sweep-" + slugify(sweep.gpu);
    out += "<section class=\"sweep\" id=\"" + escape_html(anchor) + "-section\">\n";
    out += "<h2 id=\"" + escape_html(anchor) + "\">How many GPUs? " + escape_html(sweep.gpu) + "</h2>\n<p>" +
           escape_html("The planner's best layout at each GPU count (the search of `ladle plan --gpus N,N,...`, "
                       "embedded calibration) on " + sweep.instance + " nodes, " + sweep.workload +
                       " (the workload of " + sweep.basis + "). Shaded: the 80% interval; squares: this "
                       "model's measured recipes on " + sweep.gpu + ". Frontier: no other count gives more "
                       "tokens/s for less per token. Days assume " + kTokensForTimeText + " at the predicted rate.") +
           "</p>\n<div class=\"table-wrap\"><table class=\"sweep\" id=\"" + escape_html(anchor) +
           "-table\">\n<thead><tr><th scope=\"col\" class=\"num\">GPUs</th><th scope=\"col\" class=\"num\">Tokens/s "
           "per GPU</th><th scope=\"col\" class=\"num\">80% interval</th><th scope=\"col\" class=\"num\">$ / 1M "
           "tokens</th><th scope=\"col\" class=\"num\">Days to " + kTokensForTimeText + "</th><th scope=\"col\" "
           "class=\"num\">Memory / usable GiB</th><th scope=\"col\">Frontier</th><th scope=\"col\">Best layout</th>"
           "</tr></thead>\n<tbody>\n";
    for (const SweepCount& c : sweep.counts) {
      if (!c.fits) {
        out += fmt::format("<tr class=\"no-fit\"><td class=\"num\">{}</td><td colspan=\"7\">{}</td></tr>\n", c.gpus,
                           escape_html("no layout: " + c.reason));
        continue;
      }
      out += fmt::format(
          "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}"
          "</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>\n",
          c.gpus, escape_html(format_tokens_per_s(c.tokens_per_s_per_gpu)),
          escape_html(util::format_grouped(c.tokens_per_s_low, 0) + "\u2013" + util::format_grouped(c.tokens_per_s_high, 0)),
          escape_html(format_usd(c.usd_per_million_tokens)), escape_html(days_text(c.tokens_per_s_per_gpu, c.gpus)),
          escape_html(fmt::format("{:.1f} / {:.1f}", c.memory_gib, c.capacity_gib)), c.frontier ? "frontier" : "",
          escape_html(c.layout));
    }
    out += "</tbody></table></div>\n<div class=\"charts\">\n";
    for (const SweepFigure f : {SweepFigure::tokens, SweepFigure::usd, SweepFigure::days}) {
      out += render_line_chart(sweep_chart(catalog, sweep, f));
    }
    out += "</div>\n</section>\n";
  }
  return out;
}

// The index's predicted frontier: for each model and GPU type, the GPU counts no other count beats
// on both total throughput and cost.
std::string frontier_section(const SiteCatalog& catalog) {
  if (catalog.sweeps.empty()) return "";
  std::string out =
      "<h2 id=\"predicted-frontier\">Predicted frontier</h2>\n<p class=\"note\">The planner's best layout at "
      "the GPU counts where no other count gives more tokens/s for less per token; each model's page has the "
      "whole sweep with intervals. The filters above apply here too.</p>\n<div class=\"table-wrap\"><table "
      "id=\"frontier\">\n<thead><tr><th scope=\"col\">Model</th><th scope=\"col\">GPUs</th><th scope=\"col\" "
      "class=\"num\">Tokens/s per GPU</th><th scope=\"col\" class=\"num\">$ / 1M tokens</th><th scope=\"col\">"
      "Layout</th></tr></thead>\n<tbody>\n";
  for (const ModelSweep& sweep : catalog.sweeps) {
    for (const SweepCount& c : sweep.counts) {
      if (!c.fits || !c.frontier) continue;
      out += "<tr data-model=\"" + escape_html(sweep.model) + "\" data-gpu=\"" + escape_html(sweep.gpu) + "\"><td><a href=\"" +
             escape_html(catalog.model_page(sweep.model) + "#sweep-" + slugify(sweep.gpu)) + "\">" +
             escape_html(sweep.model) + "</a></td><td>" + escape_html(fmt::format("{} x {}", c.gpus, sweep.gpu)) +
             "</td><td class=\"num\">" + escape_html(format_tokens_per_s(c.tokens_per_s_per_gpu)) +
             "</td><td class=\"num\">" + escape_html(format_usd(c.usd_per_million_tokens)) + "</td><td>" +
             escape_html(c.layout) + "</td></tr>\n";
    }
  }
  return out + "</tbody></table></div>\n";
}

}  // namespace

std::string render_index(const SiteCatalog& catalog) {
  std::string body = "<h1>Training recipes</h1>\n<p class=\"lede\">" +
                     escape_html(fmt::format("{} recipe{} for {} model{} on {}.", catalog.recipes.size(),
                                             catalog.recipes.size() == 1 ? "" : "s", catalog.models.size(),
                                             catalog.models.size() == 1 ? "" : "s", util::join(catalog.gpus, ", "))) +
                     " Each row is a layout measured (or planned) on real GPUs; open one for its run script, "
                     "evidence and charts.</p>\n";
  body += "<h2 id=\"all\">All recipes</h2>\n";
  body += "<form class=\"filters\" id=\"filters\" hidden aria-label=\"Filter recipes\">\n" +
          filter_select("model", "Model", catalog.models) + filter_select("gpu", "GPU", catalog.gpus) +
          filter_select("status", "Status", catalog.statuses) + "<output aria-live=\"polite\"></output>\n</form>\n";
  body +=
      "<div class=\"table-wrap\"><table id=\"recipes\">\n<caption class=\"note\">Figures per GPU as measured; "
      "\u2014 where a recipe is planned only.</caption>\n<thead><tr>"
      "<th scope=\"col\" data-sort=\"text\">Model</th><th scope=\"col\" data-sort=\"text\">GPUs</th>"
      "<th scope=\"col\" data-sort=\"text\">Layout</th><th scope=\"col\" class=\"num\" data-sort=\"number\">Tokens/s "
      "per GPU</th><th scope=\"col\" class=\"num\" data-sort=\"number\">$ / 1M tokens</th>"
      "<th scope=\"col\" class=\"num\" data-sort=\"number\">MFU</th><th scope=\"col\" class=\"num\" "
      "data-sort=\"number\">Step-time CV</th><th scope=\"col\" data-sort=\"text\">Status</th>"
      "<th scope=\"col\" data-sort=\"text\">Measured</th></tr></thead>\n<tbody>\n";
  for (size_t i = 0; i < catalog.recipes.size(); ++i) {
    const Recipe& r = catalog.recipes[i].recipe;
    const RecipePaths& p = catalog.paths[i];
    body += "<tr data-model=\"" + escape_html(r.model) + "\" data-gpu=\"" + escape_html(r.gpu.type) +
            "\" data-status=\"" + escape_html(r.status) + "\">";
    body += "<td><a href=\"" + escape_html(p.model_page) + "\">" + escape_html(r.model) + "</a></td>";
    body += "<td data-value=\"" + escape_html(gpu_sort_key(r)) + "\">" + escape_html(gpu_count_label(r)) + "</td>";
    body += "<td><a href=\"" + escape_html(p.page) + "\">" + escape_html(layout_name(r)) + "</a>" +
            rl_index_mark(r) + "</td>";
    body += throughput_cells(r);
    body += "<td>" + status_cell(catalog.recipes[i]) + "</td>";
    body += "<td>" + (r.result ? escape_html(r.result->measured) : std::string("\u2014")) + "</td></tr>\n";
  }
  body += "</tbody>\n</table></div>\n";
  body += frontier_section(catalog);

  body += "<h2 id=\"models\">Models</h2>\n<ul class=\"models\">\n";
  for (const std::string& model : catalog.models) {
    const size_t n = catalog.recipes_of(model).size();
    body += "<li><a href=\"" + escape_html(catalog.model_page(model)) + "\">" + escape_html(model) + "</a> (" +
            fmt::format("{} recipe{}", n, n == 1 ? "" : "s") + ")</li>\n";
  }
  body += "</ul>\n";
  return page("", "Training recipes", "<a href=\"index.html#models\">Models</a>", body, catalog.recipes.size());
}

std::string render_model_page(const SiteCatalog& catalog, const std::string& model) {
  const std::vector<size_t> members = catalog.recipes_of(model);
  const std::string root = "../";
  std::string body = "<h1>" + escape_html(model) + "</h1>\n<p class=\"lede\">" +
                     escape_html(fmt::format("{} recipe{} for this model.", members.size(), members.size() == 1 ? "" : "s")) +
                     "</p>\n<h2 id=\"recipes-of-model\">Recipes</h2>\n<div class=\"table-wrap\"><table>\n<thead><tr>"
                     "<th scope=\"col\">Layout</th><th scope=\"col\">GPUs</th><th scope=\"col\" class=\"num\">Tokens/s "
                     "per GPU</th><th scope=\"col\" class=\"num\">$ / 1M tokens</th><th scope=\"col\" class=\"num\">MFU"
                     "</th><th scope=\"col\" class=\"num\">Step-time CV</th><th scope=\"col\">Status</th></tr></thead>"
                     "\n<tbody>\n";
  for (const size_t i : members) {
    const Recipe& r = catalog.recipes[i].recipe;
    body += "<tr><td><a href=\"" + escape_html(root + catalog.paths[i].page) + "\">" + escape_html(layout_name(r)) +
            "</a></td><td>" + escape_html(gpu_count_label(r)) + "</td>" + throughput_cells(r) + "<td>" +
            status_cell(catalog.recipes[i]) + "</td></tr>\n";
  }
  body += "</tbody></table></div>\n";
  body += sweep_section(catalog, model);
  body += "<h2 id=\"charts\">Charts</h2>\n<div class=\"charts\">\n";
  if (!members.empty()) {
    body += render_line_chart(gpu_count_chart(catalog, members, false));
    body += render_line_chart(gpu_count_chart(catalog, members, true));
    body += render_bar_chart(model_bar_chart(catalog, members, false, std::nullopt, "chart-tokens"));
    body += render_bar_chart(model_bar_chart(catalog, members, true, std::nullopt, "chart-usd"));
    const BarChart stages = stage_memory_chart(catalog, members);
    if (!stages.categories.empty()) body += render_bar_chart(stages);
  }
  body += "</div>\n";
  return page(root, model + " recipes", "<a href=\"../index.html#models\">Models</a>", body, catalog.recipes.size());
}

std::string render_recipe_page(const SiteCatalog& catalog, size_t index) {
  const SiteRecipe& item = catalog.recipes[index];
  const Recipe& r = item.recipe;
  const RecipePaths& paths = catalog.paths[index];
  const std::string root = "../";
  const std::string yaml_name = paths.yaml.substr(paths.yaml.find_last_of('/') + 1);

  std::string body = "<h1>" + escape_html(recipe_title(r)) + "</h1>\n<p class=\"lede\">" +
                     escape_html(layout_name(r)) + " \u00b7 " + escape_html(gpu_count_label(r)) + " \u00b7 " +
                     status_badge(r.status) + "</p>\n";

  body += "<h2 id=\"facts\">Facts</h2>\n<dl class=\"facts\">\n";
  for (const Fact& f : recipe_facts(r)) {
    body += "<dt>" + escape_html(f.label) + "</dt><dd data-fact=\"" + f.key + "\">" + f.html + "</dd>\n";
    if (f.key == "tokens-per-s-per-gpu" && item.prediction) {
      body += "<dt>Predicted tokens/s per GPU</dt><dd data-fact=\"predicted-tokens-per-s-per-gpu\">" +
              predicted_fact_html(item) + "</dd>\n";
    }
  }
  body += "</dl>\n";

  body += "<h2 id=\"charts\">Charts</h2>\n<div class=\"charts\">\n";
  body += render_bar_chart(model_bar_chart(catalog, catalog.recipes_of(r.model), false, index, "chart-throughput"));
  if (!item.reference_loss.empty() && !item.candidate_loss.empty()) {
    LineChart loss;
    loss.id = "chart-loss";
    loss.title = "Convergence check: loss by step";
    loss.description = "Training loss of the reference recipe and of this recipe (the candidate) over the same rows.";
    loss.x_label = "step";
    loss.y_label = "loss";
    loss.y_decimals = 4;
    loss.series = {{"reference", item.reference_loss}, {"candidate (this recipe)", item.candidate_loss}};
    body += render_line_chart(loss);
  }
  if (!item.step_time_s.empty()) {
    LineChart steps;
    steps.id = "chart-step-time";
    steps.title = "Step time by step, measured run";
    steps.description = "Seconds per training step of the measured run.";
    steps.x_label = "step";
    steps.y_label = "step time (s)";
    steps.y_decimals = 3;
    steps.series = {{"step time", item.step_time_s}};
    if (r.result && r.result->window.size() == 2) {
      steps.band = XBand{static_cast<double>(r.result->window[0]), static_cast<double>(r.result->window[1]),
                         "measured window"};
    }
    body += render_line_chart(steps);
  }
  body += "</div>\n";
  if (item.reference_loss.empty() || item.candidate_loss.empty() || item.step_time_s.empty()) {
    body += "<p class=\"note\">";
    const Convergence* conv = r.correctness && r.correctness->convergence ? &*r.correctness->convergence : nullptr;
    std::vector<std::string> remote;
    for (const auto* log : {conv ? &conv->reference_log : nullptr, conv ? &conv->candidate_log : nullptr}) {
      if (log && *log && safe_link_url(**log)) remote.push_back(render_link(**log, **log));
    }
    if (!remote.empty()) {
      body += "The loss series are published at " + util::join(remote, " and ") +
              "; ladle draws only logs stored beside the recipe. ";
    } else if (item.reference_loss.empty() || item.candidate_loss.empty()) {
      body += "No loss series: the recipe points to no convergence logs "
              "(<code>correctness.convergence.reference_log</code>, <code>candidate_log</code>). ";
    }
    if (item.step_time_s.empty()) body += "No step-time series: the recipe points to no log of its measured run.";
    body += "</p>\n";
  }

  if (item.prediction) body += predicted_section(item);
  if (!item.trials.empty()) body += trials_section(item);

  if (r.correctness) {
    const Correctness& c = *r.correctness;
    body += "<h2 id=\"correctness\">Correctness</h2>\n";
    body += dl({{"Result", "<span class=\"result result-" + slugify(c.result) + "\">" + escape_html(c.result) + "</span>"},
                {"Summary", escape_html(c.summary)},
                {"Reference", escape_html(c.reference)},
                {"Configuration", "<span class=\"result result-" + slugify(c.configuration) + "\">" +
                                      escape_html(c.configuration) + "</span>"},
                {"Rules", escape_html(c.rules)}});
  }

  body += "<h2 id=\"run\">Run script</h2>\n<div class=\"code-head\"><p>The launch script exactly as the recipe "
          "gives it.</p><p><button type=\"button\" class=\"copy\" data-copy-target=\"run-script\" hidden>Copy</button> "
          "<a class=\"download\" href=\"" +
          escape_html(yaml_name) + "\" download>Download " + escape_html(yaml_name) +
          "</a></p></div>\n<pre><code id=\"run-script\">" + escape_html(r.run) + "</code></pre>\n";
  if (!r.env.empty()) {
    body += "<h3 id=\"env\">Environment</h3>\n<div class=\"table-wrap\"><table><thead><tr><th scope=\"col\">Variable"
            "</th><th scope=\"col\">Value</th></tr></thead><tbody>\n";
    for (const auto& [name, value] : r.env) {
      body += "<tr><td><code>" + escape_html(name) + "</code></td><td><code>" + escape_html(value) + "</code></td></tr>\n";
    }
    body += "</tbody></table></div>\n";
  }
  if (!r.patches.empty()) {
    body += "<h3 id=\"patches\">Patches</h3>\n<ul>\n";
    for (const std::string& p : r.patches) body += "<li>" + text_or_link(p) + "</li>\n";
    body += "</ul>\n";
  }

  const RecipeStack& s = r.stack;
  body += "<h2 id=\"stack\">Software stack</h2>\n";
  body += dl({{"Framework", escape_html(s.framework)},
              {"Megatron-LM", escape_html(s.megatron_lm)},
              {"Transformer Engine", escape_html(s.transformer_engine)},
              {"PyTorch", escape_html(s.pytorch)},
              {"CUDA", escape_html(s.cuda)},
              {"NCCL", escape_html(s.nccl)},
              {"DeepEP", escape_html(s.deepep)},
              {"Python", escape_html(s.python)},
              {"Network", escape_html(s.network)},
              {"Source", escape_html(s.source)}});

  const Workload& w = r.workload;
  const RecipeDataset& d = w.dataset;
  std::vector<std::pair<std::string, std::string>> workload{
      {"Rows", escape_html(w.rows)},
      {"Tokens per row", escape_html(util::format_grouped(static_cast<long long>(w.row_tokens)))},
      {"Global batch", escape_html(fmt::format("{} rows", w.global_batch))},
      {"Precision", escape_html(w.precision)},
      {"Dataset", escape_html(d.name) + (d.source.empty() ? "" : " (" + text_or_link(d.source) + ")")},
      {"Revision", d.revision.empty() ? "" : "<code class=\"hash\">" + escape_html(d.revision) + "</code>"},
      {"License", escape_html(d.license)}};
  if (d.build) {
    const DatasetBuild& b = *d.build;
    workload.push_back({"Build", escape_html(b.name)});
    workload.push_back({"Tokenizer", escape_html(b.tokenizer)});
    workload.push_back({"Loss mask", escape_html(b.loss_mask)});
    workload.push_back({"Built rows", escape_html(fmt::format("{} rows of {} tokens, {} padding tokens, seed {}",
                                                              util::format_grouped(static_cast<long long>(b.rows)),
                                                              util::format_grouped(static_cast<long long>(b.row_tokens)),
                                                              b.padding_tokens, b.seed))});
    workload.push_back({"Packing", escape_html(b.packing)});
    workload.push_back({"Supervised tokens", escape_html(fmt::format("{:.1f}%", b.supervised_token_ratio * 100))});
    workload.push_back({"Parquet", "<code class=\"hash\">" + escape_html(b.parquet_sha256) + "</code> (" +
                                       escape_html(util::format_grouped(static_cast<long long>(b.parquet_bytes))) +
                                       " bytes)"});
    workload.push_back({"Builder", escape_html(b.builder)});
  }
  body += "<h2 id=\"workload\">Workload</h2>\n" + dl(workload);
  body += render_rl_section(r);

  if (r.result) {
    const RecipeResult& m = *r.result;
    body += "<h2 id=\"measurement\">Measurement</h2>\n";
    body += dl({{"Window tokens", escape_html(util::format_grouped(static_cast<long long>(m.window_tokens)))},
                {"Runs", escape_html(fmt::format("{}", m.runs))},
                {"Profiler", m.profiler ? "on" : "off"},
                {"Active parameters",
                 escape_html(util::format_grouped(static_cast<long long>(m.active_params.count))) +
                     (m.active_params.source.empty() ? "" : " (" + text_or_link(m.active_params.source) + ")") +
                     (m.active_params.revision.empty()
                          ? ""
                          : " revision <code class=\"hash\">" + escape_html(m.active_params.revision) + "</code>")}});
  }

  if (!r.notes.empty()) body += "<h2 id=\"notes\">Notes</h2>\n<div class=\"notes\">\n" + render_notes(r.notes) + "</div>\n";

  body += "<h2 id=\"recipe-file\">Recipe file</h2>\n<p><a class=\"download\" href=\"" + escape_html(yaml_name) +
          "\" download>Download " + escape_html(yaml_name) + "</a></p>\n<details><summary>Show the YAML</summary>\n"
          "<pre><code>" + escape_html(item.yaml) + "</code></pre>\n</details>\n";

  const std::string nav = "<a href=\"../index.html\">All recipes</a><a href=\"" + escape_html(root + paths.model_page) +
                          "\">" + escape_html(r.model) + "</a>";
  return page(root, recipe_title(r) + " (" + layout_name(r) + ")", nav, body, catalog.recipes.size());
}

}  // namespace ladle::site
