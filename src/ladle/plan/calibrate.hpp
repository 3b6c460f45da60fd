#pragma once
// calibrate.hpp: fits the calibration's few free constants to measured recipes, and reports each
// recipe's in-sample and leave-one-out error.

#include <string>
#include <vector>

#include "ladle/args/launch_args.hpp"
#include "ladle/layout/layout.hpp"
#include "ladle/model/model_spec.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/prediction.hpp"
#include "ladle/plan/scenario.hpp"
#include "ladle/recipe/recipe_io.hpp"

namespace ladle::plan {

/// One measured run: the scenario it ran (model, costs, cluster, workload; its calibration and
/// sources are not used), the layout, and its tokens/s per GPU (and peak memory when published).
struct Measurement : Scenario {
  std::string name;    ///< the run's id, the recipe's path or a label
  std::string source;  ///< who published it (leave-one-source-out groups by this); empty: own run
  Layout layout;       ///< resolved
  double measured_tokens_per_s_per_gpu = 0;
  double peak_memory_gib = 0;    ///< measured peak per GPU, GiB (0: not published)
  std::string peak_memory_kind;  ///< "max reserved", "max allocated", ...
  /// Published settings the layout does not carry (torch.compile, FSDP, async TP, ...): they
  /// move the measured figure and are part of the error the fit reports.
  std::vector<std::string> unmodelled;
  /// A recipe's stack.megatron_lm (its Megatron-LM fork and commit, e.g. "commit 1dcf0daf
  /// (megatron-core 0.16.0rc0)"); empty for other runs.
  std::string recipe_stack;
};

/// The measurement a recipe with a `result:` records. Throws Error(input) at the recipe's field
/// when it has no result, names an unknown model, GPU or instance, or its layout is invalid.
Measurement measurement_from_recipe(const recipe::LoadedRecipe& recipe);
/// The run a recipe describes, without its result (a planned recipe's): model, cluster, workload
/// and layout. Throws Error(input) as measurement_from_recipe does, but needs no `result:`.
Measurement run_from_recipe(const recipe::LoadedRecipe& recipe);

/// Whether a launch selects Transformer Engine's FlashAttention backend (--attention-backend flash).
bool selects_flash_attention_backend(const args::LaunchArgs& launch);

/// Predicted tokens/s per GPU of a measurement under `calibration`.
double predict_tokens_per_s(const Measurement& m, const Calibration& calibration);

/// Half-width (log space) of the 80% throughput interval `calibration` gives a measurement's
/// layout (interval_log_halfwidth in predictor.hpp).
double throughput_log_halfwidth(const Measurement& m, const Calibration& calibration);

/// One run's figures in a fit.
struct FitRow {
  std::string name;
  std::string source;
  std::string model;
  std::string gpu;  ///< the GPU's catalog name (h100, gb200, ...)
  int64_t gpus = 0;
  std::string layout;     ///< the layout spec with the workload's precision (",precision=fp8")
  std::vector<std::string> unmodelled;
  double measured = 0;
  double in_sample = 0;             ///< predicted with the constants fitted on every run
  double leave_one_out = 0;         ///< predicted with the constants fitted on the other runs
  double leave_one_source_out = 0;  ///< predicted with the constants fitted on the other sources' runs
  bool fits = false;                ///< predicted to fit in memory (every run of a set ran)
  /// The memory verdict as a distribution (Prediction::fit_probability), and whether the run is
  /// accepted at the default --fit-confidence (fits_at: refused only where running out is at
  /// least that likely).
  double fit_probability = 1;
  bool fits_at_default_confidence = true;
  double predicted_memory_gib = 0;  ///< worst stage, in-sample (what a measured peak measures)
  double peak_memory_gib = 0;       ///< measured, 0 when not published
  std::vector<Part> step_parts;     ///< in-sample step time by part, seconds (why a row is off)
  double in_sample_error() const { return in_sample / measured - 1; }
  double leave_one_out_error() const { return leave_one_out / measured - 1; }
  double leave_one_source_out_error() const { return leave_one_source_out / measured - 1; }
};

/// A fitted constant with its 95% interval (from the covariance) and its physical range.
struct FittedConstant {
  std::string name;
  double value = 0;
  double low = 0;   ///< interval
  double high = 0;
  double min = 0;   ///< physical range (the fit's bounds)
  double max = 0;
  std::string unit;
};

/// Leave-one-source-out error of one source's runs.
struct SourceFit {
  std::string source;
  int64_t runs = 0;
  double median_abs_error = 0;  ///< leave-one-source-out
  double worst_abs_error = 0;
};

/// A fitted calibration and how well it does.
struct CalibrationFit {
  Calibration calibration;
  std::vector<FitRow> rows;
  std::vector<FittedConstant> constants;
  std::vector<std::vector<double>> covariance;  ///< of the log constants, in `constants` order
  /// Memory constants fitted to the measured peaks (calibrate_memory.hpp), with their intervals.
  std::vector<FittedConstant> memory_constants;
  /// What the memory fit read: measured max-reserved peaks, and runs without one that ran (each
  /// bounding its peak by its GPU's memory); the fitted spread of log(predicted / measured peak)
  /// and the peaks' median |error| at the fit. Zero when no run has a peak.
  int64_t memory_peaks = 0;
  int64_t memory_censored_runs = 0;
  double memory_sigma = 0;
  double memory_median_abs_error = 0;
  std::vector<SourceFit> sources;
  double in_sample_median_abs_error = 0;
  double leave_one_out_median_abs_error = 0;
  double leave_one_source_out_median_abs_error = 0;
  double leave_one_source_out_worst_abs_error = 0;
  double interval_coverage = 0;  ///< rows whose measured value lies in the leave-one-source-out interval
  bool cross_validated = false;
};

/// Fits the constants marked `fitted` (calibration_constants) by bounded soft-L1 regression on
/// log(predicted / measured) with a weak pull towards `prior` (NLopt BOBYQA in log space, within
/// each constant's physical range), then refits leaving each run out and each source out (when
/// `cross_validate`), and sets the calibration's interval width from the leave-one-source-out
/// residuals. A fold whose held-out runs `prior` was fitted on starts from the built-in priors
/// (prior_fitted_on). Throws Error(usage) with fewer runs than fitted constants.
CalibrationFit fit_calibration(const std::vector<Measurement>& measurements, const Calibration& prior,
                               bool cross_validate = true);

/// Whether `prior` is a fit that saw the run `run` (its fitted_on, as `ladle calibrate --out`
/// writes it, names the run). fit_calibration's held-out folds start such runs' predictions from the
/// built-in priors, so that a refit from a previous fit reports leave-one-out and
/// leave-one-source-out errors as blind as a fit from the built-in priors.
bool prior_fitted_on(const Calibration& prior, const std::string& run);

/// The number of constants fit_calibration fits.
size_t fitted_constant_count();

}  // namespace ladle::plan
