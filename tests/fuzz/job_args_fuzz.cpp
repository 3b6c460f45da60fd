// job_args_fuzz.cpp: a user's own job given as `--args` or a launch script (layout/job_args.hpp):
// the arguments, the knobs read from them and the layout they give.
#include "fuzz_common.hpp"
#include "ladle/layout/job_args.hpp"
#include "ladle/model/catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // One embedded MoE model: the arguments are checked against it and laid out for it.
  static const ladle::ModelSpec model = ladle::model::load_model("glm-4.7-flash");
  return ladle::fuzz::run(data, size, [](std::string_view text) {
    const ladle::args::LaunchArgs script = ladle::args::parse_launch_args(text, "--args");
    const ladle::layout::JobArgs job = ladle::layout::read_job_args(script, std::nullopt, "--args");
    ladle::layout::check_model_args(job, model);
    (void)ladle::layout::job_layout(job, 4096, model);
  });
}
