#include "ladle/runlog/log_format.hpp"

#include <array>
#include <string>
#include <utility>

#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::runlog {

namespace {
constexpr std::array<std::pair<LogFormat, const char*>, 7> kNames = {{
    {LogFormat::megatron, "megatron"},
    {LogFormat::megatron_bridge, "megatron_bridge"},
    {LogFormat::slime, "slime"},
    {LogFormat::miles, "miles"},
    {LogFormat::nemo, "nemo"},
    {LogFormat::jsonl, "jsonl"},
    {LogFormat::megatron_golden, "megatron_golden"},
}};
}  // namespace

std::string to_string(LogFormat format) {
  for (const auto& [value, name] : kNames) {
    if (value == format) return name;
  }
  LADLE_ASSERT(false, "every LogFormat has a name");
  return "";
}

LogFormat parse_log_format(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& [value, text] : kNames) {
    if (name == text) return value;
    names.emplace_back(text);
  }
  throw_usage("unknown log format '{}'{}; known: {}", name, util::did_you_mean(name, names),
              util::join(names, ", "));
}

}  // namespace ladle::runlog
