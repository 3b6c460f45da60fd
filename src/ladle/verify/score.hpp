#pragma once
// score.hpp: a run's result figures from its logs: tokens/s per GPU over a window, step-time CV,
// MFU, $ per 1M tokens, GPU-hours.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ladle/recipe/recipe.hpp"
#include "ladle/runlog/run_log.hpp"

namespace ladle::verify {

/// Steps [first, last] as the log prints them, inclusive.
struct StepWindow {
  int64_t first = 0;
  int64_t last = 0;
  bool operator==(const StepWindow&) const = default;
};

/// What scoring needs from outside the log. Built from a recipe by score_inputs_from_recipe.
struct ScoreInputs {
  int64_t gpus = 0;          ///< GPUs in the run
  int64_t row_tokens = 0;    ///< tokens per row (fixed-length rows)
  int64_t global_batch = 0;  ///< rows per optimizer step
  std::optional<int64_t> active_params;   ///< N for MFU (models/README convention)
  std::string active_params_source;       ///< where N came from (the recipe's result, or the model)
  std::optional<double> peak_tflops;      ///< dense BF16 peak per GPU, TFLOP/s
  std::optional<double> usd_per_gpu_hour;
  std::string gpu_name;                   ///< for messages
  std::string price_source;               ///< "--price" or the instance named in the recipe
};

/// The figures of one run (one log).
struct RunScore {
  std::string path;
  runlog::LogFormat format = runlog::LogFormat::megatron;
  int64_t steps_per_run = 0;       ///< last step - first step + the first record's iterations
  StepWindow window;
  int64_t window_records = 0;      ///< records inside the window
  int64_t window_iterations = 0;   ///< optimizer steps inside the window
  int64_t window_tokens = 0;
  double window_time_s = 0;        ///< sum of step time x iterations over the window
  std::optional<double> span_s;    ///< first to last timestamp of the log
  std::optional<std::string> first_timestamp;
  bool operator==(const RunScore&) const = default;
};

/// The result of `ladle score`.
struct ScoreReport {
  std::vector<RunScore> runs;
  ScoreInputs inputs;
  int64_t window_tokens = 0;        ///< all runs together
  double window_time_s = 0;         ///< all runs together
  double tokens_per_s_per_gpu = 0;  ///< window tokens / window time / GPUs
  double step_time_mean_s = 0;      ///< mean of the window records' step times
  /// 100 x sample standard deviation (n - 1) / mean of the window records' step times.
  std::optional<double> step_time_cv_percent;
  std::optional<double> mfu;                     ///< 6 N tokens/s per GPU / peak
  std::optional<double> usd_per_million_tokens;  ///< price / (tokens/s per GPU x 3600) x 1e6
  std::optional<double> gpu_hours;               ///< GPUs x sum of the runs' spans / 3600
  /// The largest max-reserved figure of the logs' memory lines over every rank and run, GiB
  /// (Megatron-LM / Megatron-Bridge report_memory); absent when no log prints one.
  std::optional<double> peak_memory_gib;
  std::string tokens_source;  ///< how window tokens were counted
  std::vector<std::string> notes;
  bool operator==(const ScoreReport&) const = default;
};

/// The default window: skip the first ceil(n / 4) of the n records as warm-up and keep the rest
/// through the last record. It reproduces the seeds (steps 4-13 of 14, 5-19 of 20). Throws
/// Error(input) when the log has fewer than two records.
StepWindow default_window(const runlog::RunLog& log);

/// Parses "A:B" (two whole numbers, A <= B); throws Error(usage).
StepWindow parse_window(std::string_view text);

/// Reads GPUs, rows, N, the GPU's peak and the instance price from the recipe and the embedded
/// hardware catalog; `price` overrides the catalog price. N is the recipe's result.active_params,
/// else the N of the recipe's model in the model catalog (a planned recipe has no result yet), else
/// the N the planner wrote in predicted.active_params (a model given as a config.json path); the
/// peak is the catalog GPU's, else predicted.peak_tflops. Throws Error(input) when the recipe lacks
/// what scoring needs (GPU count, row tokens, global batch).
ScoreInputs score_inputs_from_recipe(const Recipe& recipe, const std::string& recipe_path,
                                     std::optional<double> price);

/// Scores one or more runs of the same recipe with the same window rule (`window` when given,
/// else default_window per run). Throws Error(input) when a window is outside a run, a record in
/// it is missing or has no (or a non-finite, or non-positive) step time, a loss anywhere is not
/// finite, or a record's rows disagree with the recipe's global batch.
ScoreReport score_runs(const std::vector<runlog::RunLog>& runs, const ScoreInputs& inputs,
                       std::optional<StepWindow> window);

/// `result` with the report's figures written in (rounded as the seeds print them: tokens/s and
/// $ to 2 decimals, CV to 2, MFU to 4, GPU-hours to 3 significant digits); every other field kept.
/// A recipe without a result (a planned one) gets the N the report used, with its source.
RecipeResult update_result(const std::optional<RecipeResult>& result, const ScoreReport& report);

}  // namespace ladle::verify
