// layout_spec_fuzz.cpp: a layout spec (`--layout tp=4,pp=2,...`); what reads formats and reads back
// to the same layout.
#include "fuzz_common.hpp"
#include "ladle/layout/layout_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return ladle::fuzz::run(data, size, [](std::string_view text) {
    const ladle::Layout layout = ladle::layout::parse_layout_spec(text);
    const std::string spec = ladle::layout::format_layout_spec(layout);
    try {
      if (!(ladle::layout::parse_layout_spec(spec) == layout)) __builtin_trap();
    } catch (const ladle::Error&) {
      __builtin_trap();  // ladle formatted a spec it then rejects
    }
  });
}
