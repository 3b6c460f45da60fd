#pragma once
// job_args.hpp: a user's own training job, given as Megatron-LM / slime / miles arguments (a line
// of arguments, or a launch script), read into what the planner prices: the layout knobs
// (knobs.hpp), the workload (row length, global batch, precision), the model arguments (checked
// against the model the user names), and every other argument, listed as not priced.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/args/launch_args.hpp"
#include "ladle/layout/layout.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/layout/rl_workload.hpp"
#include "ladle/model/model_spec.hpp"

namespace ladle::layout {

/// What one kind of non-knob argument is to the planner.
enum class ArgClass : uint8_t {
  workload,  ///< sets the row length, batch or precision (priced)
  model,   ///< describes the architecture, which --model gives (checked where ladle has the figure)
  priced,  ///< a switch whose effect the models assume (flash attention, fused kernels)
};

/// One non-knob argument ladle knows.
struct KnownArg {
  std::string_view flag;
  ArgClass kind = ArgClass::model;
  /// For model arguments: the figure of ModelSpec it must equal (nullptr: not checked).
  int64_t (*model_value)(const ModelSpec&) = nullptr;
  std::string_view what;  ///< the figure's name in an error ("decoder layers")
};

/// The known non-knob arguments.
std::span<const KnownArg> known_args();

/// A job read from its arguments.
struct JobArgs {
  Engine engine = Engine::megatron;
  ArgsLayout layout;                    ///< the knobs (unresolved: dp 0)
  std::optional<int64_t> seq_length;    ///< --seq-length
  std::optional<int64_t> global_batch;  ///< --global-batch-size
  bool fp8 = false;                     ///< --fp8-format given (FP8 GEMMs)
  bool rows_per_mb_given = false;       ///< --micro-batch-size given
  bool fp16 = false;                    ///< --fp16 given (FP16 with loss scaling, not BF16)
  /// slime's and miles' RL workload (--rollout-batch-size given): global_batch and seq_length
  /// take its rows per step and row length where the job gives no --global-batch-size or
  /// --seq-length.
  RlArgs rl_args;                ///< the rollout arguments as given
  std::optional<RlWorkload> rl;  ///< their workload (nullopt: no --rollout-batch-size)
  std::vector<std::string> not_priced;  ///< arguments ladle does not price, each once, in order
  std::vector<args::LaunchArg> model_args;  ///< architecture arguments, for check_model_args
  std::string file;  ///< where the arguments came from ("--args" or the script path)
};

/// Reads the training arguments of `script` (training_args: launcher arguments left out).
/// `engine` (optional) overrides the guess: pretrain_*.py is Megatron-LM; slime-only arguments
/// (--use-dynamic-batch-size, --max-tokens-per-gpu, --actor-num-nodes ...) make it slime; a bare
/// argument line is Megatron-LM. Throws Error(input) at `file`:line for a bad value or two
/// arguments that contradict each other.
JobArgs read_job_args(const args::LaunchArgs& script, std::optional<Engine> engine,
                      const std::string& file);

/// The job's layout for rows of `row_tokens`: the knobs as read, with dynamic batching's rows per
/// microbatch (max_tokens * cp / row_tokens) when --micro-batch-size is not given, and etp 1 for a
/// dense model when no argument sets it (Megatron-LM's default etp = tp means nothing there).
Layout job_layout(const JobArgs& job, int64_t row_tokens, const ModelSpec& model);

/// Throws Error(input) naming the argument and the model's figure when a model argument
/// contradicts `model` (--num-layers 61 for a 78-layer model).
void check_model_args(const JobArgs& job, const ModelSpec& model);

}  // namespace ladle::layout
