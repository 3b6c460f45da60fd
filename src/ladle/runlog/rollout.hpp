#pragma once
// rollout.hpp: Rollout, one RL rollout of a slime or miles run as its log prints it: the phase
// times of the trainer's perf line, the rollout manager's perf line and the trainer's rollout line,
// and the samples its training steps consumed.
//
// Where each field comes from (THUDM/slime, commit 624b824a898ab0ec1fcb4d373004c7f3852bf515; miles,
// radixark/miles commit 31f1ca961a94cb860cec3b2dea34ec332bfa8f76, prints the same keys from
// miles/ray/rollout/metrics.py and miles/utils/train_metric_utils.py):
// - slime/observability/rollout_metrics.py `log_rollout_data`: the rollout manager prints
//   `perf {rollout_id}: {...}` with "perf/rollout_time" (wall time of generating the rollout) and
//   "rollout/response_len/mean".
// - slime/observability/train_metric_utils.py `log_perf_data`: the trainer prints
//   `perf {rollout_id}: {...}` with one "perf/<timer>_time" per slime/observability/timer.py timer
//   that ran since the last perf line: "log_probs" and "ref_log_probs" (forward-only passes),
//   "actor_train" (the optimizer steps), "train" (all of the trainer's work on the rollout),
//   "train_wait" (the trainer's time between two "train" blocks: generation, weight update,
//   offload and onload), "update_weights" (the @timer on actor.update_weights, which runs after the
//   previous rollout's perf line, so it is counted in this rollout's line), and "perf/step_time" =
//   train_wait + train.
// - the same file, `log_rollout_data`: the trainer prints `rollout {rollout_id}: {...}` with
//   "rollout/total_lengths" and "rollout/response_lengths", each the mean over the rollout's samples.
// - slime/backends/megatron_utils/model.py `train`: one `step N: {...}` line per optimizer step,
//   N = rollout_id x steps_per_rollout + step_id, with "train/global_batch_size".

#include <cstdint>
#include <optional>

namespace ladle {

/// One rollout of an RL run. Every field is what the log printed (or summed from its step lines);
/// nothing is filled in from elsewhere.
struct Rollout {
  int64_t rollout = 0;  ///< rollout id as printed (0-based)
  int32_t line = 0;     ///< 1-based line of the first of its perf or rollout lines
  std::optional<double> rollout_time_s;        ///< perf/rollout_time: generating the rollout
  std::optional<double> log_probs_time_s;      ///< perf/log_probs_time: the policy's forward pass
  std::optional<double> ref_log_probs_time_s;  ///< perf/ref_log_probs_time: the reference's
  std::optional<double> actor_train_time_s;    ///< perf/actor_train_time: the optimizer steps
  std::optional<double> train_time_s;          ///< perf/train_time: all trainer work on the rollout
  std::optional<double> train_wait_time_s;     ///< perf/train_wait_time
  std::optional<double> update_weights_time_s; ///< perf/update_weights_time
  std::optional<double> step_time_s;           ///< perf/step_time (= train_wait + train)
  std::optional<double> response_length_mean;  ///< rollout/response_lengths (trainer's rollout line)
  std::optional<double> total_length_mean;     ///< rollout/total_lengths: prompt + response, mean
  std::optional<int64_t> samples;              ///< sum of train/global_batch_size of its step lines
  int64_t train_steps = 0;                     ///< step lines of this rollout

  bool operator==(const Rollout&) const = default;
};

}  // namespace ladle
