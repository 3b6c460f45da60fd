#pragma once
// job_script.hpp: the complete job of a planned layout for slime, miles, Megatron-LM or
// Megatron-Bridge: its inputs named and checked first (one clear line and exit 2 when one is
// missing), the hosts and rendezvous (Slurm's environment, a hostfile or --master-addr), the
// engine's launch with every base and layout argument, and with `slurm` an sbatch header.

#include <cstdint>
#include <string>
#include <vector>

#include "ladle/launch/base.hpp"
#include "ladle/layout/layout.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/model_spec.hpp"

namespace ladle::launch {

/// What a job runs.
struct JobRequest {
  const Base* base = nullptr;
  const ModelSpec* model = nullptr;
  Layout layout;
  layout::Engine engine = layout::Engine::megatron;
  int64_t gpus = 0;
  int64_t gpus_per_node = 8;
  std::string precision = "bf16";  ///< bf16 | fp8: fp8 adds the FP8 format and recipe flags
  bool slurm = false;              ///< an sbatch script
  std::string time_limit = "04:00:00";
  std::string title;  ///< the first comment line
};

/// One argument of the entry point, as the job writes it.
struct JobArg {
  std::string flag;                 ///< "--lr", "${MODEL_ARGS[@]}", or a Bridge key "optimizer.lr"
  std::vector<std::string> values;  ///< as the base has them ($VARIABLES kept)
  bool placeholder = false;
  /// The flag's and values' words as a script gave them (args::LaunchArg::shell), or empty:
  /// the job then writes each value quoted, with its $NAME inputs expanded when `expands`.
  std::vector<std::string> shell;
  bool expands = false;  ///< the values name the job's inputs ($HF_CKPT) to expand
  /// The knob row and the row's argument it writes (nullptr: an argument beside the knob table);
  /// its Megatron-Bridge override and value form come from the row.
  const layout::Knob* knob = nullptr;
  const layout::KnobArg* spelling = nullptr;
};

/// The layout's arguments for `engine` through the knob table, without those of the rows that apply
/// only to models with experts for a dense model, and with slime's --allgather-cp where context parallelism needs it (DSA models).
std::vector<layout::EngineArg> job_layout_args(const Layout& layout, const ModelSpec& model,
                                               layout::Engine engine, int64_t row_tokens);

/// The entry point's arguments: cluster shape, the base's arguments, the layout's, precision.
/// Throws Error(input) for a base argument Megatron-Bridge has no override for, or whose values
/// mix a literal `$` with a variable (one override word cannot keep both).
std::vector<JobArg> job_args(const JobRequest& request);

/// The entry point's arguments on one line, as a shell would read them.
std::string job_args_line(const JobRequest& request);

/// The whole bash job.
std::string job_script(const JobRequest& request);

/// The words the job writes for one argument: each literal text quoted by util::shell_quote, the
/// job's inputs ($NAME) the only expansions, an array placeholder as "${NAME[@]}".
std::vector<std::string> job_arg_words(const JobArg& arg, layout::Engine engine);

}  // namespace ladle::launch
