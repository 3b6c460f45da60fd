#pragma once
// numerics_rules.hpp: the argument classes of data/rules/numerics.yaml, which say what a change of
// a launch argument can do to the numerics of training.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ladle::args {

/// How much a changed argument can change the numerics, from least to most severe; spelled as in
/// data/rules/numerics.yaml.
enum class ArgClass { layout_only, reduction_order_only, precision_changing, math_changing, unclassified };

/// The YAML spelling of a class.
std::string to_string(ArgClass arg_class);

/// Parses a class name; nullopt when it is not one.
std::optional<ArgClass> parse_arg_class(std::string_view name);

/// One rule: the flags it covers and their class.
struct NumericsRule {
  std::vector<std::string> flags;  ///< exact flags, or prefixes ending in '*'
  ArgClass arg_class = ArgClass::unclassified;
  std::map<std::string, ArgClass> values;  ///< a class for particular values
  std::optional<std::string> default_value;  ///< what the engine uses when the flag is absent
  std::string reason;
  std::string source;  ///< an id of NumericsRules::sources
  int line = 0;        ///< line of the rule in its file
  bool operator==(const NumericsRule&) const = default;
};

/// One rule for environment variables: the names it covers and their class.
struct EnvRule {
  std::vector<std::string> names;  ///< exact names, or patterns with one '*' (prefix* or *suffix)
  ArgClass arg_class = ArgClass::unclassified;
  std::string reason;
  std::string source;
  int line = 0;
  bool operator==(const EnvRule&) const = default;
};

/// The whole rules file.
struct NumericsRules {
  std::map<ArgClass, std::string> verdicts;      ///< class -> verdict words
  std::map<ArgClass, std::string> descriptions;  ///< class -> what it covers
  std::map<std::string, std::string> sources;    ///< id -> reference
  std::vector<NumericsRule> rules;
  std::vector<EnvRule> env;  ///< classes of environment variables
  /// flag -> the value Megatron-LM, slime or miles uses when the flag is absent (`defaults:`).
  std::map<std::string, std::string> defaults;
  std::string file;

  /// The rule covering `flag` (exact match first, then the longest prefix), or nullptr.
  const NumericsRule* find(std::string_view flag) const;
  /// The rule covering environment variable `name` (exact first, then the longest pattern), or nullptr.
  const EnvRule* find_env(std::string_view name) const;
  /// The engine's default of `flag`, or nullopt when the rules file names none.
  std::optional<std::string> default_of(std::string_view flag) const;
  bool operator==(const NumericsRules&) const = default;
};

/// Whether two argument values mean the same: equal text, equal numbers (1e-5 and 0.00001), or the
/// same path spelt with redundant slashes.
bool same_value(std::string_view a, std::string_view b);

/// Parses a rules file in the format of data/rules/numerics.yaml. Throws Error(input) at
/// file:line:col for a missing key, an unknown class, a rule without flags or reason, a source id
/// not in `sources`, or a flag (or variable, or default) ruled twice.
NumericsRules parse_numerics_rules(std::string_view yaml, const std::string& file);

/// The embedded data/rules/numerics.yaml.
const NumericsRules& default_numerics_rules();

}  // namespace ladle::args
