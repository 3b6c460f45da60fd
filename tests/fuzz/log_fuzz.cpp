// log_fuzz.cpp: a training log, read as LADLE_FUZZ_LOG_FORMAT ("" detects the format). Built once
// per format; the steps must come out sorted and unique.
#include "fuzz_common.hpp"
#include "ladle/runlog/run_log.hpp"

#ifndef LADLE_FUZZ_LOG_FORMAT
#define LADLE_FUZZ_LOG_FORMAT ""
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return ladle::fuzz::run(data, size, [](std::string_view text) {
    const std::string_view name = LADLE_FUZZ_LOG_FORMAT;
    std::optional<ladle::runlog::LogFormat> forced;
    if (!name.empty()) forced = ladle::runlog::parse_log_format(name);
    const ladle::runlog::RunLog log = ladle::runlog::read_log(text, "train.log", forced);
    for (size_t i = 1; i < log.steps.size(); ++i) {
      if (log.steps[i - 1].step >= log.steps[i].step) __builtin_trap();
    }
  });
}
