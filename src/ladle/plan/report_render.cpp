#include "ladle/plan/report_render.hpp"

#include "ladle/plan/predictor.hpp"
#include "ladle/plan/report_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

#include "ladle/hw/catalog.hpp"
#include "ladle/hw/hw_facts.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/time_attention.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/util/rounding.hpp"
#include "ladle/util/table.hpp"
#include "ladle/util/text.hpp"

namespace ladle::plan {

namespace {

// Fixed decimals so that JSON output is byte-stable.
using util::round_to;

using Json = nlohmann::ordered_json;

std::string header_line(const ReportHeader& h) {
  return fmt::format("{} on {} x {} ({} {}), rows of {} tokens, global batch {}, {}", h.model, h.cluster.gpus,
                     h.cluster.gpu.name, h.cluster.instance.provider, h.cluster.instance.name,
                     util::format_grouped(static_cast<long long>(h.workload.row_tokens)), h.workload.global_batch,
                     h.precision.empty() ? std::string(to_string(h.workload.precision)) : h.precision) +
         (h.workload.rl.empty() ? std::string() : "\nworkload: " + h.workload.rl);
}

// The GEMM rate's stand-in where no MAMF of the GPU is published (issue 32): said, not silent.
std::string gemm_fallback_line(const ReportHeader& h) {
  const std::string fallback = hw::gemm_mamf_fallback(h.cluster.gpu.name);
  return fallback.empty() ? std::string() : fmt::format("GEMM fraction of {}: {}\n", h.cluster.gpu.name, fallback);
}


// "not priced: --lr, --seed" for a job given as its own arguments.
// Text reports stay within this many columns; `--wide` lifts it for the plan tables.
constexpr size_t kReportWidth = 120;

// A spec's "key=value" items: split at the commas that start another key (a pipeline layout
// string or a list value may hold commas of its own).
std::vector<std::string> spec_items(const std::string& spec) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= spec.size(); ++i) {
    if (i < spec.size() && spec[i] != ',') continue;
    if (i < spec.size()) {
      size_t j = i + 1;
      // A key is lower case, digits and underscores (a2a_overlap), starting with a letter.
      while (j < spec.size() && (std::islower(static_cast<unsigned char>(spec[j])) || spec[j] == '_' ||
                                 (j > i + 1 && std::isdigit(static_cast<unsigned char>(spec[j]))))) {
        ++j;
      }
      if (j == i + 1 || j >= spec.size() || spec[j] != '=') continue;  // a comma inside a value
    }
    out.push_back(spec.substr(start, i - start));
    start = i + 1;
  }
  return out;
}

// The spec on lines of at most kReportWidth columns, each after `indent`, broken after a comma.
std::string wrapped_spec(const std::string& spec, const std::string& indent) {
  std::string out;
  std::string line = indent;
  const std::vector<std::string> items = spec_items(spec);
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string item = items[i] + (i + 1 < items.size() ? "," : "");
    if (line.size() > indent.size() && line.size() + item.size() > kReportWidth) {
      out += line + "\n";
      line = indent;
    }
    line += item;
  }
  return out + line + "\n";
}

// Prose on lines of at most kReportWidth columns, broken at spaces; later lines after `indent`.
std::string wrapped_words(const std::string& text, const std::string& indent) {
  std::string out;
  std::string line;
  for (const std::string& word : util::split(text, ' ')) {
    if (!line.empty() && line.size() + 1 + word.size() > kReportWidth) {
      out += line + "\n";
      line = indent;
    } else if (!line.empty() && line != indent) {
      line += " ";
    }
    line += word;
  }
  return out + line + "\n";
}

// So are the attention rates taken from measurements in another shape: calls over another length
// than 8k (the row over the layout's CP; a plan's header speaks of the row and says CP shortens
// it), a head narrower than the kernels' reference, a sliding window measured on this GPU.
std::string attention_lines(const ReportHeader& h, int64_t cp) {
  std::string out;
  const double tokens = static_cast<double>(h.workload.row_tokens) / static_cast<double>(std::max<int64_t>(1, cp));
  if (h.attention_by_length && tokens != hw::kAttentionReferenceTokens) {
    const hw::AttentionLengthRatio r = hw::attention_length_ratio(h.cluster.gpu.name, tokens);
    const std::string rows =
        cp > 1 ? fmt::format(" (rows of {} over CP {})", util::format_grouped(static_cast<long long>(h.workload.row_tokens)), cp) : "";
    out += wrapped_words(fmt::format("attention: calls over {} tokens{} run at {:.2f} forward and {:.2f} backward of "
                                     "the rate at 8,192 (measured on {}, data/hw/kernels.yaml attention_length){}",
                                     util::format_grouped(static_cast<long long>(tokens)), rows, r.forward,
                                     r.backward, r.measured_on,
                                     cp > 0 ? "" : "; context parallelism shortens them to each rank's share"),
                         "  ");
  }
  if (const timing::HeadDimPricing& heads = h.attention_heads; heads.head_dim > 0) {
    out += wrapped_words(fmt::format("attention: heads of {:g} run at {:.2f} of the kernel's rate at 128 (measured on "
                                     "{}, data/hw/kernels.yaml head_dim_tflops)",
                                     heads.head_dim, heads.efficiency, heads.measured_on),
                         "  ");
  }
  if (const auto& w = h.attention_window) {
    out += wrapped_words(fmt::format("attention: sliding windows of {} at heads of {} run in BF16 at {:.2f} forward "
                                     "and {:.2f} backward of the causal rate at 128 (measured on {}, "
                                     "data/hw/kernels.yaml window_attention)",
                                     w->window, w->head_dim, w->forward, w->backward, w->measured_on),
                         "  ");
  }
  return out;
}

// Pipeline stages per memory table of a prediction.
constexpr size_t kStagesPerTable = 8;

// A knob only a MoE model has: one Megatron-LM spells with "moe" or "expert".
bool moe_only(std::string_view key) {
  for (const layout::Knob& knob : layout::kKnobs) {
    if (knob.key != key) continue;
    for (const layout::KnobArg& arg : knob.args) {
      if (arg.flag.find("moe") != std::string_view::npos || arg.flag.find("expert") != std::string_view::npos) return true;
    }
  }
  return false;
}

// The spec a report prints: a dense model's without its MoE knobs (they do not apply to it).
std::string shown_spec(const Layout& l, const ReportHeader& h) {
  const std::string spec = layout::format_layout_spec(l);
  if (h.moe) return spec;
  std::vector<std::string> kept;
  for (const std::string& item : spec_items(spec)) {
    if (!moe_only(item.substr(0, item.find('=')))) kept.push_back(item);
  }
  return util::join(kept, ",");
}

// The label a report prints: a dense model's without EP and ETP.
std::string shown_label(const Layout& l, const ReportHeader& h) {
  const std::string label = layout::layout_label(l);
  if (h.moe) return label;
  std::vector<std::string> kept;
  for (const std::string& word : util::split(label, ' ')) {
    if (!word.starts_with("EP") && !word.starts_with("ETP")) kept.push_back(word);
  }
  return util::join(kept, " ");
}

// One short summary per layout, all different: the label, and where two layouts share a label,
// the spec items that tell them apart (the label leaves out knobs such as the dispatcher).
std::vector<std::string> distinct_summaries(const std::vector<Layout>& layouts, const ReportHeader& h) {
  std::vector<std::string> labels;
  std::vector<std::vector<std::string>> items;
  for (const Layout& l : layouts) {
    labels.push_back(shown_label(l, h));
    items.push_back(spec_items(shown_spec(l, h)));
  }
  std::vector<std::string> out = labels;
  std::vector<std::string> values_only = labels;  // the same items without their keys
  // Whether spec item `a` (key=value) sets a knob that applies only under the knob item `b` sets.
  auto refines = [](const std::string& a, const std::string& b) {
    const layout::Knob* knob = layout::find_knob(a.substr(0, a.find('=')));
    return knob != nullptr && !knob->when.key.empty() && knob->when.key == b.substr(0, b.find('='));
  };
  for (size_t i = 0; i < layouts.size(); ++i) {
    std::vector<size_t> group;
    for (size_t j = 0; j < layouts.size(); ++j) {
      if (labels[j] == labels[i]) group.push_back(j);
    }
    if (group.size() < 2) continue;
    // The fewest of its items that tell it apart from each other layout with the same label,
    // picked greedily by how many of them each item tells apart, printed in spec order.
    auto lacks = [&](size_t j, const std::string& item) {
      return std::find(items[j].begin(), items[j].end(), item) == items[j].end();
    };
    std::vector<size_t> left;
    for (size_t j : group) {
      if (j != i) left.push_back(j);
    }
    std::vector<bool> chosen(items[i].size(), false);
    while (!left.empty()) {
      size_t best = items[i].size();
      size_t best_count = 0;
      for (size_t k = 0; k < items[i].size(); ++k) {
        if (chosen[k]) continue;
        const size_t count = static_cast<size_t>(
            std::count_if(left.begin(), left.end(), [&](size_t j) { return lacks(j, items[i][k]); }));
        // A tie goes to a refinement of the best item so far (fsdp_sharding=optim over
        // fsdp=megatron): it says more, and names the knob the layouts really differ in.
        if (count > best_count || (count > 0 && count == best_count && refines(items[i][k], items[i][best]))) {
          best = k;
          best_count = count;
        }
      }
      if (best_count == 0) break;
      chosen[best] = true;
      std::erase_if(left, [&](size_t j) { return lacks(j, items[i][best]); });
    }
    std::string extra;
    std::string values;
    for (size_t k = 0; k < items[i].size(); ++k) {
      if (!chosen[k]) continue;
      extra += " " + items[i][k];
      values += " " + items[i][k].substr(items[i][k].find('=') + 1);
    }
    out[i] = labels[i] + extra;
    values_only[i] = labels[i] + values;
  }
  // The table keeps to the report width: a long summary keeps its label and the end of what
  // tells it apart (the full spec is printed under each row), unless that makes two alike.
  constexpr size_t kSummaryWidth = 54;
  std::vector<std::string> shortened = out;
  // Three ways to shorten, tried in turn: the end, the start, both ends of what tells it apart;
  // then the same three on the items' values alone (two long items can share both ends).
  for (int attempt = 0; attempt < 6; ++attempt) {
    const int way = attempt % 3;
    const std::vector<std::string>& from = attempt < 3 ? out : values_only;
    std::vector<std::string> trial = shortened;
    for (size_t i = 0; i < out.size(); ++i) {
      const size_t keep =
          kSummaryWidth > labels[i].size() + 4 ? kSummaryWidth - labels[i].size() - 4 : 0;
      if (trial[i].size() <= kSummaryWidth || keep == 0) continue;
      if (from[i].size() <= kSummaryWidth) {
        trial[i] = from[i];
        continue;
      }
      const std::string extra = from[i].substr(labels[i].size() + 1);
      const std::string head = extra.substr(0, way == 1 ? keep : keep / 2);
      const std::string tail = extra.substr(extra.size() - (way == 0 ? keep : keep - keep / 2));
      trial[i] = labels[i] + (way == 0 ? " ..." + tail : way == 1 ? " " + head + "..." : " " + head + "..." + tail);
    }
    for (size_t i = 0; i < out.size(); ++i) {
      if (std::count(trial.begin(), trial.end(), trial[i]) == 1) shortened[i] = trial[i];
    }
  }
  return shortened;
}

std::string not_priced_line(const ReportHeader& h) {
  if (!h.not_priced) return {};
  if (h.not_priced->empty()) return "not priced: none (every argument is priced)\n";
  return fmt::format("not priced ({} argument{} ladle does not price): {}\n", h.not_priced->size(),
                     h.not_priced->size() == 1 ? "" : "s", util::join(*h.not_priced, ", "));
}

std::string chosen_lines(const ReportHeader& h) {
  std::string out;
  for (const std::string& item : h.chosen) out += "chose: " + item + "\n";
  // Where each value came from: the job's script line, an option, the recipe or a default.
  for (const ValueSource& v : h.sources) {
    out += v.value.empty() ? fmt::format("from: {}: {}\n", v.name, v.source)
                           : fmt::format("from: {} {}: {}\n", v.name, v.value, v.source);
  }
  return out;
}

std::string percent(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

// "5,900-7,350": the 80% throughput interval, whole tokens grouped by thousands.
std::string interval(const Prediction& p) {
  return util::format_grouped(static_cast<long long>(std::llround(p.tokens_per_s_low))) + "-" +
         util::format_grouped(static_cast<long long>(std::llround(p.tokens_per_s_high)));
}

// "; outside what was measured: GPU b200" or nothing.
std::string unmeasured_note(const Prediction& p) {
  if (p.unmeasured.empty()) return "";
  std::string out = "; outside what was measured: ";
  for (size_t i = 0; i < p.unmeasured.size(); ++i) out += (i ? ", " : "") + p.unmeasured[i];
  return out;
}

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

// The memory verdict at `confidence` from the calibrated spread: the margin the peak leaves at that
// confidence, the probability of fitting, and what binds (issue 32).
static std::string memory_verdict_line(const Prediction& p, double confidence) {
  if (!(p.memory_log_spread > 0)) return "";
  const double margin = memory_margin_gib(p, confidence);
  const int pct = static_cast<int>(std::lround(confidence * 100));
  const bool fits = fits_at(p, confidence);
  const std::string chance = fmt::format("probability of fitting {:.0f}%{}", 100 * p.fit_probability,
                                         fits ? "" : fmt::format(", refused at {}%", pct));
  if (p.binding_limit == "host memory") {
    return fmt::format("memory verdict: {}; host memory binds: {:.0f} GiB of offloaded optimizer states per node, "
                       "{:.0f} usable\n",
                       chance, p.host_memory_gib, p.host_capacity_gib);
  }
  if (margin >= 0) {
    return fmt::format("memory verdict: fits with {:.1f} GiB to spare at {}% ({}; {} binds)\n", margin, pct, chance,
                       p.binding_limit);
  }
  return fmt::format("memory verdict: {}; at {}% the peak of {} may be {:.1f} GiB over{}\n", chance, pct,
                     p.binding_limit.substr(p.binding_limit.find("stage")), -margin,
                     fits ? "; not refused, as running out is less likely than that" : "");
}

ReportHeader report_header(const Scenario& scenario) {
  ReportHeader h{scenario.model.name, scenario.costs.n_params, scenario.cluster, scenario.workload,
                 scenario.calibration.source};
  h.moe = scenario.model.num_experts > 0;
  h.attention_heads = timing::narrowest_head_dim(scenario.costs, scenario.workload, scenario.cluster.gpu.name);
  h.attention_window = timing::measured_window_pricing(scenario.costs, scenario.workload, scenario.cluster.gpu.name);
  h.attention_by_length = timing::attention_priced_by_length(scenario.costs, scenario.workload);
  return h;
}

std::string render_prediction(const Prediction& p, const ReportHeader& h, double measured) {
  std::string out = fmt::format("predict: {}\n", header_line(h));
  out += fmt::format("layout: {}\n", shown_label(p.layout, h));
  out += wrapped_spec("spec: " + shown_spec(p.layout, h), "");
  out += chosen_lines(h);
  out += fmt::format("calibration: {}\n", h.calibration);
  out += gemm_fallback_line(h);
  out += attention_lines(h, p.layout.cp);
  out += not_priced_line(h);
  out += "\n";
  util::Table summary;
  summary.header = {"figure", "value", "note"};
  summary.rows.push_back({"tokens/s per GPU", fmt::format("{:.2f} ({})", p.tokens_per_s_per_gpu, interval(p)),
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
  out += summary.render();
  out += wrapped_words(fmt::format("the interval holds 80% of the training set's runs under leave-one-source-out{}",
                                   unmeasured_note(p)),
                       "  ") +
         "\n";

  // The verdict is the point estimate's; the 80% interval says when it is close.
  const bool device_fits = p.memory_gib <= p.capacity_gib;
  const char* verdict = !p.fits ? "DOES NOT FIT" : "fits";
  std::string close;
  if (device_fits && p.memory_high_gib > p.capacity_gib) close = ", though the interval's upper end does not";
  if (!device_fits && p.memory_low_gib <= p.capacity_gib) close = ", though the interval's lower end fits";
  out += fmt::format("memory per GPU, GiB: worst stage {} of {} uses {:.1f} ({:.1f}-{:.1f}) of {:.1f}: {}{} ({} dominates)\n",
                     p.worst_stage, p.stages.size(), p.memory_gib, p.memory_low_gib, p.memory_high_gib, p.capacity_gib,
                     verdict, close, p.memory_dominant);
  if (p.host_memory_gib > 0) {
    out += fmt::format("host memory per node for offloaded optimizer states: {:.0f} of {:.0f} GiB usable\n",
                       p.host_memory_gib, p.host_capacity_gib);
  }
  out += memory_verdict_line(p, h.fit_confidence.value_or(kDefaultFitConfidence));
  // Stages side by side, a few at a time, so that a deep pipeline stays within the report width.
  for (size_t first = 0; first < p.stages.size(); first += kStagesPerTable) {
    const size_t last = std::min(p.stages.size(), first + kStagesPerTable);
    util::Table memory;
    memory.header = {"part"};
    std::vector<std::string> layers = {"layers"};
    for (size_t k = first; k < last; ++k) {
      memory.header.push_back(fmt::format("stage {}", p.stages[k].stage));
      layers.push_back(std::to_string(p.stages[k].layers));
    }
    memory.rows.push_back(layers);
    for (size_t i = 0; i < p.stages.front().parts.size(); ++i) {
      // A part no stage holds (no TP overlap, no CUDA graphs) is left out of the table; JSON keeps it.
      bool held = false;
      for (const StageMemory& s : p.stages) held = held || s.parts[i].value > 0;
      if (!held) continue;
      std::vector<std::string> row = {p.stages.front().parts[i].name};
      for (size_t k = first; k < last; ++k) row.push_back(fmt::format("{:.2f}", p.stages[k].parts[i].value));
      memory.rows.push_back(row);
    }
    std::vector<std::string> total = {"total"};
    for (size_t k = first; k < last; ++k) total.push_back(fmt::format("{:.2f}", p.stages[k].total_gib));
    memory.rows.push_back(total);
    out += memory.render() + "\n";
  }

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
  Json j = to_json(h);
  j["prediction"] = to_json(p, h);
  if (measured > 0) {
    j["measured_tokens_per_s_per_gpu"] = measured;
    j["error"] = round_to(p.tokens_per_s_per_gpu / measured - 1, 4);
  }
  return j.dump(2) + "\n";
}

// The catalog's measured recipes of the plan's model on its GPU type, beside the predictions: each
// recipe's measured tokens/s per GPU, what ladle predicts for its own layout and the gap, and how far
// the plan's top layout is predicted from that measurement (issue 35). Empty when there are none.
static std::string measured_recipe_lines(const PlanReport& r, const ReportHeader& h) {
  std::string out;
  for (const recipe::LoadedRecipe& loaded : recipe::load_embedded_catalog()) {
    const Recipe& rec = loaded.recipe;
    if (!rec.result || !(rec.result->tokens_per_s_per_gpu > 0)) continue;
    const std::optional<ModelSpec> model = model::find_model(rec.model);
    const std::optional<GpuSpec> gpu = hw::find_gpu(rec.gpu.type);
    if (!model || !gpu || model->name != h.model || gpu->name != h.cluster.gpu.name) continue;
    const double measured = rec.result->tokens_per_s_per_gpu;
    std::string own;
    try {
      const Measurement m = measurement_from_recipe(loaded);
      const Prediction p = predict(m.costs, m.model, m.layout, m.cluster, m.workload, default_calibration());
      own = fmt::format("; predicted {} for its own layout ({:+.1f}%)",
                        util::format_grouped(std::llround(p.tokens_per_s_per_gpu)),
                        100 * (p.tokens_per_s_per_gpu / measured - 1));
    } catch (const Error& e) {
      own = "; not predicted: " + e.message();
    }
    std::string top;
    if (!r.top.empty()) {
      top = fmt::format("; the top layout's {} is {:+.0f}% from it",
                        util::format_grouped(std::llround(r.top.front().tokens_per_s_per_gpu)),
                        100 * (r.top.front().tokens_per_s_per_gpu / measured - 1));
    }
    out += "  " + wrapped_words(fmt::format("{} ({} x {}, {}): measured {} tokens/s per GPU{}{}", loaded.path, rec.gpu.count,
                                     gpu->name, rec.layout.label, util::format_grouped(std::llround(measured)), own,
                                     top),
                         "    ");
  }
  return out.empty() ? out : "\nmeasured in the catalog (same model and GPU type):\n" + out;
}

// Why the top layout wins (issue 35): what binds it (its memory's worst stage and the largest part
// of its step time), what the runner-up gives up against it and in which parts, and the layouts
// whose predictions lie within each other's 80% intervals, a tie group rather than a ranking.
static std::string explanation_lines(const PlanReport& r) {
  if (r.top.empty()) return "";
  const Prediction& a = r.top.front();
  std::string out = "\nwhy the top layout:\n";
  size_t largest = 0;
  for (size_t i = 0; i < a.step_parts.size(); ++i) {
    if (a.step_parts[i].value > a.step_parts[largest].value) largest = i;
  }
  std::string time;
  if (!a.step_parts.empty() && a.step_time_s > 0) {
    time = fmt::format("; its step time is mostly {} ({:.2f} s, {:.0f}%)", a.step_parts[largest].name,
                       a.step_parts[largest].value, 100 * a.step_parts[largest].value / a.step_time_s);
  }
  out += "  " + wrapped_words(fmt::format("1 binds on {} ({:.1f} of {:.1f} GiB, {} dominates, probability of fitting "
                                          "{:.0f}%){}",
                                          a.binding_limit, a.memory_gib, a.capacity_gib, a.memory_dominant,
                                          100 * a.fit_probability, time),
                              "    ");
  if (r.top.size() > 1) {
    const Prediction& b = r.top[1];
    // The parts where the runner-up's step is longer, largest first (at most three).
    std::vector<std::pair<double, std::string>> slower;
    for (size_t i = 0; i < b.step_parts.size() && i < a.step_parts.size(); ++i) {
      const double d = b.step_parts[i].value - a.step_parts[i].value;
      if (d > 0.0005) slower.emplace_back(d, b.step_parts[i].name);
    }
    std::sort(slower.begin(), slower.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    std::string parts;
    for (size_t i = 0; i < slower.size() && i < 3; ++i) {
      parts += fmt::format("{}{} +{:.3f} s", i ? ", " : "", slower[i].second, slower[i].first);
    }
    out += "  " + wrapped_words(fmt::format("2 gives up {:.1f}% of tokens/s per GPU to 1{}{}",
                                            100 * (1 - b.tokens_per_s_per_gpu / a.tokens_per_s_per_gpu),
                                            parts.empty() ? "" : ": ", parts),
                                "    ");
  }
  // The tie group: the layouts after the top whose medians lie inside its interval and whose
  // intervals hold its median.
  size_t tied = 1;
  while (tied < r.top.size() && r.top[tied].tokens_per_s_per_gpu >= a.tokens_per_s_low &&
         r.top[tied].tokens_per_s_high >= a.tokens_per_s_per_gpu) {
    ++tied;
  }
  if (tied > 1) {
    out += "  " + wrapped_words(fmt::format("ranks 1-{} lie within each other's 80% intervals: a tie group, ordered "
                                            "by the median only, not a ranking",
                                            tied),
                                "    ");
  }
  return out;
}

std::string render_comparison(const Prediction& top, const std::vector<Prediction>& compared, const ReportHeader& h) {
  std::string out;
  for (const Prediction& c : compared) {
    out += fmt::format("\n{} against the top layout: {:.1f} tok/s/GPU against {:.1f} ({:+.1f}%); step time by part, s:\n",
                       shown_label(c.layout, h), c.tokens_per_s_per_gpu, top.tokens_per_s_per_gpu,
                       100 * (c.tokens_per_s_per_gpu / top.tokens_per_s_per_gpu - 1));
    util::Table table;
    table.header = {"part", "top", "compared", "difference"};
    for (size_t i = 0; i < c.step_parts.size() && i < top.step_parts.size(); ++i) {
      const double a = top.step_parts[i].value;
      const double b = c.step_parts[i].value;
      if (a < 0.0005 && b < 0.0005) continue;
      table.rows.push_back({c.step_parts[i].name, fmt::format("{:.3f}", a), fmt::format("{:.3f}", b),
                            fmt::format("{:+.3f}", b - a)});
    }
    table.rows.push_back({"step", fmt::format("{:.3f}", top.step_time_s), fmt::format("{:.3f}", c.step_time_s),
                          fmt::format("{:+.3f}", c.step_time_s - top.step_time_s)});
    out += table.render();
  }
  return out;
}

std::string render_plan(const PlanReport& r, const ReportHeader& h, double margin) {
  std::string out = fmt::format("plan: {}\n", header_line(h));
  out += fmt::format("calibration: {}\n", h.calibration);
  out += gemm_fallback_line(h);
  out += attention_lines(h, 0);
  out += chosen_lines(h);
  out += not_priced_line(h);
  out += wrapped_words(
      fmt::format("searched {} layouts: {} predicted one by one ({} valid, {} fit in {:.1f} GiB per GPU, {:.0f}% of "
                  "HBM kept free{}); bounded out: {} over memory, {} slower than the top",
                  util::format_grouped(static_cast<long long>(r.enumerated)),
                  util::format_grouped(static_cast<long long>(r.evaluated)),
                  util::format_grouped(static_cast<long long>(r.valid)),
                  util::format_grouped(static_cast<long long>(r.fitting)), r.usable_gib, 100 * margin,
                  h.fit_confidence ? fmt::format(" so that each fits with probability {:.0f}% or more",
                                                 100 * *h.fit_confidence)
                                   : std::string(),
                  util::format_grouped(static_cast<long long>(r.bounded_memory)),
                  util::format_grouped(static_cast<long long>(r.bounded_speed))),
      "  ");
  out += "\n";
  std::vector<Layout> layouts;
  for (const Prediction& p : r.top) layouts.push_back(p.layout);
  const std::vector<std::string> summaries = distinct_summaries(layouts, h);
  util::Table table;
  table.header = {"rank", "tok/s/GPU", "80% interval", "step s", "MFU", "$/1M tok", "mem GiB", "layout"};
  for (size_t i = 0; i < r.top.size(); ++i) {
    const Prediction& p = r.top[i];
    table.rows.push_back({std::to_string(i + 1), fmt::format("{:.1f}", p.tokens_per_s_per_gpu), interval(p),
                          fmt::format("{:.2f}", p.step_time_s), percent(p.mfu),
                          fmt::format("{:.2f}", p.usd_per_million_tokens), fmt::format("{:.1f}", p.memory_gib),
                          h.wide ? shown_spec(p.layout, h) : summaries[i]});
  }
  out += table.render();
  if (!r.top.empty()) {
    // What lies outside the measured runs for any of the layouts shown, each reason once.
    Prediction outside;
    for (const Prediction& p : r.top) {
      for (const std::string& why : p.unmeasured) {
        if (std::find(outside.unmeasured.begin(), outside.unmeasured.end(), why) == outside.unmeasured.end())
          outside.unmeasured.push_back(why);
      }
    }
    out += wrapped_words(fmt::format("intervals hold 80% of the training set's runs{}", unmeasured_note(outside)),
                         "  ");
  }
  if (r.rank == Rank::p10) out += "ranked by the interval's lower end, the 10th percentile (--rank p10)\n";
  out += "\n";
  for (size_t i = 0; i < r.top.size(); ++i) {
    const Prediction& p = r.top[i];
    out += fmt::format("{}. {}\n", i + 1, summaries[i]);
    out += h.wide ? "   spec: " + shown_spec(p.layout, h) + "\n" : wrapped_spec("spec: " + shown_spec(p.layout, h), "   ");
    out += fmt::format("   time: {}\n   memory: {} dominates", breakdown_line(p, 4), p.memory_dominant);
    const int64_t twins = i < r.top_same_speed.size() ? r.top_same_speed[i] : 0;
    if (twins > 0) out += fmt::format(" (+{} predicted as fast, with no less memory)", twins);
    out += "\n";
  }
  if (!r.best_rejected.empty()) {
    out += "\nfaster layouts that do not fit (closest first):\n";
    for (const Rejected& x : r.best_rejected) {
      out += fmt::format("  {:.1f} tok/s/GPU  {}\n", x.tokens_per_s_per_gpu, shown_label(x.layout, h));
      out += h.wide ? "    " + shown_spec(x.layout, h) + "\n" : wrapped_spec(shown_spec(x.layout, h), "    ");
      out += "    " + x.reason + "\n";
    }
  }
  for (const WatchResult& w : r.watched) {
    out += fmt::format("\nlayout {}: {}", shown_label(w.layout, h), w.status);
    if (w.rank > 0 && w.rank_exact) out += fmt::format(", {:.1f} tok/s/GPU, rank {}", w.tokens_per_s_per_gpu, w.rank);
    if (w.rank > 0 && !w.rank_exact) {
      out += fmt::format(", {:.1f} tok/s/GPU, rank beyond {} (that many fitting layouts or more are faster)",
                         w.tokens_per_s_per_gpu, w.rank - 1);
    }
    out += "\n";
    out += h.wide ? "  " + shown_spec(w.layout, h) + "\n" : wrapped_spec(shown_spec(w.layout, h), "  ");
  }
  out += explanation_lines(r);
  out += measured_recipe_lines(r, h);
  return out;
}

std::string plan_json(const PlanReport& r, const ReportHeader& h, double margin) {
  Json j = to_json(h);
  j["memory_margin"] = margin;
  if (h.fit_confidence) j["fit_confidence"] = *h.fit_confidence;
  j.update(to_json(r, h));
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
                          s.frontier ? "*" : "",
                          h.wide ? shown_spec(s.best.layout, h) : shown_label(s.best.layout, h)});
  }
  out += table.render();
  out += "frontier (*): no other GPU count gives more tokens/s for less per token\n";
  if (!h.wide) {
    out += "\nbest layout specs:\n";
    for (const SweepPoint& s : points) {
      out += wrapped_spec(fmt::format("{} GPUs: {}", s.gpus, shown_spec(s.best.layout, h)), "  ");
    }
  }
  return out;
}

std::string sweep_json(const std::vector<SweepPoint>& points, const ReportHeader& h) {
  Json j = to_json(h);
  j.erase("gpus");
  Json arr = Json::array();
  for (const SweepPoint& s : points) arr.push_back(to_json(s));
  j["sweep"] = arr;
  return j.dump(2) + "\n";
}

std::string render_fit(const CalibrationFit& fit) {
  util::Table table;
  // The source is a line above its first run (not a column), which keeps the table within the
  // report width; the runs of a source are listed together.
  table.header = {"run", "measured", "fitted", "error", "LOSO", "error", "mem GiB (measured)", "fits"};
  for (const FitRow& r : fit.rows) {
    table.rows.push_back({r.name, fmt::format("{:.2f}", r.measured), fmt::format("{:.2f}", r.in_sample),
                          fmt::format("{:+.1f}%", 100 * r.in_sample_error()),
                          fmt::format("{:.2f}", r.leave_one_source_out),
                          fmt::format("{:+.1f}%", 100 * r.leave_one_source_out_error()),
                          r.peak_memory_gib > 0 ? fmt::format("{:.1f} ({:.1f})", r.predicted_memory_gib,
                                                              r.peak_memory_gib)
                                                : fmt::format("{:.1f}", r.predicted_memory_gib),
                          r.fits ? "yes" : "no"});
  }
  std::string out = "calibration fit (tokens/s per GPU; LOSO: fitted leaving the run's source out)\n";
  {
    const std::string rendered = table.render();
    size_t line = 0;
    size_t start = 0;
    while (start < rendered.size()) {
      const size_t end = rendered.find('\n', start);
      const size_t stop = end == std::string::npos ? rendered.size() : end + 1;
      // Lines 0 and 1 are the header and its rule; line k + 2 is run k.
      if (line >= 2 && line - 2 < fit.rows.size()) {
        const size_t k = line - 2;
        if (k == 0 || fit.rows[k].source != fit.rows[k - 1].source) out += fit.rows[k].source + ":\n";
      }
      out.append(rendered, start, stop - start);
      start = stop;
      ++line;
    }
  }
  int64_t fitting = 0;
  for (const FitRow& r : fit.rows) fitting += r.fits ? 1 : 0;
  out += fmt::format("\nmedian absolute error: in-sample {:.1f}%", 100 * fit.in_sample_median_abs_error);
  if (fit.cross_validated) {
    out += fmt::format(", leave-one-out {:.1f}%, leave-one-source-out {:.1f}% (worst {:.1f}%)",
                       100 * fit.leave_one_out_median_abs_error, 100 * fit.leave_one_source_out_median_abs_error,
                       100 * fit.leave_one_source_out_worst_abs_error);
  }
  out += fmt::format("\n{} of {} runs predicted to fit in memory; 80% interval x/exp({:.3f}) covers {:.0f}% of runs "
                     "under leave-one-source-out\n\n",
                     fitting, fit.rows.size(), fit.calibration.interval_log_halfwidth, 100 * fit.interval_coverage);
  util::Table sources;
  sources.header = {"source", "runs", "median |error|", "worst |error|"};
  for (const SourceFit& s : fit.sources) {
    sources.rows.push_back({s.source, fmt::format("{}", s.runs), fmt::format("{:.1f}%", 100 * s.median_abs_error),
                            fmt::format("{:.1f}%", 100 * s.worst_abs_error)});
  }
  out += "leave-one-source-out error by source\n" + sources.render() + "\n";
  if (fit.memory_peaks > 0) {
    out += fmt::format("allocator slack fitted to {} measured peaks (median |error| {:.1f}%, spread {:.3f} in log) and {} "
                       "runs without one that ran, each under its GPU's memory\n\n",
                       fit.memory_peaks, 100 * fit.memory_median_abs_error, fit.memory_sigma, fit.memory_censored_runs);
  }
  util::Table constants;
  constants.header = {"constant", "value", "95% interval", "range", "unit", "kind"};
  for (const CalibrationConstant& k : calibration_constants(fit.calibration)) {
    std::string interval = "";
    std::string kind = k.fitted ? "fitted" : k.fitted_to_peaks ? "fitted to peaks" : "fixed";
    for (const FittedConstant& c : fit.constants) {
      if (c.name == k.name) interval = fmt::format("{:.4g}-{:.4g}", c.low, c.high);
    }
    for (const FittedConstant& c : fit.memory_constants) {
      if (c.name == k.name) interval = fmt::format("{:.4g}-{:.4g}", c.low, c.high);
    }
    constants.rows.push_back({k.name, fmt::format("{:.4g}", k.value), interval, fmt::format("{:.4g}-{:.4g}", k.min, k.max),
                              k.unit, kind});
  }
  return out + constants.render();
}

std::string fit_json(const CalibrationFit& fit) { return to_json(fit).dump(2) + "\n"; }

}  // namespace ladle::plan
