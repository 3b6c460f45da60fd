// launch_script_fuzz.cpp: a launch script (a recipe's `run`), read for its exports and commands
// and for its launch arguments (what `ladle diff` compares). parse_run_script reads the script
// with parse_launch_args and keeps its exports and flags, so one call runs both readers: calling
// each read every input twice, half of the harness's time.
#include "fuzz_common.hpp"
#include "ladle/args/run_script.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return ladle::fuzz::run(data, size, [](std::string_view text) {
    (void)ladle::args::parse_run_script(text, "run.sh");
  });
}
