#pragma once
// knob_lookup.hpp: the knob table (knobs.hpp) looked up at compile time, and a column the rows do
// not hold yet, kept here as data keyed by the row's key and checked against the rows at compile
// time: the companion arguments, launch arguments that are not a knob's value but go with a row's
// own argument (slime's dynamic-batching switch, the host-offload switch, Megatron-LM's sequence
// length beside the micro-batch size). The engine writer and reader walk them; no knob is named in
// their code. The column belongs in the rows, as a `.companions` span.

#include <cstdint>
#include <span>
#include <string_view>

#include "ladle/layout/knobs.hpp"

namespace ladle::layout {

/// The row with this key, or nullptr (find_knob at compile time).
constexpr const Knob* knob_by_key(std::string_view key) {
  for (const Knob& knob : knob_detail::kKnobs) {
    if (knob.key == key) return &knob;
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
