#pragma once
// base.hpp: the base of a planned job, everything that is not layout: the workload, optimizer and
// schedule, dropout, loss, data and rollout arguments, run length, precision flags and
// environment of a base recipe (a file or catalog name), or ladle's documented defaults for an
// engine (data/launch/engines.yaml) when the catalog has no recipe of the model for that family.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ladle/args/launch_args.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/model_spec.hpp"
#include "ladle/recipe/recipe.hpp"
#include "ladle/recipe/recipe_io.hpp"

namespace ladle::launch {

/// Where a job's base came from.
enum class BaseKind {
  defaults,  ///< ladle's defaults for the engine (data/launch/engines.yaml)
  recipe,    ///< a recipe (--base, or the catalog's recipe of the model)
  job,       ///< the user's own job (--script/--args): every argument that sets no knob, verbatim
};

/// What a job keeps from its base.
struct Base {
  std::string name;  ///< catalog name ("glm-5.2-744b-a40b/h200/attune-tp4-pp4"), file, or "ladle
                     ///< defaults (megatron)"
  bool from_recipe = false;
  BaseKind kind = BaseKind::defaults;
  /// Lines the job's header says about its base (what of the user's job it could not carry).
  std::vector<std::string> notes;
  /// The layout flags the user's job wrote itself (BaseKind::job): the plan's values of the others
  /// are written only where they differ from what the engine does without them.
  std::vector<std::string> job_layout_flags;
  /// The job's companion arguments that carry a value (BaseKind::job; the knob rows' companions:
  /// --seq-length): kept where the engine's layout arguments do not write them (slime and miles pack
  /// by --max-tokens-per-gpu).
  std::vector<args::LaunchArg> job_companion_values;
  layout::Engine engine = layout::Engine::megatron;  ///< the engine the base's script drives
  Workload workload;  ///< row tokens, rows, global batch, precision, dataset
  std::vector<args::LaunchArg>
      args;  ///< the entry point's arguments that are not layout, in order
  std::vector<std::pair<std::string, std::string>> env;  ///< the exports, in order
  /// Each export's value as the job writes it (args::LaunchExport::shell), parallel to `env`;
  /// missing entries are written as their literal text.
  std::vector<std::string> env_words;
  bool sft = false;  ///< --loss-type sft_loss: the rollout arguments are SFT's
  /// The base recipe's layout (from_recipe only): the plan keeps its numerics-changing knobs.
  std::optional<Layout> layout;
};

/// The flags a layout sets for `engine` (every knob of the knob table, the cluster shape and the
/// context-parallel switches): a base's values of these are replaced by the plan's.
bool is_layout_flag(const std::string& flag);

/// The base from a loaded recipe: its exports and its first launch's non-layout arguments. Throws
/// Error(input) at the recipe's file:line when its run has no launch, and at file:line:col for an
/// argument whose words the run expands into what ladle cannot read ($(...), backticks, $1):
/// a job carries each argument as the text ladle read, so it would not run what the base runs.
Base base_from_recipe(const recipe::LoadedRecipe& loaded, const std::string& name);

/// Carries the arguments of a user's own job (the training arguments of plan's and predict's
/// `--args`/`--script`) that set no layout knob into `base`, verbatim: each replaces the base's
/// values of the same flag, or is appended after the base's arguments, in the job's order
/// (`--seed 1234`, `--lr 3e-4`, data paths). The layout's flags stay the plan's; an array expansion
/// of the user's script ("${EXTRA[@]}") is left out, its words being the script's. Throws
/// Error(input) at `file`:line:col for an argument that expands a command or a special parameter
/// ($(...), backticks, $1): ladle writes into a job only literal text and variables.
void carry_job_args(Base& base, const std::vector<args::LaunchArg>& job_args,
                    const std::string& file = "--args");

/// The base of the user's own job (plan's, predict's and tune's `--script`/`--args`): every
/// argument of its training launch that sets no layout knob, verbatim and in its order (optimizer,
/// schedule, init, dropout, data paths, architecture), and its environment; the workload is
/// `workload`. The job's array expansion "${MODEL_ARGS[@]}" stays (the emitted job sets MODEL_ARGS
/// from the model); another array expansion, whose words are the script's, is left out and named in
/// `notes`. Throws Error(input) at `file`:line:col for an argument that expands a command or a
/// special parameter, and at `file` when the job drives an engine of another family than `engine`
/// (its arguments have no spelling there).
Base base_from_job(const args::LaunchArgs& launch, layout::Engine job_engine, layout::Engine engine,
                   const std::string& file, const Workload& workload);

/// ladle's defaults for `engine` (data/launch/engines.yaml), for `model`.
Base default_base(const ModelSpec& model, layout::Engine engine, int64_t row_tokens,
                  int64_t global_batch);

/// The base for `--base` (a file or catalog name), or without it the catalog recipe of the same
/// model and engine family (the first by name), else default_base. Throws Error(usage) when
/// `option` names no recipe, and Error(input) when the base's engine family cannot be converted
/// to `engine` (e.g. a slime SFT recipe to Megatron-LM's pretrain_gpt.py).
Base resolve_base(const std::string& option, const ModelSpec& model, layout::Engine engine,
                  int64_t row_tokens, int64_t global_batch);

}  // namespace ladle::launch
