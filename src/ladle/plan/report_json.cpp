// report_json.cpp: the JSON form of the planner's reports (ReportHeader, Layout, Prediction,
// PlanReport, SweepPoint, CalibrationFit and their parts).
#include "ladle/plan/report_json.hpp"

#include <cctype>
#include <string>

#include "ladle/hw/hw_facts.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/util/rounding.hpp"
#include "ladle/util/text.hpp"

namespace ladle::plan {
namespace {

// Fixed decimals so that JSON output is byte-stable.
using util::round_to;

using Json = nlohmann::ordered_json;

// A part's name as a JSON key: "EP all-to-all" -> "ep_all_to_all", "optimizer (GPU)" -> "optimizer_gpu".
std::string snake_key(const std::string& name) {
  std::string out;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

}  // namespace

Json to_json(const ReportHeader& h) {
  Json j;
  j["model"] = h.model;
  j["gpu"] = h.cluster.gpu.name;
  j["gpus"] = h.cluster.gpus;
  j["instance"] = h.cluster.instance.name;
  j["row_tokens"] = h.workload.row_tokens;
  j["global_batch"] = h.workload.global_batch;
  j["precision"] = h.precision.empty() ? std::string(to_string(h.workload.precision)) : h.precision;
  if (!h.workload.rl.empty()) j["workload"] = h.workload.rl;
  j["calibration"] = h.calibration;
  if (const std::string f = hw::gemm_mamf_fallback(h.cluster.gpu.name); !f.empty()) j["gemm_fraction_fallback"] = f;
  if (const timing::HeadDimPricing& heads = h.attention_heads; heads.head_dim > 0) {
    j["attention_head_dim"] = {{"head_dim", heads.head_dim},
                               {"rate_over_head_dim_128", util::round_to(heads.efficiency, 3)},
                               {"measured_on", heads.measured_on}};
  }
  if (const auto& w = h.attention_window) {
    j["attention_window"] = {{"window", w->window},
                             {"head_dim", w->head_dim},
                             {"forward_over_causal", util::round_to(w->forward, 3)},
                             {"backward_over_causal", util::round_to(w->backward, 3)},
                             {"measured_on", w->measured_on}};
  }
  if (const double row = static_cast<double>(h.workload.row_tokens);
      h.attention_by_length && row != hw::kAttentionReferenceTokens) {
    const hw::AttentionLengthRatio r = hw::attention_length_ratio(h.cluster.gpu.name, row);
    j["attention_length"] = {{"row_tokens", h.workload.row_tokens},
                             {"forward_over_8192", util::round_to(r.forward, 3)},
                             {"backward_over_8192", util::round_to(r.backward, 3)},
                             {"measured_on", r.measured_on}};
  }
  if (h.not_priced) j["not_priced"] = *h.not_priced;
  if (!h.chosen.empty()) j["chosen"] = h.chosen;
  if (!h.sources.empty()) {
    Json sources = Json::array();
    for (const ValueSource& v : h.sources) sources.push_back(Json{{"name", v.name}, {"value", v.value}, {"source", v.source}});
    j["sources"] = std::move(sources);
  }
  return j;
}

Json parts_json(const std::vector<Part>& parts, int decimals) {
  Json j = Json::object();
  for (const Part& p : parts) j[snake_key(p.name)] = round_to(p.value, decimals);
  return j;
}

// A layout as JSON: its spec, its label, and, with typed values, the knobs the spec always writes
// (full recompute's method and layers with it) and every other one away from its default.
Json to_json(const Layout& l) {
  Json j;
  j["spec"] = layout::format_layout_spec(l);
  j["label"] = layout::layout_label(l);
  for (const layout::Knob& knob : layout::kKnobs) {
    const bool shown = knob.spec == layout::Written::folded ? layout::knob_applies(knob, l)
                                                             : knob.spec == layout::Written::always ||
                                                                   !layout::knob_is_default(knob, l);
    if (!shown) continue;
    switch (knob.kind) {
      case layout::KnobKind::integer: j[knob.key] = knob.get(l); break;
      case layout::KnobKind::flag: j[knob.key] = knob.get(l) != 0; break;
      case layout::KnobKind::real: j[knob.key] = round_to(knob.get_real(l), 3); break;
      case layout::KnobKind::choice:
      case layout::KnobKind::text: j[knob.key] = layout::knob_text(knob, l); break;
      case layout::KnobKind::set: {
        Json names = Json::array();
        for (const std::string& name : util::split(layout::knob_text(knob, l), '+')) {
          if (!name.empty()) names.push_back(name);
        }
        j[knob.key] = names;
        break;
      }
    }
  }
  return j;
}

Json to_json(const StageMemory& s) {
  Json sj;
  sj["stage"] = s.stage;
  sj["layers"] = s.layers;
  sj["total_gib"] = round_to(s.total_gib, 2);
  sj["parts_gib"] = parts_json(s.parts, 2);
  return sj;
}

Json to_json(const Prediction& p, const ReportHeader& h) {
  Json j;
  j["layout"] = to_json(p.layout);
  if (h.launch_args) {
    j["engine"] = h.engine;
    // A layout the engine does not run (schedule=dualpipe; a Bridge-only knob for Megatron-LM) has
    // no arguments: null, and why.
    const uint8_t engines = layout::engine_mask(layout::parse_engine(h.engine));
    if (const std::optional<std::string_view> refusal = layout::engine_refusal(p.layout, engines)) {
      j["args"] = nullptr;
      j["args_refused"] = std::string(*refusal);
    } else {
      j["args"] = h.launch_args(p.layout);
    }
  }
  j["label"] = layout::layout_label(p.layout);
  j["tokens_per_s_per_gpu"] = round_to(p.tokens_per_s_per_gpu, 2);
  j["tokens_per_s_per_gpu_interval"] = Json::array({round_to(p.tokens_per_s_low, 2), round_to(p.tokens_per_s_high, 2)});
  j["outside_measured"] = p.unmeasured;
  j["step_time_s"] = round_to(p.step_time_s, 3);
  j["mfu"] = round_to(p.mfu, 4);
  j["usd_per_million_tokens"] = round_to(p.usd_per_million_tokens, 2);
  j["microbatches"] = p.microbatches;
  j["memory_gib"] = round_to(p.memory_gib, 2);
  j["memory_gib_interval"] = Json::array({round_to(p.memory_low_gib, 2), round_to(p.memory_high_gib, 2)});
  j["capacity_gib"] = round_to(p.capacity_gib, 2);
  j["fits"] = p.fits;
  j["worst_stage"] = p.worst_stage;
  j["memory_dominant"] = p.memory_dominant;
  j["host_memory_gib"] = round_to(p.host_memory_gib, 1);
  j["host_capacity_gib"] = round_to(p.host_capacity_gib, 1);
  Json stages = Json::array();
  for (const StageMemory& s : p.stages) stages.push_back(to_json(s));
  j["memory_stages"] = stages;
  j["time_dominant"] = p.time_dominant;
  j["step_time_parts_s"] = parts_json(p.step_parts, 3);
  return j;
}

Json to_json(const Rejected& x) {
  Json xj;
  xj["layout"] = to_json(x.layout);
  xj["tokens_per_s_per_gpu"] = round_to(x.tokens_per_s_per_gpu, 2);
  xj["reason"] = x.reason;
  return xj;
}

Json to_json(const WatchResult& w) {
  Json wj;
  wj["layout"] = to_json(w.layout);
  wj["status"] = w.status;
  wj["enumerated"] = w.enumerated;
  wj["rank"] = w.rank;
  wj["rank_exact"] = w.rank_exact;
  wj["tokens_per_s_per_gpu"] = round_to(w.tokens_per_s_per_gpu, 2);
  return wj;
}

Json to_json(const PlanReport& r, const ReportHeader& h) {
  Json j;
  j["usable_gib"] = round_to(r.usable_gib, 2);
  j["enumerated"] = r.enumerated;
  j["evaluated"] = r.evaluated;
  j["valid"] = r.valid;
  j["fitting"] = r.fitting;
  j["rank"] = to_string(r.rank);
  j["bounded_memory"] = r.bounded_memory;
  j["bounded_speed"] = r.bounded_speed;
  Json top = Json::array();
  for (size_t i = 0; i < r.top.size(); ++i) {
    Json entry = to_json(r.top[i], h);
    entry["same_speed_layouts"] = i < r.top_same_speed.size() ? r.top_same_speed[i] : 0;
    top.push_back(entry);
  }
  j["top"] = top;
  Json rejected = Json::array();
  for (const Rejected& x : r.best_rejected) rejected.push_back(to_json(x));
  j["best_rejected"] = rejected;
  Json watched = Json::array();
  for (const WatchResult& w : r.watched) watched.push_back(to_json(w));
  j["watched"] = watched;
  return j;
}

Json to_json(const SweepPoint& s) {
  Json sj;
  sj["gpus"] = s.gpus;
  sj["frontier"] = s.frontier;
  sj["best"] = to_json(s.best, ReportHeader{});  // args depend on the GPU count: see plan --gpus N
  return sj;
}

Json to_json(const FitRow& r) {
  Json rj;
  rj["id"] = r.name;
  rj["source"] = r.source;
  rj["model"] = r.model;
  rj["gpu"] = r.gpu;
  rj["gpus"] = r.gpus;
  rj["layout"] = Json{{"spec", r.layout}};  // an object, as every layout in JSON is
  rj["unmodelled"] = r.unmodelled;
  rj["measured"] = r.measured;
  rj["predicted"] = round_to(r.in_sample, 2);
  rj["predicted_leave_one_out"] = round_to(r.leave_one_out, 2);
  rj["predicted_leave_one_source_out"] = round_to(r.leave_one_source_out, 2);
  rj["fits"] = r.fits;
  rj["fit_probability"] = round_to(r.fit_probability, 4);
  rj["fits_at_default_confidence"] = r.fits_at_default_confidence;
  rj["predicted_memory_gib"] = round_to(r.predicted_memory_gib, 2);
  if (r.peak_memory_gib > 0) rj["measured_memory_gib"] = round_to(r.peak_memory_gib, 2);
  rj["step_parts_s"] = parts_json(r.step_parts, 4);  // in-sample: where the predicted step goes
  return rj;
}

Json to_json(const SourceFit& s) {
  return Json{{"source", s.source},
              {"runs", s.runs},
              {"median_abs_error_leave_one_source_out", round_to(s.median_abs_error, 4)},
              {"worst_abs_error_leave_one_source_out", round_to(s.worst_abs_error, 4)}};
}

Json to_json(const CalibrationFit& fit) {
  Json j;
  Json rows = Json::array();
  for (const FitRow& r : fit.rows) rows.push_back(to_json(r));
  j["rows"] = rows;
  Json sources = Json::array();
  for (const SourceFit& s : fit.sources) sources.push_back(to_json(s));
  j["sources"] = sources;
  j["summary"] = Json{{"median_abs_error_in_sample", round_to(fit.in_sample_median_abs_error, 4)},
                      {"median_abs_error_leave_one_out", round_to(fit.leave_one_out_median_abs_error, 4)},
                      {"median_abs_error_leave_one_source_out", round_to(fit.leave_one_source_out_median_abs_error, 4)},
                      {"worst_abs_error_leave_one_source_out", round_to(fit.leave_one_source_out_worst_abs_error, 4)},
                      {"interval_log_halfwidth", round_to(fit.calibration.interval_log_halfwidth, 4)},
                      {"interval_coverage_leave_one_source_out", round_to(fit.interval_coverage, 4)}};
  Json constants = Json::object();
  for (const CalibrationConstant& k : calibration_constants(fit.calibration)) {
    Json kj;
    kj["value"] = k.value;
    kj["fitted"] = k.fitted;
    if (k.fitted_to_peaks) kj["fitted_to"] = "peak memory";
    kj["unit"] = k.unit;
    kj["range"] = Json::array({k.min, k.max});
    for (const FittedConstant& c : fit.constants) {
      if (c.name == k.name) kj["interval"] = Json::array({c.low, c.high});
    }
    for (const FittedConstant& c : fit.memory_constants) {
      if (c.name == k.name) kj["interval"] = Json::array({c.low, c.high});
    }
    constants[k.name] = kj;
  }
  j["constants"] = constants;
  Json cov = Json::array();
  for (const std::vector<double>& row : fit.covariance) cov.push_back(row);
  j["covariance_log"] = Json{{"constants", Json::array()}, {"matrix", cov}};
  if (fit.memory_peaks > 0) {
    j["memory_fit"] = Json{{"peaks", fit.memory_peaks},
                           {"runs_that_ran", fit.memory_censored_runs},
                           {"log_spread", round_to(fit.memory_sigma, 4)},
                           {"peaks_median_abs_error", round_to(fit.memory_median_abs_error, 4)}};
  }
  for (const FittedConstant& c : fit.constants) j["covariance_log"]["constants"].push_back(c.name);
  return j;
}

nlohmann::ordered_json no_fit_json(std::string_view model, std::string_view gpu, int64_t gpus,
                                   std::string_view reason) {
  nlohmann::ordered_json j;
  j["model"] = model;
  j["gpu"] = gpu;
  j["gpus"] = gpus;
  j["fits"] = false;
  j["reason"] = reason;
  return j;
}

}  // namespace ladle::plan
