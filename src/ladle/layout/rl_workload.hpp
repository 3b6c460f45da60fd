#pragma once
// rl_workload.hpp: the training workload of an RL job of slime or miles, read from its rollout
// arguments as slime reads them (THUDM/slime slime/utils/arguments.py at 624b824a; miles'
// miles/utils/arguments.py at 31f1ca96 has the same rule):
// - rows per optimizer step: --global-batch-size; with --num-steps-per-rollout N it is
//   rollout-batch-size x n-samples-per-prompt // N (slime asserts the two agree when both are
//   given);
// - optimizer steps per rollout: rollout-batch-size x n-samples-per-prompt // rows per step (the
//   ratio slime's train_iters uses: slime/backends/megatron_utils/model.py);
// - tokens per row: at most --rollout-max-prompt-len + --rollout-max-response-len (a sample is its
//   prompt and its response; dynamic batching packs them up to --max-tokens-per-gpu a microbatch).

#include <cstdint>
#include <optional>
#include <string>

#include "ladle/args/launch_args.hpp"

namespace ladle::layout {

/// slime's and miles' rollout arguments as the job gives them (0: not given). They set the
/// workload, not the layout: a job ladle writes carries them as the job wrote them.
struct RlArgs {
  int64_t rollout_batch = 0;       ///< --rollout-batch-size: prompts per rollout
  int64_t samples_per_prompt = 1;  ///< --n-samples-per-prompt (slime's default 1)
  int64_t steps_per_rollout = 0;   ///< --num-steps-per-rollout
  int64_t max_prompt_len = 0;      ///< --rollout-max-prompt-len
  int64_t max_response_len = 0;    ///< --rollout-max-response-len
  bool operator==(const RlArgs&) const = default;
};

/// Reads `arg` into `rl` when it is one of the rollout arguments above (true), else false.
/// Throws Error(input) at `file`:line:col for a value that is not a positive integer.
bool read_rl_arg(RlArgs& rl, const args::LaunchArg& arg, const std::string& file);

/// An RL job's workload and where each figure came from.
struct RlWorkload {
  int64_t samples_per_rollout = 0;  ///< rollout_batch x samples_per_prompt
  int64_t rows_per_step = 0;        ///< 0: neither --global-batch-size nor --num-steps-per-rollout given
  int64_t steps_per_rollout = 0;    ///< 0 when rows_per_step is
  int64_t row_tokens = 0;           ///< prompt + response limits (0: not both given)
  std::string rows_from;            ///< "32 prompts x 8 samples / 1 step (--num-steps-per-rollout)"
  std::string tokens_from;          ///< "prompt 1024 + response 8192" or why not
  bool operator==(const RlWorkload&) const = default;
};

/// The workload of the rollout arguments `args`, with `global_batch` (--global-batch-size, if
/// given); nullopt when no --rollout-batch-size is set. Throws Error(input) at `where` (the
/// argument's file) when --global-batch-size contradicts --num-steps-per-rollout, as slime's
/// assertion does, or when a figure passes ladle's limits (util/limits.hpp).
std::optional<RlWorkload> rl_workload(const RlArgs& args, std::optional<int64_t> global_batch,
                                      const std::string& where);

/// One line: "RL: 256 rows per optimizer step (32 prompts x 8 samples / 1 step per rollout), 1
/// optimizer step per rollout, rows of up to 9216 tokens (prompt 1024 + response 8192)".
std::string format_rl_workload(const RlWorkload& rl);

}  // namespace ladle::layout
