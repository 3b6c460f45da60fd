#pragma once
// knob_lookup.hpp: the knob table (knobs.hpp) looked up by its recipe column at compile time, and
// two columns the rows do not hold yet, kept here as data keyed by the row's key and checked
// against the rows at compile time:
//
// - the recipe range of the integer rows that the recipe block holds as its core fields (tp, pp,
//   ..., max_tokens_per_gpu): the bounds the recipe reader enforces, with their reason
//   (util/limits.hpp), as the other rows carry in `.recipe_range`;
// - the companion arguments: launch arguments that are not a knob's value but go with a row's own
//   argument (slime's dynamic-batching switch, the host-offload switch, Megatron-LM's sequence
//   length beside the micro-batch size). The engine writer and reader walk them; no knob is named
//   in their code.
//
// Both columns belong in the rows; they move there as `.recipe_range` and a `.companions` span.

#include <cstdint>
#include <span>
#include <string_view>

#include "ladle/layout/knobs.hpp"
#include "ladle/util/limits.hpp"

namespace ladle::layout {

/// The row whose recipe column is `field` ("tp", "recompute.granularity"), or nullptr.
constexpr const Knob* knob_by_recipe(std::string_view field) {
  for (const Knob& knob : knob_detail::kKnobs) {
    if (knob.recipe == field) return &knob;
  }
  return nullptr;
}

/// The row with this key, or nullptr (find_knob at compile time).
constexpr const Knob* knob_by_key(std::string_view key) {
  for (const Knob& knob : knob_detail::kKnobs) {
    if (knob.key == key) return &knob;
  }
  return nullptr;
}

namespace knob_lookup_detail {

struct RecipeRange {
  std::string_view key;
  const limits::IntegerRange* range;
};

// The core integer fields' bounds. The row's own [min, max] is what a spec or an argument may say
// (kMaxParallel, kMaxTokens: wide, for reading any job); a recipe is held to limits.hpp's bounds,
// which keep the products ladle computes from it within 64 bits. Megatron-LM puts no upper bound on
// any of these (megatron/training/arguments.py at d98e8a64 only requires the sizes to divide the
// world size and the layers), so neither bound is Megatron-LM's; the recipe's is the narrower.
inline constexpr RecipeRange kCoreRecipeRanges[] = {
    {"tp", &limits::kParallelRange},          {"pp", &limits::kParallelRange},
    {"cp", &limits::kParallelRange},          {"ep", &limits::kParallelRange},
    {"etp", &limits::kParallelRange},         {"dp", &limits::kParallelRange},
    {"vpp", &limits::kParallelRange},         {"first", &limits::kLayerCountRange},
    {"last", &limits::kLayerCountRange},      {"recompute_layers", &limits::kLayerCountRange},
    {"max_tokens", &limits::kTokensPerGpuRange}, {"rows_per_mb", &limits::kBatchRowsRange},
};

}  // namespace knob_lookup_detail

/// The bounds the recipe reader puts on an integer row's recipe field: the row's `.recipe_range`,
/// else its core-field range above; nullptr for a row with none.
constexpr const limits::IntegerRange* recipe_range(const Knob& knob) {
  if (knob.recipe_range != nullptr) return knob.recipe_range;
  for (const knob_lookup_detail::RecipeRange& r : knob_lookup_detail::kCoreRecipeRanges) {
    if (r.key == knob.key) return r.range;
  }
  return nullptr;
}

/// When a companion argument is written.
enum class CompanionWhen : uint8_t {
  applies,      ///< whenever the row's condition holds (its `when`)
  not_default,  ///< when the row's value differs from the engine's default
};

/// What a companion argument carries.
enum class CompanionValue : uint8_t {
  none,        ///< a switch
  row_tokens,  ///< the workload's tokens per row
};

/// A launch argument written beside a row's own argument.
struct CompanionArg {
  std::string_view key;   ///< the row it goes with
  std::string_view flag;  ///< the argument
  uint8_t engines = kAllEngines;
  bool before = false;  ///< written before the row's own argument (else after it)
  CompanionWhen when = CompanionWhen::applies;
  CompanionValue value = CompanionValue::none;
  /// A switch that gives its row this value when the row's own argument is absent (spec text);
  /// the writer then leaves the row's argument out at this value, and the reader sets the row to
  /// it, or to its default when the switch is absent. "" when the switch implies nothing.
  std::string_view implied;
};

namespace knob_lookup_detail {

// clang-format off
inline constexpr CompanionArg kCompanionArgs[] = {
  // slime's dynamic batching: --use-dynamic-batch-size makes --max-tokens-per-gpu the microbatch
  // (slime/utils/arguments.py at 624b824a; miles spells it alike).
  {.key = "max_tokens", .flag = "--use-dynamic-batch-size", .engines = kSlime | kMiles, .before = true},
  // Megatron-LM's host offload: --optimizer-cpu-offload turns it on, and --optimizer-offload-fraction
  // defaults to 1.0 (megatron/training/arguments.py at d98e8a64); without the switch nothing is
  // offloaded whatever the fraction says.
  {.key = "offload", .flag = "--optimizer-cpu-offload", .before = true, .when = CompanionWhen::not_default,
   .implied = "1.0"},
  // Megatron-LM's fixed micro-batches: --micro-batch-size rows of --seq-length tokens.
  {.key = "rows_per_mb", .flag = "--seq-length", .engines = kMegatron, .value = CompanionValue::row_tokens},
};
// clang-format on

}  // namespace knob_lookup_detail

/// Every companion argument, in table order.
inline constexpr std::span<const CompanionArg> kCompanionArgs = knob_lookup_detail::kCompanionArgs;

/// The companion arguments of `knob`'s row, in table order (a view over kCompanionArgs' run of them;
/// empty for a row without any).
inline std::span<const CompanionArg> companions_of(const Knob& knob) {
  size_t first = kCompanionArgs.size();
  size_t last = first;
  for (size_t i = 0; i < kCompanionArgs.size(); ++i) {
    if (kCompanionArgs[i].key != knob.key) continue;
    if (first == kCompanionArgs.size()) first = i;
    last = i + 1;
  }
  return first == kCompanionArgs.size() ? std::span<const CompanionArg>() : kCompanionArgs.subspan(first, last - first);
}

/// The companion switch spelled `flag` (a companion that carries no value), or nullptr.
inline const CompanionArg* companion_switch(std::string_view flag) {
  for (const CompanionArg& c : kCompanionArgs) {
    if (c.flag == flag && c.value == CompanionValue::none) return &c;
  }
  return nullptr;
}

namespace knob_lookup_detail {

// Every integer row with a recipe field has one range, from its row or from the core ranges, not
// both; every core range names such a row.
constexpr bool recipe_ranges_are_whole() {
  for (const Knob& knob : knob_detail::kKnobs) {
    if (knob.kind != KnobKind::integer || knob.recipe.empty()) continue;
    int found = knob.recipe_range != nullptr ? 1 : 0;
    for (const RecipeRange& r : kCoreRecipeRanges) found += r.key == knob.key ? 1 : 0;
    if (found != 1) return false;
  }
  for (const RecipeRange& r : kCoreRecipeRanges) {
    const Knob* knob = knob_by_key(r.key);
    if (knob == nullptr || knob->kind != KnobKind::integer || knob->recipe.empty()) return false;
  }
  return true;
}
static_assert(recipe_ranges_are_whole(),
              "every integer knob row with a recipe field needs exactly one recipe range (its .recipe_range or "
              "kCoreRecipeRanges), and every core range must name such a row");

// Every companion names a row that has launch arguments; a row's companions are adjacent; an
// implied value is a switch's.
constexpr bool companions_are_rows() {
  for (size_t i = 0; i < std::size(kCompanionArgs); ++i) {
    const CompanionArg& c = kCompanionArgs[i];
    const Knob* knob = knob_by_key(c.key);
    if (knob == nullptr || knob->args.empty()) return false;
    if (!c.implied.empty() && c.value != CompanionValue::none) return false;
    for (size_t j = i + 2; j < std::size(kCompanionArgs); ++j) {
      if (kCompanionArgs[j].key == c.key && kCompanionArgs[j - 1].key != c.key) return false;
    }
  }
  return true;
}
static_assert(companions_are_rows(), "every companion argument names a knob row with launch arguments");

}  // namespace knob_lookup_detail

}  // namespace ladle::layout
