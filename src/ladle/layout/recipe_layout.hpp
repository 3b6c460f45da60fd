#pragma once
// recipe_layout.hpp: Layout <-> a recipe's `layout:` block, and Layout <-> the launch arguments of
// slime, miles and Megatron-LM.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/layout/layout.hpp"
#include "ladle/recipe/recipe.hpp"
#include "ladle/recipe/run_script.hpp"

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

/// The layout a recipe's `layout:` block describes. The block has no precision-aware flag; it is
/// set when offload > 0 (which requires it). Use layout_from_recipe to read it from the run script.
Layout from_recipe_layout(const RecipeLayout& block);

/// The `layout:` block for `layout`, with a generated label, summary and highlights in the seeds'
/// wording. `row_tokens` describes the microbatch in the summary.
RecipeLayout to_recipe_layout(const Layout& layout, int64_t row_tokens);

/// One launch argument: a flag and its value (none for a switch).
struct EngineArg {
  std::string flag;
  std::optional<std::string> value;
  bool operator==(const EngineArg&) const = default;
};

/// The launch arguments that set `layout` for `engine`, in a fixed order (dp is implied by the
/// GPU count and has no flag). Megatron-LM gets --micro-batch-size and --seq-length instead of
/// slime's dynamic batching; `row_tokens` is the sequence length there.
std::vector<EngineArg> layout_engine_args(const Layout& layout, Engine engine, int64_t row_tokens);

/// The layout the launch arguments set. Flags left out take Megatron-LM's defaults (etp = tp,
/// dispatcher allgather), except that a script expanding opaque arguments ("${MODEL_ARGS[@]}")
/// keeps the dispatcher alltoall, as slime and miles pass it there; dp stays 0 (derive it from
/// the GPU count). Throws Error(input) for a flag value that is not a number.
Layout layout_from_run_args(const recipe::RunScript& script);

/// The layout of a whole recipe: the `layout:` block, with precision_aware and moments from the
/// run script's arguments.
Layout layout_from_recipe(const Recipe& recipe);

}  // namespace ladle::layout
