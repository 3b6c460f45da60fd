#pragma once
// fuzz_common.hpp: what every libFuzzer harness shares. A reader may reject its input only with
// ladle::Error (the one-line error of the CLI); any other exception escapes, and libFuzzer reports
// it as a crash, as it does a sanitizer report, a leak, a timeout or an input over its memory
// limit.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ladle/util/error.hpp"

namespace ladle::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `read` on the input; ladle::Error is the expected way to refuse it.
template <typename Read>
int run(const uint8_t* data, size_t size, Read&& read) {
  try {
    read(as_text(data, size));
  } catch (const ladle::Error& e) {
    // A refusal must name what was expected: one line, never empty.
    if (e.describe().empty() || e.describe().find('\n') != std::string::npos) __builtin_trap();
  }
  return 0;
}

}  // namespace ladle::fuzz
