#include "ladle/args/run_script.hpp"

#include "ladle/args/launch_args.hpp"

namespace ladle::args {

const RunArg* RunScript::find(std::string_view flag) const {
  for (const RunArg& arg : args) {
    if (arg.flag == flag) return &arg;
  }
  return nullptr;
}

RunScript parse_run_script(std::string_view script, const std::string& path) {
  const LaunchArgs launch = parse_launch_args(script, path);
  RunScript out;
  for (const LaunchExport& e : launch.exports) out.exports.push_back({e.name, e.value, e.line});
  for (const LaunchArg& arg : launch.args) {
    if (arg.placeholder) {
      out.has_opaque_args = true;
      continue;
    }
    // A list (--recompute-modules moe_act layernorm) is its words joined by spaces.
    std::optional<std::string> value;
    for (const std::string& v : arg.values) value = value ? *value + " " + v : v;
    out.args.push_back({arg.flag, value, arg.line});
  }
  out.run_time_words = launch.run_time_words;
  return out;
}

}  // namespace ladle::args
