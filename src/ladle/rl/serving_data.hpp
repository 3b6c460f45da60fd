#pragma once
// serving_data.hpp: the published inference throughput measurements the rollout model is
// calibrated on (data/inference/serving.yaml) and the fit of its constants (data/inference/fit.yaml).

#include <string>
#include <string_view>
#include <vector>

#include "ladle/rl/rollout.hpp"

namespace ladle::rl {

/// One published measurement: a model served on one engine layout at a stated workload.
struct ServingMeasurement {
  std::string id;
  std::string from;    ///< the id of its entry in `sources`
  std::string source;  ///< that entry's text (title and URL or repo/path/commit)
  std::string model;   ///< catalog model name
  std::string gpu;     ///< catalog GPU name
  std::string engine;  ///< engine and version as published
  EngineLayout layout;
  ServingPoint point;
  double measured = 0;  ///< output tokens per second of one engine
  int line = 0;         ///< line of the row in its file
};

/// Parses a measurement file in the format of data/inference/serving.yaml; throws Error(input)
/// "file:line:col: error: rows[i].field: what was expected" for a missing or bad field.
std::vector<ServingMeasurement> parse_serving_measurements(std::string_view yaml, const std::string& file);
/// The embedded data/inference/serving.yaml.
const std::vector<ServingMeasurement>& serving_measurements();

/// A fit's view of one row.
struct ServingFitRow {
  const ServingMeasurement* row = nullptr;
  double fitted = 0;    ///< predicted with the constants fitted on every row
  double held_out = 0;  ///< predicted with the constants fitted without the row's source
  double lo = 0;        ///< the held-out prediction's 80% interval
  double hi = 0;
};

struct ServingFit {
  ServingConstants constants;          ///< fitted on every row, interval from held-out residuals
  double hbm_fraction_lo = 0;          ///< range of the constant over the leave-one-source-out fits
  double hbm_fraction_hi = 0;
  double step_overhead_lo = 0;
  double step_overhead_hi = 0;
  double layer_overhead_lo = 0;
  double layer_overhead_hi = 0;
  std::vector<ServingFitRow> rows;
  double median_abs_error_fitted = 0;  ///< median |predicted / measured - 1|, all rows in the fit
  double median_abs_error_held_out = 0;///< the same, each source predicted by the fit without it
  std::vector<std::string> sources;    ///< distinct sources, in file order
};

/// Constants fitted (NLopt BOBYQA, bounded) on `rows` leaving out those from `exclude_from`
/// (empty: none); each source weighs the same. The interval fields stay 0.
ServingConstants fit_constants(const std::vector<ServingMeasurement>& rows, std::string_view exclude_from = {});
/// The full fit: constants on every row, leave-one-source-out predictions and the interval.
ServingFit fit_serving(const std::vector<ServingMeasurement>& rows);
/// data/inference/fit.yaml's text for a fit.
std::string fit_yaml(const ServingFit& fit);
/// Parses a fit file in the format of data/inference/fit.yaml.
ServingConstants parse_fit(std::string_view yaml, const std::string& file);

/// estimate_serving of one measurement's setup, per engine.
ServingEstimate predict(const ServingMeasurement& row, const ServingConstants& constants);

}  // namespace ladle::rl
