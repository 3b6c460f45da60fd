#pragma once
// report_render.hpp: predictions, plans and calibration fits as text tables or JSON. Renderers only
// format; every number comes from the report values.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/plan/prediction.hpp"
#include "ladle/plan/scenario.hpp"
#include "ladle/plan/search.hpp"
#include "ladle/plan/time_attention.hpp"

namespace ladle::plan {

/// What a report is about, printed in its header.
struct ReportHeader {
  std::string model;
  double n_params = 0;  ///< the model's N, for the MFU line
  Cluster cluster;
  Workload workload;
  std::string calibration;  ///< Calibration::source
  /// The narrowest attention head below 128 and its priced share of the kernel's rate at 128
  /// (timing::narrowest_head_dim); head 0: none narrower, no line.
  timing::HeadDimPricing attention_heads;
  /// The measured row the model's sliding windows are priced by (timing::measured_window_pricing).
  std::optional<timing::WindowPricing> attention_window;
  /// Whether a full softmax-attention layer is priced by the length each call attends over
  /// (timing::attention_priced_by_length): the row, or a context-parallel rank's share of it.
  bool attention_by_length = false;
  /// The precision the GEMMs were priced at when the layout says more than the workload's
  /// ("nvfp4", "fp8 (mxfp8)"; plan::priced_precision); empty: the workload's precision.
  std::string precision;
  /// The engine whose launch arguments the JSON reports give each layout under `args` (set with
  /// `launch_args`), e.g. "megatron".
  std::string engine;
  /// The launch arguments of a layout for `engine`, as one shell line; unset: no `args` key.
  std::function<std::string(const Layout&)> launch_args;
  /// Arguments of the user's job ladle does not price (--args/--script); absent otherwise.
  std::optional<std::vector<std::string>> not_priced;
  /// What ladle filled in that a partial layout spec leaves out, one item each ("sp=on (...)");
  /// printed as `chose:` lines and as JSON `chosen` (left out when empty).
  std::vector<std::string> chosen;
  /// Text tables give each layout's full spec in the row (`--wide`) instead of its summary, with the
  /// spec below, so that a default report stays within 120 columns.
  bool wide = false;
  /// The model has experts; text reports of a dense model leave out the MoE knobs (EP, ETP, the
  /// dispatcher, ...), which do not apply to it.
  bool moe = true;
  /// Where the knobs and the workload came from (`sources:` lines; JSON `sources`, each value with
  /// its `source`); left out when empty.
  std::vector<ValueSource> sources;
  /// --fit-confidence: the confidence of the memory verdict (predict) and of what plan counts as
  /// fitting; unset: kDefaultFitConfidence for predict's verdict, and plan says its margin is fixed.
  std::optional<double> fit_confidence;
};

/// The header of a report on `scenario`: its model (name, N, whether it has experts), cluster,
/// workload and calibration. The caller adds the sources, engine, launch arguments and the rest.
ReportHeader report_header(const Scenario& scenario);

/// A prediction with its memory by part and stage and its step-time breakdown; `measured` > 0
/// adds the measured figure and the error.
std::string render_prediction(const Prediction& p, const ReportHeader& header, double measured = 0);
/// The same as JSON (one object, keys in a fixed order).
std::string prediction_json(const Prediction& p, const ReportHeader& header, double measured = 0);

/// The step time of `top` and of each of `compared` (--compare layouts), part by part side by side
/// with what each part adds: the parts that make a compared layout slower. Empty when none.
std::string render_comparison(const Prediction& top, const std::vector<Prediction>& compared, const ReportHeader& header);

/// A plan: counts, the top layouts with breakdowns, the best rejected ones and why, watched layouts.
std::string render_plan(const PlanReport& report, const ReportHeader& header, double memory_margin);
/// The same as JSON.
std::string plan_json(const PlanReport& report, const ReportHeader& header, double memory_margin);

/// One GPU count of a sweep.
struct SweepPoint {
  int64_t gpus = 0;
  Prediction best;
  bool frontier = false;  ///< no other point has more total tokens/s at a lower $ per 1M tokens
};
/// A sweep over GPU counts with the throughput / cost frontier marked.
std::string render_sweep(const std::vector<SweepPoint>& points, const ReportHeader& header);
/// The same as JSON.
std::string sweep_json(const std::vector<SweepPoint>& points, const ReportHeader& header);
/// Marks the frontier of `points` (total tokens/s against $ per 1M tokens).
void mark_frontier(std::vector<SweepPoint>& points);

/// A calibration fit: per recipe measured, fitted and leave-one-out; the constants.
std::string render_fit(const CalibrationFit& fit);
/// The same as JSON.
std::string fit_json(const CalibrationFit& fit);

}  // namespace ladle::plan
