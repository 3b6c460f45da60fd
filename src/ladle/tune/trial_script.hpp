#pragma once
// trial_script.hpp: the bash script one trial runs: a prologue that prints the software stack
// (framework, Megatron-LM commit, megatron-core, Transformer Engine, PyTorch, CUDA, NCCL, DeepEP,
// Python, GPU, driver; "missing" for what is not installed), then the engine's launch script with
// a short run length.

#include <cstdint>
#include <string>
#include <string_view>

#include "ladle/layout/recipe_layout.hpp"
#include "ladle/recipe/recipe.hpp"

namespace ladle::tune {

/// What a trial script is made from.
struct TrialScriptInputs {
  std::string job_name;
  std::string layout_spec;
  std::string
      engine_run;  ///< the launch script of the planned recipe for the layout (recipe `run:`)
  layout::Engine engine = layout::Engine::slime;
  int64_t steps = 10;
  /// A program run in place of the engine's python3 / torchrun (empty: the script's own).
  std::string engine_program;
};

/// The prologue alone: prints one "ladle-stack: KEY: VALUE" line per stack item.
std::string stack_prologue();

/// The whole trial script. The run length is set with --num-rollout (slime, miles) or
/// --train-iters (Megatron-LM), replacing one the launch script sets.
std::string trial_script(const TrialScriptInputs& inputs);

/// The stack the prologue printed in `log`, as a recipe's `stack:` block. A key the log lacks
/// reads "missing"; `captured` (a date) goes into `source`.
RecipeStack parse_stack(std::string_view log, layout::Engine engine, const std::string& captured);

}  // namespace ladle::tune
