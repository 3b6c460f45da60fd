#include "ladle/verify/config_diff.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <utility>
#include <set>
#include <string_view>

#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/text.hpp"

namespace ladle::verify {

namespace {

struct Occurrences {
  std::vector<std::vector<std::string>> values;  ///< one entry per repetition
  int line = 0;
};

using FlagMap = std::map<std::string, Occurrences>;

FlagMap collect(const LaunchArgs& args, std::vector<std::string>& order) {
  FlagMap map;
  for (const LaunchArg& arg : args.args) {
    auto [it, inserted] = map.try_emplace(arg.flag);
    if (inserted) {
      it->second.line = arg.line;
      order.push_back(arg.flag);
    }
    it->second.values.push_back(arg.values);
  }
  return map;
}

std::string display(const Occurrences& occ) {
  std::vector<std::string> parts;
  for (const auto& values : occ.values) parts.push_back(values.empty() ? "(set)" : util::join(values, " "));
  return util::join(parts, "; ");
}

ArgClass class_for_value(const NumericsRule& rule, const std::optional<std::string>& value) {
  const std::optional<std::string> effective = value ? value : rule.default_value;
  if (effective) {
    const auto it = rule.values.find(*effective);
    if (it != rule.values.end()) return it->second;
  }
  return rule.arg_class;
}

// The single value of a flag given once with one word, for value-dependent rules.
std::optional<std::string> single_value(const Occurrences* occ) {
  if (!occ || occ->values.size() != 1 || occ->values[0].size() != 1) return std::nullopt;
  return occ->values[0][0];
}

}  // namespace

ConfigDiff diff_launch_args(const LaunchArgs& a, const LaunchArgs& b, const NumericsRules& rules,
                            const std::string& a_path, const std::string& b_path) {
  for (const auto& [args, path] : {std::pair{&a, &a_path}, std::pair{&b, &b_path}}) {
    if (static_cast<int64_t>(args->args.size()) > limits::kMaxArguments) {
      throw_input(SourceLocation{*path}, "{} launch arguments, more than the {} ladle compares", args->args.size(),
                  limits::kMaxArguments);
    }
  }
  ConfigDiff out;
  out.a_path = a_path;
  out.b_path = b_path;
  std::vector<std::string> order;
  const FlagMap in_a = collect(a, order);
  const FlagMap in_b = collect(b, order);
  std::vector<std::string> unique_order;
  std::set<std::string_view> seen;  // n log n in the number of flags
  for (const std::string& flag : order) {
    if (seen.insert(flag).second) unique_order.push_back(flag);
  }
  out.flags_compared = unique_order.size();

  const std::string command_a = util::join(a.commands, " && ");
  const std::string command_b = util::join(b.commands, " && ");
  if (command_a != command_b) {
    ArgDifference d;
    d.flag = "(command)";
    d.a = command_a;
    d.b = command_b;
    d.arg_class = ArgClass::unclassified;
    d.reason = "the engine entry point differs; ladle has no rule for what that changes";
    out.differences.push_back(std::move(d));
  }
  for (const std::string& flag : unique_order) {
    const auto ia = in_a.find(flag);
    const auto ib = in_b.find(flag);
    const Occurrences* oa = ia == in_a.end() ? nullptr : &ia->second;
    const Occurrences* ob = ib == in_b.end() ? nullptr : &ib->second;
    const bool placeholder = flag.rfind("${", 0) == 0;
    if (oa && ob && oa->values == ob->values) {
      if (placeholder) {
        out.notes.push_back(fmt::format("{} is in both; the arguments it expands to are not compared", flag));
      }
      continue;
    }
    ArgDifference d;
    d.flag = flag;
    if (oa) {
      d.a = display(*oa);
      d.line_a = oa->line;
    }
    if (ob) {
      d.b = display(*ob);
      d.line_b = ob->line;
    }
    if (placeholder) {
      d.arg_class = ArgClass::unclassified;
      d.reason = "an array expansion: the arguments it stands for are not visible to ladle";
    } else if (const NumericsRule* rule = rules.find(flag)) {
      d.arg_class = std::max(class_for_value(*rule, single_value(oa)), class_for_value(*rule, single_value(ob)));
      d.reason = rule->reason;
    } else {
      d.arg_class = ArgClass::unclassified;
      d.reason = fmt::format("no rule in {}: classify it before trusting this comparison", rules.file);
    }
    if ((oa && oa->values.size() > 1) || (ob && ob->values.size() > 1)) {
      out.notes.push_back(fmt::format("{} is given more than once; every occurrence is compared", flag));
    }
    out.differences.push_back(std::move(d));
  }
  for (const ArgDifference& d : out.differences) {
    if (!out.worst || d.arg_class > *out.worst) out.worst = d.arg_class;
  }
  if (!out.worst) {
    out.configuration = "pass";
    out.verdict = "pass: the arguments are the same";
  } else if (*out.worst == ArgClass::unclassified) {
    out.configuration = "fail";
    out.verdict = "fail: unclassified arguments differ";
  } else {
    const auto it = rules.verdicts.find(*out.worst);
    const std::string words = it == rules.verdicts.end() ? to_string(*out.worst) : it->second;
    out.configuration = *out.worst == ArgClass::math_changing        ? "fail"
                        : *out.worst == ArgClass::precision_changing ? "pending"
                                                                     : "pass";
    out.verdict = fmt::format("{} ({} differs)", words, to_string(*out.worst));
  }
  return out;
}

std::string read_launch_script(const std::string& path) {
  const std::string text = util::read_file(path, limits::FileKind::launch_script);
  // A .yaml/.yml file or one that declares a schema_version is a recipe: broken YAML is an error
  // there, not a shell script to compare.
  const bool recipe = path.ends_with(".yaml") || path.ends_with(".yml") || text.starts_with("schema_version:") ||
                      text.find("\nschema_version:") != std::string::npos;
  try {
    const YAML::Node root = YAML::Load(text);
    if (root.IsMap() && root["run"] && root["run"].IsScalar()) return root["run"].as<std::string>();
    if (recipe) throw_input(SourceLocation{path, 1, 1, "run"}, "a recipe without a 'run' command to compare");
  } catch (const YAML::Exception& e) {
    if (recipe) {
      throw_input(SourceLocation{path, e.mark.line + 1, e.mark.column + 1, ""}, "malformed YAML: {}", e.msg);
    }
    // Not YAML: a launch script.
  }
  return text;
}

}  // namespace ladle::verify
