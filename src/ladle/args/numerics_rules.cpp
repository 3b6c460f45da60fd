#include "ladle/args/numerics_rules.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <set>
#include <utility>

#include "ladle/args/bridge_args.hpp"
#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::args {

namespace {

constexpr const char* kRulesFile = "data/rules/numerics.yaml";

constexpr std::array<std::pair<ArgClass, const char*>, 5> kClassNames = {{
    {ArgClass::layout_only, "layout_only"},
    {ArgClass::reduction_order_only, "reduction_order_only"},
    {ArgClass::precision_changing, "precision_changing"},
    {ArgClass::math_changing, "math_changing"},
    {ArgClass::unclassified, "unclassified"},
}};

SourceLocation where(const std::string& file, const YAML::Node& node, const std::string& field) {
  return SourceLocation{file, node.Mark().line + 1, node.Mark().column + 1, field};
}

ArgClass class_of(const YAML::Node& node, const std::string& file, const std::string& field) {
  const auto parsed = node.IsScalar() ? parse_arg_class(node.as<std::string>()) : std::nullopt;
  if (!parsed || *parsed == ArgClass::unclassified) {
    std::vector<std::string> names;
    for (const auto& [value, name] : kClassNames) {
      if (value != ArgClass::unclassified) names.emplace_back(name);
    }
    throw_input(where(file, node, field), "'{}' is not a class{}; known: {}",
                node.IsScalar() ? node.as<std::string>() : "", util::did_you_mean(node.IsScalar() ? node.as<std::string>() : "", names),
                util::join(names, ", "));
  }
  return *parsed;
}

}  // namespace

std::string to_string(ArgClass arg_class) {
  for (const auto& [value, name] : kClassNames) {
    if (value == arg_class) return name;
  }
  LADLE_ASSERT(false, "every ArgClass has a name");
  return "";
}

std::optional<ArgClass> parse_arg_class(std::string_view name) {
  for (const auto& [value, text] : kClassNames) {
    if (name == text) return value;
  }
  return std::nullopt;
}

const NumericsRule* NumericsRules::find(std::string_view flag) const {
  const NumericsRule* best = nullptr;
  size_t best_prefix = 0;
  for (const NumericsRule& rule : rules) {
    for (const std::string& pattern : rule.flags) {
      if (pattern == flag) return &rule;
      if (!pattern.empty() && pattern.back() == '*') {
        const std::string_view prefix(pattern.data(), pattern.size() - 1);
        if (flag.substr(0, prefix.size()) == prefix && prefix.size() > best_prefix) {
          best = &rule;
          best_prefix = prefix.size();
        }
      }
    }
  }
  return best;
}

const EnvRule* NumericsRules::find_env(std::string_view name) const {
  const EnvRule* best = nullptr;
  size_t best_len = 0;
  for (const EnvRule& rule : env) {
    for (const std::string& pattern : rule.names) {
      if (pattern == name) return &rule;
      const size_t star = pattern.find('*');
      if (star == std::string::npos) continue;
      const std::string_view head(pattern.data(), star);
      const std::string_view tail(pattern.data() + star + 1, pattern.size() - star - 1);
      if (name.size() >= head.size() + tail.size() && name.substr(0, head.size()) == head &&
          name.substr(name.size() - tail.size()) == tail && head.size() + tail.size() >= best_len) {
        best = &rule;
        best_len = head.size() + tail.size();
      }
    }
  }
  return best;
}

std::optional<std::string> NumericsRules::default_of(std::string_view flag) const {
  const auto it = defaults.find(std::string(flag));
  if (it == defaults.end()) return std::nullopt;
  return it->second;
}

namespace {

std::optional<double> number(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const std::string s(text);
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string normal_path(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out += c;
  }
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  if (out.rfind("./", 0) == 0 && out.size() > 2) out = out.substr(2);
  return out;
}

}  // namespace

bool same_value(std::string_view a, std::string_view b) {
  if (a == b) return true;
  const auto x = number(a);
  const auto y = number(b);
  if (x && y) return *x == *y;
  if (a.find('/') != std::string_view::npos || b.find('/') != std::string_view::npos) {
    return normal_path(a) == normal_path(b);
  }
  return false;
}

NumericsRules parse_numerics_rules(std::string_view yaml, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    throw_input(SourceLocation{file, e.mark.line + 1, e.mark.column + 1, ""}, "{}", e.msg);
  }
  NumericsRules out;
  out.file = file;
  for (const char* key : {"classes", "sources", "rules"}) {
    if (!root[key]) throw_input(SourceLocation{file, 1, 1, key}, "missing (required)");
  }
  for (const auto& entry : root["classes"]) {
    const std::string name = entry.first.as<std::string>();
    const ArgClass arg_class = class_of(entry.first, file, "classes");
    if (!entry.second["verdict"] || !entry.second["description"]) {
      throw_input(where(file, entry.second, "classes." + name), "needs a verdict and a description");
    }
    out.verdicts[arg_class] = entry.second["verdict"].as<std::string>();
    out.descriptions[arg_class] = entry.second["description"].as<std::string>();
  }
  for (const auto& entry : root["sources"]) out.sources[entry.first.as<std::string>()] = entry.second.as<std::string>();
  std::set<std::string> seen;
  size_t index = 0;
  for (const auto& node : root["rules"]) {
    const std::string field = fmt::format("rules[{}]", index++);
    NumericsRule rule;
    rule.line = node.Mark().line + 1;
    if (!node["flags"] || !node["flags"].IsSequence() || node["flags"].size() == 0) {
      throw_input(where(file, node, field + ".flags"), "missing: a list of flags");
    }
    for (const auto& flag : node["flags"]) {
      const std::string text = flag.as<std::string>();
      // A Megatron-LM flag, or the key of a Megatron-Bridge override that stands for no flag (a
      // Megatron-Core config field: model.activation_func_fp8_input_store).
      if (text.rfind("--", 0) != 0 && !is_bridge_override(text + "=true")) {
        throw_input(where(file, flag, field + ".flags"),
                    "'{}' does not start with -- and is no Megatron-Bridge override key", text);
      }
      if (!seen.insert(text).second) throw_input(where(file, flag, field + ".flags"), "'{}' is ruled twice", text);
      rule.flags.push_back(text);
    }
    if (!node["class"]) throw_input(where(file, node, field + ".class"), "missing (required)");
    rule.arg_class = class_of(node["class"], file, field + ".class");
    if (node["values"]) {
      for (const auto& entry : node["values"]) {
        rule.values[entry.first.as<std::string>()] = class_of(entry.second, file, field + ".values");
      }
    }
    if (node["default"]) rule.default_value = node["default"].as<std::string>();
    if (!node["reason"] || node["reason"].as<std::string>().empty()) {
      throw_input(where(file, node, field + ".reason"), "missing: every rule says why");
    }
    rule.reason = node["reason"].as<std::string>();
    if (!node["source"]) throw_input(where(file, node, field + ".source"), "missing (required)");
    rule.source = node["source"].as<std::string>();
    if (!out.sources.count(rule.source)) {
      throw_input(where(file, node["source"], field + ".source"), "'{}' is not an id of sources", rule.source);
    }
    out.rules.push_back(std::move(rule));
  }
  std::set<std::string> env_seen;
  index = 0;
  for (const auto& node : root["env"]) {
    const std::string field = fmt::format("env[{}]", index++);
    EnvRule rule;
    rule.line = node.Mark().line + 1;
    if (!node["names"] || !node["names"].IsSequence() || node["names"].size() == 0) {
      throw_input(where(file, node, field + ".names"), "missing: a list of variable names");
    }
    for (const auto& name : node["names"]) {
      const std::string text = name.as<std::string>();
      if (text.find('*') != text.rfind('*')) throw_input(where(file, name, field + ".names"), "'{}' has more than one *", text);
      if (!env_seen.insert(text).second) throw_input(where(file, name, field + ".names"), "'{}' is ruled twice", text);
      rule.names.push_back(text);
    }
    if (!node["class"]) throw_input(where(file, node, field + ".class"), "missing (required)");
    rule.arg_class = class_of(node["class"], file, field + ".class");
    if (!node["reason"] || node["reason"].as<std::string>().empty()) {
      throw_input(where(file, node, field + ".reason"), "missing: every rule says why");
    }
    rule.reason = node["reason"].as<std::string>();
    if (!node["source"] || !out.sources.count(node["source"].as<std::string>())) {
      throw_input(where(file, node["source"] ? node["source"] : node, field + ".source"), "needs an id of sources");
    }
    rule.source = node["source"].as<std::string>();
    out.env.push_back(std::move(rule));
  }
  for (const auto& group : root["defaults"]) {
    const std::string source = group.first.as<std::string>();
    if (!out.sources.count(source)) {
      throw_input(where(file, group.first, "defaults"), "'{}' is not an id of sources", source);
    }
    for (const auto& entry : group.second) {
      const std::string flag = entry.first.as<std::string>();
      if (flag.rfind("--", 0) != 0) throw_input(where(file, entry.first, "defaults." + source), "'{}' does not start with --", flag);
      if (!out.defaults.emplace(flag, entry.second.as<std::string>()).second) {
        throw_input(where(file, entry.first, "defaults." + source), "'{}' has two defaults", flag);
      }
    }
  }
  return out;
}

const NumericsRules& default_numerics_rules() {
  static const NumericsRules rules = [] {
    const auto text = util::find_embedded(kRulesFile);
    LADLE_ASSERT(text.has_value(), "data/rules/numerics.yaml is embedded");
    return parse_numerics_rules(*text, kRulesFile);
  }();
  return rules;
}

}  // namespace ladle::args
