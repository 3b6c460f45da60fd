#include "ladle/site/rl_section.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ladle/site/html.hpp"
#include "ladle/util/text.hpp"

namespace ladle::site {

namespace {

// The bar's size in SVG user units; the page scales it to its column.
constexpr double kBarWidth = 720;
constexpr double kBarHeight = 28;
constexpr double kLegendY = 52;
constexpr double kSvgHeight = 64;

struct Phase {
  const char* key;
  const char* label;
  const char* color;  // Okabe and Ito's colour-blind-safe palette (jfly.uni-koeln.de/color)
  double RlPhaseSplit::*share;
};

constexpr std::array<Phase, 5> kPhases = {{
    {"rollout", "Rollout (generation)", "#0072B2", &RlPhaseSplit::rollout},
    {"log-prob", "Log-prob passes", "#E69F00", &RlPhaseSplit::log_prob},
    {"train", "Training", "#009E73", &RlPhaseSplit::train},
    {"weight-update", "Weight update", "#CC79A7", &RlPhaseSplit::weight_update},
    {"other", "Other", "#999999", &RlPhaseSplit::other},
}};

std::string mode_text(const std::string& mode) {
  if (mode == "colocated_sync") return "colocated, synchronous (engines and trainer take turns on the same GPUs)";
  if (mode == "disaggregated_sync") return "disaggregated, synchronous (separate GPUs, in turn)";
  if (mode == "disaggregated_async") return "disaggregated, asynchronous (separate GPUs, one rollout ahead)";
  return mode;
}

std::string percent(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

std::string phase_bar(const RlPhaseSplit& split) {
  std::string svg = fmt::format(
      "<figure class=\"chart\" id=\"chart-rl-phases\"><svg viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-labelledby=\"rl-phases-title rl-phases-desc\"><title id=\"rl-phases-title\">Phase split of one RL "
      "step</title><desc id=\"rl-phases-desc\">",
      kBarWidth, kSvgHeight);
  std::vector<std::string> parts;
  for (const Phase& p : kPhases) parts.push_back(fmt::format("{} {}", p.label, percent(split.*p.share)));
  svg += escape_html(util::join(parts, ", ")) + "</desc>\n";
  double x = 0;
  for (const Phase& p : kPhases) {
    const double w = kBarWidth * std::max(0.0, split.*p.share);
    if (w <= 0) continue;
    svg += fmt::format("<rect x=\"{:.2f}\" y=\"0\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\" data-phase=\"{}\">"
                       "<title>{}: {}</title></rect>\n",
                       x, w, kBarHeight, p.color, p.key, p.label, percent(split.*p.share));
    x += w;
  }
  double lx = 0;
  for (const Phase& p : kPhases) {
    svg += fmt::format("<rect x=\"{:.0f}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
                       "<text x=\"{:.0f}\" y=\"{}\" fill=\"#222222\" font-size=\"13\">{}</text>\n",
                       lx, kLegendY - 11, p.color, lx + 16, kLegendY, p.label);
    lx += kBarWidth / static_cast<double>(kPhases.size());
  }
  return svg + "</svg><figcaption>Share of the step's wall time (perf/step_time) in each phase, as `ladle score` "
               "measured it.</figcaption></figure>\n";
}

}  // namespace

std::string render_rl_section(const Recipe& r) {
  if (!r.workload.rl) return "";
  const RlWorkload& rl = *r.workload.rl;
  std::string out = "<h2 id=\"rl\">RL workload</h2>\n<dl class=\"facts\">\n";
  const auto row = [&out](const std::string& label, const std::string& html) {
    out += "<dt>" + escape_html(label) + "</dt><dd>" + html + "</dd>\n";
  };
  row("Algorithm", escape_html(rl.algorithm));
  row("Mode", escape_html(mode_text(rl.mode)));
  row("Samples per rollout",
      escape_html(fmt::format("{} prompts x {} samples = {}, in {} optimizer step{}", rl.prompts_per_rollout,
                              rl.samples_per_prompt, rl.prompts_per_rollout * rl.samples_per_prompt,
                              rl.steps_per_rollout, rl.steps_per_rollout == 1 ? "" : "s")));
  const auto mean = [](const std::optional<double>& v) {
    return v ? fmt::format(", mean {}", util::format_grouped(*v, 0)) : std::string();
  };
  row("Prompt length", escape_html(fmt::format("at most {} tokens{}",
                                               util::format_grouped(static_cast<long long>(rl.prompt_max_tokens)),
                                               mean(rl.prompt_mean_tokens))));
  row("Response length", escape_html(fmt::format("at most {} tokens{}",
                                                 util::format_grouped(static_cast<long long>(rl.response_max_tokens)),
                                                 mean(rl.response_mean_tokens))));
  row("Rollout GPUs", escape_html(fmt::format("{} in engines of {} GPU{}", rl.rollout_gpus, rl.gpus_per_engine,
                                              rl.gpus_per_engine == 1 ? "" : "s")));
  out += "</dl>\n";
  if (!r.result || !r.result->rl) return out;
  const RlResult& m = *r.result->rl;
  out += "<h3 id=\"rl-phases\">Measured RL step</h3>\n<dl class=\"facts\">\n";
  row("Samples/s", escape_html(util::format_grouped(m.samples_per_s, 2)));
  row("Trained tokens/s per GPU", escape_html(util::format_grouped(m.trained_tokens_per_s_per_gpu, 2)));
  // 0 means no price was known when the run was scored (the schema says so).
  row("$ per 1M trained tokens", m.usd_per_million_trained_tokens > 0
                                     ? escape_html(fmt::format("{:.2f}", m.usd_per_million_trained_tokens))
                                     : std::string("\u2014"));
  row("Step time", escape_html(fmt::format("{:.3f} s", m.step_time_s)));
  out += "</dl>\n" + phase_bar(m.phase_split);
  out += "<div class=\"table-wrap\"><table id=\"rl-phase-table\"><thead><tr><th scope=\"col\">Phase</th>"
         "<th scope=\"col\" class=\"num\">Share of the step</th><th scope=\"col\" class=\"num\">Seconds</th>"
         "</tr></thead>\n<tbody>\n";
  for (const Phase& p : kPhases) {
    const double share = m.phase_split.*p.share;
    out += fmt::format("<tr data-phase=\"{}\"><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1f}</td>"
                       "</tr>\n",
                       p.key, p.label, percent(share), share * m.step_time_s);
  }
  return out + "</tbody>\n</table></div>\n";
}

std::string rl_index_mark(const Recipe& r) {
  if (!r.workload.rl) return "";
  return " <span class=\"tag rl\" title=\"RL recipe: " + escape_html(mode_text(r.workload.rl->mode)) + "\">RL " +
         escape_html(r.workload.rl->algorithm) + "</span>";
}

}  // namespace ladle::site
