#pragma once
// recipe_layout.hpp: Layout <-> a recipe's `layout:` block, and Layout <-> the launch arguments of
// slime, miles and Megatron-LM. Both directions walk the knob table (knobs.hpp).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/args/launch_args.hpp"
#include "ladle/args/run_script.hpp"
#include "ladle/layout/layout.hpp"
#include "ladle/recipe/finding.hpp"
#include "ladle/recipe/recipe.hpp"
#include "ladle/recipe/recipe_io.hpp"

namespace ladle::layout {

/// The engine a launch script drives.
enum class Engine {
  slime,     ///< THUDM/slime: train.py / train_async.py with Megatron-LM arguments
  miles,     ///< radixark/miles, a slime fork: the same arguments
  megatron,  ///< Megatron-LM's pretrain_gpt.py: fixed micro-batches instead of dynamic batching
  bridge,    ///< NVIDIA-NeMo/Megatron-Bridge's recipe runner: Megatron-LM's knobs as config overrides
};

/// "slime" / "miles" / "megatron" / "bridge".
const char* to_string(Engine engine);
/// Parses an engine name; throws Error(usage) listing the valid names.
Engine parse_engine(std::string_view name);
/// The EngineMask bits of the knob arguments an engine takes (Megatron-Bridge: Megatron-LM's and
/// the Bridge-only config fields).
uint8_t engine_mask(Engine engine);

/// The layout a recipe's `layout:` block describes. Without a precision_aware field the flag is
/// set when offload > 0 (which requires it). Use layout_from_recipe to read the rest from the run
/// script. Throws Error(input) at "layout.<field>" for a knob value the layout rejects.
Layout from_recipe_layout(const RecipeLayout& block);

/// The `layout:` block for `layout`, with a generated label, summary and highlights in the seeds'
/// wording; optional knob fields only where the knob is not at its default. `row_tokens` describes
/// the microbatch in the summary.
RecipeLayout to_recipe_layout(const Layout& layout, int64_t row_tokens);

struct Knob;
struct KnobArg;

/// One launch argument: a flag and its value (none for a switch; several words separated by
/// spaces for a list such as --recompute-modules), with the knob row and spelling it writes, so a
/// writer of another syntax (Megatron-Bridge's overrides) works from the row, not the flag text.
struct EngineArg {
  std::string flag;
  std::optional<std::string> value;
  const Knob* knob = nullptr;        ///< the row it sets (nullptr: an argument beside the table)
  const KnobArg* spelling = nullptr;  ///< the row's argument written
  std::vector<std::string> words;    ///< the value's words (a list: one per member)
  /// The same argument: flag and value (the row is where it came from, not what it says).
  bool operator==(const EngineArg& o) const { return flag == o.flag && value == o.value; }
};

/// The launch arguments that set `layout` for `engine`, in knob-table order (dp is implied by the
/// GPU count and has no flag). Megatron-LM gets --micro-batch-size and --seq-length instead of
/// slime's dynamic batching; `row_tokens` is the sequence length there. A knob at the engine's
/// default is left out, except the core sizes, the dispatcher and the gradient reduce dtype.
std::vector<EngineArg> layout_engine_args(const Layout& layout, Engine engine, int64_t row_tokens);

/// The launch arguments of a script that the training program receives: those after the training
/// script word (train.py, pretrain_gpt.py, any *.py) of each engine call, without the arguments of
/// torchrun, srun, ray, mpirun or python itself; a call with no script word keeps all of its
/// arguments.
std::vector<args::LaunchArg> training_args(const args::LaunchArgs& script);

/// The engine a script drives, from its calls: run_recipe.py is Megatron-Bridge, pretrain_*.py is
/// Megatron-LM, a miles path is miles, anything else slime.
Engine guess_engine(const args::LaunchArgs& script);

/// What the layout reader made of a list of training arguments.
struct ArgsLayout {
  Layout layout;
  std::vector<args::LaunchArg> rest;  ///< training arguments that set no layout knob, in order
  std::vector<const Knob*> set;         ///< knobs an argument set, in table order
  bool opaque = false;                  ///< an array expansion hides some arguments
};

/// Reads the layout knobs from training arguments. A knob no argument sets takes the engine's
/// default (knobs.hpp), or, when the arguments contain an opaque expansion ("${MODEL_ARGS[@]}"),
/// the spec's default (slime and miles pass the dispatcher there); etp defaults to tp; dp stays 0.
/// Throws Error(input) at `file`:line for a value of the wrong type or out of range, a flag that
/// needs a value and has none, and two arguments that set one knob to different values (naming
/// both).
ArgsLayout read_layout_args(std::span<const args::LaunchArg> args, Engine engine, const std::string& file = "run");

/// Throws Error(input) at the argument's file:line:col when `arg` is a Megatron-Bridge override
/// or run_recipe.py option (LaunchArg::bridge) and `engine` is not Megatron-Bridge.
void require_bridge_engine(const args::LaunchArg& arg, Engine engine, const std::string& file);

/// read_layout_args over a script's training arguments, with Megatron-LM's defaults.
Layout layout_from_run_args(const args::RunScript& script);

/// The layout of a whole recipe: the `layout:` block, with the knobs it leaves out from the run
/// script's arguments.
Layout layout_from_recipe(const Recipe& recipe);

/// Where a recipe's `layout:` block and its run script disagree on an optional knob field the block
/// states (`check`'s R12 compares the core fields, the parallel sizes, split, recompute, offload,
/// batching and dispatcher, one by one): one R12 finding per knob, at the script's argument, or at
/// the run block when no argument sets it and the engine's default differs. Nothing where the
/// script cannot be read (other rules report it), or hides arguments in an array expansion and
/// sets the knob in none it shows.
std::vector<recipe::Finding> block_disagreements(const recipe::LoadedRecipe& loaded);

}  // namespace ladle::layout
