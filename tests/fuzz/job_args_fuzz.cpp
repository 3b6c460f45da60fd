// job_args_fuzz.cpp: a user's own job given as `--args` or a launch script (layout/job_args.hpp):
// the arguments, the knobs read from them and the layout they give.
#include "fuzz_common.hpp"
#include "ladle/layout/job_args.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return ladle::fuzz::run(data, size, [](std::string_view text) {
    const ladle::recipe::LaunchArgs script = ladle::recipe::parse_launch_args(text, "--args");
    const ladle::layout::JobArgs job = ladle::layout::read_job_args(script, std::nullopt, "--args");
    (void)ladle::layout::job_layout(job, 4096);
  });
}
