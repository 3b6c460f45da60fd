#pragma once
// rl_score.hpp: an RL run's figures from its slime / miles log: samples/s, trained tokens/s per
// GPU, $ per 1M trained tokens, the step-time CV and the phase split, one rollout per step.
//
// The phase split divides each rollout's step time (perf/step_time, the trainer's wall time from
// the end of one rollout's training to the end of the next) into five parts that sum to it:
// log_prob = perf/log_probs_time + perf/ref_log_probs_time, train = perf/actor_train_time,
// weight_update = perf/update_weights_time, rollout = perf/rollout_time but at most what those
// three leave of the step (asynchronous generation overlaps training; only the part the trainer
// waits for is on the step's clock), other = what is left (offload and onload, data preparation).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ladle/recipe/recipe.hpp"
#include "ladle/runlog/run_log.hpp"
#include "ladle/verify/score.hpp"

namespace ladle::verify {

/// One run's figures, rollouts [window.first, window.last] as printed.
struct RlRunScore {
  std::string path;
  runlog::LogFormat format = runlog::LogFormat::slime;
  int64_t rollouts = 0;          ///< rollouts the log times (trainer perf lines)
  StepWindow window;             ///< rollout ids, inclusive
  int64_t window_rollouts = 0;
  int64_t window_samples = 0;
  double window_tokens = 0;      ///< samples x mean total length, summed over the window
  double window_time_s = 0;      ///< summed step times
  std::optional<std::string> first_timestamp;
  bool operator==(const RlRunScore&) const = default;
};

/// The result of `ladle score` of RL runs.
struct RlScoreReport {
  std::vector<RlRunScore> runs;
  ScoreInputs inputs;
  double samples_per_s = 0;
  double trained_tokens_per_s_per_gpu = 0;
  std::optional<double> usd_per_million_trained_tokens;
  double step_time_mean_s = 0;
  std::optional<double> step_time_cv_percent;  ///< 100 x sample SD (n - 1) / mean
  RlPhaseSplit phase_split;                    ///< summed phase times / summed step times
  /// 6 N x trained tokens/s per GPU / peak: the optimizer steps' FLOPs over the whole RL step
  /// (log-prob passes and generation not counted); absent without N or the GPU's peak.
  std::optional<double> mfu;
  std::optional<double> gpu_hours;  ///< GPUs x sum of the runs' first-to-last timestamp spans / 3600
  std::string tokens_source;
  std::vector<std::string> notes;
  bool operator==(const RlScoreReport&) const = default;
};

/// Whether a log is an RL run's: the rollout manager timed generation (perf/rollout_time) and the
/// trainer timed its steps (perf/step_time).
bool is_rl_log(const runlog::RunLog& log);

/// The default window over rollout ids: skip the first ceil(n / 4) of the n timed rollouts (the
/// first one's step includes start-up); throws Error(input) with fewer than two.
StepWindow default_rl_window(const runlog::RunLog& log);

/// Scores RL runs of `recipe` (which must have workload.rl). Throws Error(input) at the log's
/// line, naming the field, when a rollout in the window has no perf/step_time, or states a sample
/// count (train/global_batch_size summed over its steps) or a step count other than the recipe's
/// RL workload, or when the window is outside a run.
RlScoreReport score_rl_runs(const std::vector<runlog::RunLog>& runs, const Recipe& recipe,
                            const ScoreInputs& inputs, std::optional<StepWindow> window);

/// `result` with the RL figures written in (rounded: samples/s and tokens/s to 2 decimals, $ to 2,
/// phase fractions to 4, step time to 3, CV to 2, MFU to 4); tokens_per_s_per_gpu,
/// usd_per_million_tokens and mfu take the trained-token figures (mfu_note says so), GPU-hours the
/// logs' spans; every other field kept.
RecipeResult update_rl_result(const std::optional<RecipeResult>& result, const RlScoreReport& report);

}  // namespace ladle::verify
