#include "ladle/verify/config_diff.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/shell_quote.hpp"
#include "ladle/util/text.hpp"
#include "ladle/util/yaml_document.hpp"

namespace ladle::verify {

namespace {

struct Occurrences {
  std::vector<std::vector<std::string>> values;  ///< one entry per repetition
  /// Each value as the script wrote it when the run expands it ('$X' is the text $X, "$X" the
  /// variable's value): two scripts whose words read alike but run differently are not the same.
  std::vector<std::vector<std::string>> written;
  int line = 0;
  std::string file;  ///< the file of `line` when not the script compared (a sourced file)
  bool unresolved = false;
};

using FlagMap = std::map<std::string, Occurrences>;

FlagMap collect(const std::vector<LaunchArg>& args, std::vector<std::string>& order, bool skip_runtime_env) {
  FlagMap map;
  for (const LaunchArg& arg : args) {
    if (skip_runtime_env && arg.flag == "--runtime-env-json") continue;  // compared as environment
    auto [it, inserted] = map.try_emplace(arg.flag);
    if (inserted) {
      it->second.line = arg.line;
      it->second.file = arg.file;
      order.push_back(arg.flag);
    }
    it->second.values.push_back(arg.values);
    std::vector<std::string> written;
    for (size_t k = 0; k < arg.values.size(); ++k) {
      const bool literal = arg.shell.size() <= k + 1 || arg.shell[k + 1] == util::shell_quote(arg.values[k]);
      written.push_back(literal ? arg.values[k] : arg.shell[k + 1]);
    }
    it->second.written.push_back(std::move(written));
    it->second.unresolved = it->second.unresolved || arg.unresolved;
  }
  return map;
}

std::string display(const Occurrences& occ) {
  std::vector<std::string> parts;
  for (const auto& values : occ.written) parts.push_back(values.empty() ? "(set)" : util::join(values, " "));
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

bool same_occurrences(const Occurrences& a, const Occurrences& b) {
  if (a.values.size() != b.values.size()) return false;
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (a.values[i].size() != b.values[i].size()) return false;
    for (size_t k = 0; k < a.values[i].size(); ++k) {
      if (!args::same_value(a.values[i][k], b.values[i][k])) return false;
      // One side literal, the other expanded at run time: the words differ in what runs.
      const bool a_literal = a.written[i][k] == a.values[i][k];
      const bool b_literal = b.written[i][k] == b.values[i][k];
      if (a_literal != b_literal) return false;
    }
  }
  return true;
}

// A flag given once on one side with the engine's default, and absent on the other.
bool default_matches_absence(const Occurrences* present, const NumericsRules& rules, const std::string& flag) {
  const auto value = single_value(present);
  const auto default_value = rules.default_of(flag);
  return value && default_value && args::same_value(*value, *default_value);
}

class Differ {
 public:
  Differ(const NumericsRules& rules, ConfigDiff& out) : rules_(rules), out_(out) {}

  void training(const std::vector<LaunchArg>& a, const std::vector<LaunchArg>& b, size_t launch) {
    std::vector<std::string> order;
    const FlagMap in_a = collect(a, order, false);
    const FlagMap in_b = collect(b, order, false);
    for (const std::string& flag : unique(order)) {
      if (seen_flags_.insert(flag).second) ++out_.flags_compared;
      const Occurrences* oa = find(in_a, flag);
      const Occurrences* ob = find(in_b, flag);
      const bool placeholder = flag.rfind("${", 0) == 0;
      if (oa && ob && same_occurrences(*oa, *ob)) {
        if (placeholder) {
          add_note(fmt::format("{} is in both; the arguments it expands to are not compared", flag));
        }
        continue;
      }
      if (!placeholder && ((oa && !ob && default_matches_absence(oa, rules_, flag)) ||
                           (ob && !oa && default_matches_absence(ob, rules_, flag)))) {
        continue;
      }
      ArgDifference d = make(flag, oa, ob, "training", launch);
      if (placeholder) {
        d.arg_class = ArgClass::unclassified;
        d.reason = "an array expansion: the arguments it stands for are not visible to ladle";
      } else if (const NumericsRule* rule = rules_.find(flag)) {
        d.arg_class = std::max(class_for_value(*rule, single_value(oa)), class_for_value(*rule, single_value(ob)));
        d.reason = rule->reason;
      } else {
        d.arg_class = ArgClass::unclassified;
        d.reason = fmt::format("no rule in {}: classify it before trusting this comparison", rules_.file);
      }
      if ((oa && oa->values.size() > 1) || (ob && ob->values.size() > 1)) {
        add_note(fmt::format("{} is given more than once; every occurrence is compared", flag));
      }
      if (!placeholder && oa && ob && (oa->unresolved || ob->unresolved)) {
        d.reason = "its value comes from outside the script (a variable the script does not set, or $(...))";
        out_.unresolved.push_back(std::move(d));
        continue;
      }
      out_.differences.push_back(std::move(d));
    }
  }

  void launcher(const std::vector<LaunchArg>& a, const std::vector<LaunchArg>& b, size_t launch,
                const std::string& what) {
    std::vector<std::string> order;
    const FlagMap in_a = collect(a, order, true);
    const FlagMap in_b = collect(b, order, true);
    for (const std::string& flag : unique(order)) {
      const Occurrences* oa = find(in_a, flag);
      const Occurrences* ob = find(in_b, flag);
      if (oa && ob && same_occurrences(*oa, *ob)) continue;
      ArgDifference d = make(flag, oa, ob, "launcher", launch);
      d.arg_class = ArgClass::layout_only;
      d.reason = fmt::format("an argument of {}: it starts processes, it does not compute", what);
      if (oa && ob && (oa->unresolved || ob->unresolved)) {
        out_.unresolved.push_back(std::move(d));
        continue;
      }
      out_.differences.push_back(std::move(d));
    }
  }

  void environment(const std::vector<LaunchExport>& a, const std::vector<LaunchExport>& b, size_t launch) {
    std::map<std::string, LaunchExport> in_a;
    std::map<std::string, LaunchExport> in_b;
    std::vector<std::string> order;
    for (const LaunchExport& e : a) {
      if (!in_a.count(e.name)) order.push_back(e.name);
      in_a[e.name] = e;
    }
    for (const LaunchExport& e : b) {
      if (!in_b.count(e.name)) order.push_back(e.name);
      in_b[e.name] = e;
    }
    for (const std::string& name : unique(order)) {
      const auto ia = in_a.find(name);
      const auto ib = in_b.find(name);
      const LaunchExport* ea = ia == in_a.end() ? nullptr : &ia->second;
      const LaunchExport* eb = ib == in_b.end() ? nullptr : &ib->second;
      if (ea && eb && args::same_value(ea->value, eb->value)) continue;
      ArgDifference d;
      d.flag = name;
      d.section = "environment";
      d.launch = launch;
      if (ea) {
        d.a = ea->value;
        d.line_a = ea->line;
      }
      if (eb) {
        d.b = eb->value;
        d.line_b = eb->line;
      }
      if (const EnvRule* rule = rules_.find_env(name)) {
        d.arg_class = rule->arg_class;
        d.reason = rule->reason;
      } else {
        d.arg_class = ArgClass::unclassified;
        d.reason = fmt::format("no env rule in {}: classify it before trusting this comparison", rules_.file);
      }
      if (ea && eb && (ea->unresolved || eb->unresolved)) {
        d.reason = "its value comes from outside the script (a variable the script does not set, or $(...))";
        out_.unresolved.push_back(std::move(d));
        continue;
      }
      out_.differences.push_back(std::move(d));
    }
  }

  void add_note(std::string note) {
    if (std::find(out_.notes.begin(), out_.notes.end(), note) == out_.notes.end()) out_.notes.push_back(std::move(note));
  }

 private:
  static std::vector<std::string> unique(const std::vector<std::string>& order) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const std::string& flag : order) {
      if (seen.insert(flag).second) out.push_back(flag);
    }
    return out;
  }
  static const Occurrences* find(const FlagMap& map, const std::string& flag) {
    const auto it = map.find(flag);
    return it == map.end() ? nullptr : &it->second;
  }
  static ArgDifference make(const std::string& flag, const Occurrences* oa, const Occurrences* ob,
                            const char* section, size_t launch) {
    ArgDifference d;
    d.flag = flag;
    d.section = section;
    d.launch = launch;
    if (oa) {
      d.a = display(*oa);
      d.line_a = oa->line;
      d.file_a = oa->file;
    }
    if (ob) {
      d.b = display(*ob);
      d.line_b = ob->line;
      d.file_b = ob->file;
    }
    return d;
  }

  const NumericsRules& rules_;
  ConfigDiff& out_;
  std::set<std::string> seen_flags_;
};

// The environment a launch runs with: the script's exports, then its own prefixes and runtime env.
std::vector<LaunchExport> launch_env(const LaunchArgs& script, const args::Launch* launch) {
  std::vector<LaunchExport> env = script.exports;
  if (launch) env.insert(env.end(), launch->env.begin(), launch->env.end());
  return env;
}

std::vector<LaunchArg> setup_args(const LaunchArgs& script, const std::string& launcher) {
  std::vector<LaunchArg> args;
  for (const args::Launch& s : script.setup) {
    if (!s.launchers.empty() && s.launchers.back() == launcher) args.insert(args.end(), s.launcher_args.begin(), s.launcher_args.end());
  }
  return args;
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
  out.launches_a = a.launches.size();
  out.launches_b = b.launches.size();
  Differ differ(rules, out);
  const size_t n = std::max(a.launches.size(), b.launches.size());
  if (n > 1) {
    differ.add_note(fmt::format("A has {} launch{} and B {}: compared launch by launch, in order", a.launches.size(),
                                a.launches.size() == 1 ? "" : "es", b.launches.size()));
  }
  for (size_t i = 0; i < n; ++i) {
    const args::Launch* la = i < a.launches.size() ? &a.launches[i] : nullptr;
    const args::Launch* lb = i < b.launches.size() ? &b.launches[i] : nullptr;
    const size_t index = n > 1 ? i + 1 : 0;
    if (!la || !lb) {
      ArgDifference d;
      d.flag = "(launch)";
      if (la) {
        d.a = la->command;
        d.line_a = la->line;
        d.file_a = la->file;
      }
      if (lb) {
        d.b = lb->command;
        d.line_b = lb->line;
        d.file_b = lb->file;
      }
      d.launch = i + 1;
      d.arg_class = ArgClass::unclassified;
      d.reason = "a launch one script has and the other does not";
      out.differences.push_back(std::move(d));
      continue;
    }
    if (la->entry != lb->entry) {
      ArgDifference d;
      d.flag = "(command)";
      d.a = la->command;
      d.b = lb->command;
      d.line_a = la->line;
      d.line_b = lb->line;
      d.file_a = la->file;
      d.file_b = lb->file;
      d.launch = index;
      d.arg_class = ArgClass::unclassified;
      d.reason = "the engine entry point differs; ladle has no rule for what that changes";
      out.differences.push_back(std::move(d));
    }
    differ.training(la->args, lb->args, index);
    const std::string chain_a = util::join(la->launchers, " > ");
    const std::string chain_b = util::join(lb->launchers, " > ");
    if (chain_a != chain_b) {
      ArgDifference d;
      d.flag = "(launchers)";
      d.a = chain_a.empty() ? "(none)" : chain_a;
      d.b = chain_b.empty() ? "(none)" : chain_b;
      d.section = "launcher";
      d.launch = index;
      d.arg_class = ArgClass::layout_only;
      d.reason = "another way to start the same entry point";
      out.differences.push_back(std::move(d));
    }
    differ.launcher(la->launcher_args, lb->launcher_args, index,
                    chain_a == chain_b && !chain_a.empty() ? chain_a : std::string("the launchers"));
    differ.environment(launch_env(a, la), launch_env(b, lb), index);
  }
  if (n == 0) differ.environment(launch_env(a, nullptr), launch_env(b, nullptr), 0);
  std::set<std::string> setup_launchers;
  for (const LaunchArgs* side : {&a, &b}) {
    for (const args::Launch& s : side->setup) {
      if (!s.launchers.empty()) setup_launchers.insert(s.launchers.back());
    }
  }
  for (const std::string& launcher : setup_launchers) {
    differ.launcher(setup_args(a, launcher), setup_args(b, launcher), 0, launcher);
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

namespace {

bool is_recipe_text(std::string_view text, const std::string& path) {
  return path.ends_with(".yaml") || path.ends_with(".yml") || text.starts_with("schema_version:") ||
         text.find("\nschema_version:") != std::string_view::npos;
}

}  // namespace

int launch_script_line_offset(std::string_view text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception&) {
    return 0;  // not YAML: a script, whose lines are the file's
  }
  if (!root.IsMap() || !root["run"] || !root["run"].IsScalar()) return 0;
  const YAML::Mark mark = root["run"].Mark();  // 0-based, at the block indicator or the string's start
  const std::vector<std::string> lines = util::split(std::string(text), '\n');
  if (mark.line < 0 || static_cast<size_t>(mark.line) >= lines.size()) return -1;
  const std::string& line = lines[static_cast<size_t>(mark.line)];
  const char first = static_cast<size_t>(mark.column) < line.size() ? line[static_cast<size_t>(mark.column)] : 0;
  if (first == '|') return mark.line + 1;
  if (first == '>') return -1;
  const bool one_line = root["run"].as<std::string>().find('\n') == std::string::npos;
  if (!one_line && (first == '"' || first == '\'')) return -1;
  (void)path;
  return one_line ? mark.line : -1;
}

void shift_script_lines(LaunchArgs& launch, int offset) {
  if (offset == 0) return;
  const auto shift = [offset](int& line) { line = offset < 0 || line <= 0 ? 0 : line + offset; };
  const auto shift_args = [&](std::vector<LaunchArg>& args) {
    for (LaunchArg& a : args) {
      if (a.file.empty()) shift(a.line);
    }
  };
  shift_args(launch.args);
  shift_args(launch.unset_overrides);
  for (LaunchExport& e : launch.exports) shift(e.line);
  for (auto* list : {&launch.launches, &launch.setup}) {
    for (auto& l : *list) {
      if (l.file.empty()) shift(l.line);
      shift_args(l.args);
      shift_args(l.launcher_args);
      for (LaunchExport& e : l.env) shift(e.line);
    }
  }
  for (auto& w : launch.run_time_words) shift(w.line);
}

std::string read_launch_script(const std::string& path) {
  const std::string text = util::read_file(path, limits::FileKind::launch_script);
  // A .yaml/.yml file or one that declares a schema_version is a recipe: broken YAML is an error
  // there, not a shell script to compare.
  const bool recipe = is_recipe_text(text, path);
  if (recipe) {
    // Read as every recipe is: one UTF-8 document whose aliases stay small.
    const YAML::Node root = util::load_yaml_document(text, path);
    if (root.IsMap() && root["run"] && root["run"].IsScalar()) return root["run"].as<std::string>();
    throw_input(SourceLocation{path, 1, 1, "run"}, "a recipe without a 'run' command to compare");
  }
  try {
    const YAML::Node root = YAML::Load(text);
    if (root.IsMap() && root["run"] && root["run"].IsScalar()) return root["run"].as<std::string>();
  } catch (const YAML::Exception&) {
    // Not YAML: a launch script.
  }
  return text;
}

}  // namespace ladle::verify
