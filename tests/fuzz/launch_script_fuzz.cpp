// launch_script_fuzz.cpp: a launch script (a recipe's `run`), read for its exports and commands
// and for its launch arguments (what `ladle diff` compares).
#include "fuzz_common.hpp"
#include "ladle/recipe/launch_args.hpp"
#include "ladle/recipe/run_script.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ladle::fuzz::run(data, size, [](std::string_view text) {
    (void)ladle::recipe::parse_run_script(text, "run");
  });
  return ladle::fuzz::run(data, size, [](std::string_view text) {
    (void)ladle::recipe::parse_launch_args(text, "run.sh");
  });
}
