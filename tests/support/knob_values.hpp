// Values the knob round-trip tests set: a value of a knob other than its default, and what a knob
// needs set to mean anything (its `when`, recursively). Shared by the spec/engine round trip
// (tests/layout/knobs_test.cpp) and the Megatron-Bridge one (tests/launch/bridge_job_test.cpp).
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "ladle/layout/knobs.hpp"

namespace ladle::test {

// A value of `knob` other than its default that ladle's engines take (not another framework's
// choice, which no job is written with); `text` is the one a free-text knob (the pipeline layout)
// takes.
inline std::string other_value(const layout::Knob& knob, std::string_view text = "Et|tL") {
  const Layout base;
  const std::string def = layout::knob_text(knob, base);
  switch (knob.kind) {
    case layout::KnobKind::integer:
      return def == "2" ? "3" : "2";
    case layout::KnobKind::flag:
      return def == "on" ? "off" : "on";
    case layout::KnobKind::real:
      return "0.5";
    case layout::KnobKind::choice:
      for (size_t i = knob.names.size(); i-- > 0;) {
        const bool allowed = knob.allowed == 0 || ((knob.allowed >> i) & 1) != 0;
        if (allowed && knob.names[i] != def && knob.names[i] != knob.foreign_choice) return std::string(knob.names[i]);
      }
      return def;
    case layout::KnobKind::set:
      return fmt::format("{}+{}", knob.names[0], knob.names[1]);
    case layout::KnobKind::text:
      return std::string(text);
  }
  return def;
}

// Sets what `knob` needs to mean something (its `when`, recursively).
inline void satisfy(const layout::Knob& knob, Layout& l) {
  if (knob.when.key.empty()) return;
  const layout::Knob& other = *layout::find_knob(knob.when.key);
  satisfy(other, l);
  if (!knob.when.negate) {
    layout::set_knob_text(other, l, knob.when.value, other.key);
  } else if (layout::knob_text(other, l) == knob.when.value) {
    layout::set_knob_text(other, l, other_value(other), other.key);
  }
}

}  // namespace ladle::test
