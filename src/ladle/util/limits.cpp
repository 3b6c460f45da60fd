#include "ladle/util/limits.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include "ladle/util/error.hpp"

namespace ladle::limits {

int64_t max_file_bytes(FileKind kind) {
  switch (kind) {
    case FileKind::recipe:
    case FileKind::data_table:
      return kMaxRecipeBytes;
    case FileKind::model_config:
      return kMaxModelConfigBytes;
    case FileKind::tokenizer:
      return kMaxTokenizerBytes;
    case FileKind::launch_script:
      return kMaxLaunchScriptBytes;
    case FileKind::any:
      return kMaxAnyFileBytes;
    case FileKind::streamed:
      return kMaxStreamedFileBytes;
  }
  return kMaxAnyFileBytes;
}

std::string_view file_kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::recipe:
      return "a recipe";
    case FileKind::data_table:
      return "a data table";
    case FileKind::model_config:
      return "a model config.json";
    case FileKind::tokenizer:
      return "a tokenizer.json";
    case FileKind::launch_script:
      return "a launch script";
    case FileKind::any:
      return "an input file";
    case FileKind::streamed:
      return "a streamed file";
  }
  return "an input file";
}

}  // namespace ladle::limits

namespace ladle::util {

std::optional<int64_t> exact_int64(double value) {
  // 2^63 is exactly representable; every double below it in magnitude converts without overflow.
  constexpr double kTwo63 = 9223372036854775808.0;
  if (!std::isfinite(value) || value >= kTwo63 || value < -kTwo63) return std::nullopt;
  if (std::trunc(value) != value) return std::nullopt;
  return static_cast<int64_t>(value);
}

int thread_count(std::optional<int64_t> requested, std::string_view flag) {
  const int64_t hardware = std::max<int64_t>(1, std::thread::hardware_concurrency());
  if (!requested) return static_cast<int>(std::min(hardware, limits::kMaxThreads));
  if (*requested < 1 || *requested > limits::kMaxThreads) {
    throw_usage("{} {}: expected 1 to {} threads", flag, *requested, limits::kMaxThreads);
  }
  return static_cast<int>(std::min(*requested, hardware));
}

bool is_finite_number(double value) { return std::isfinite(value); }

bool is_calendar_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  const int year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
  const int month = (s[5] - '0') * 10 + (s[6] - '0');
  const int day = (s[8] - '0') * 10 + (s[9] - '0');
  if (month < 1 || month > 12 || day < 1) return false;
  constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int last = month == 2 && leap ? 29 : kDays[month - 1];
  return day <= last;
}

}  // namespace ladle::util
