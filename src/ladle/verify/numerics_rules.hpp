#pragma once
// numerics_rules.hpp: the argument classes of data/rules/numerics.yaml, which say what a change of
// a launch argument can do to the numerics of training.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ladle::verify {

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

/// The whole rules file.
struct NumericsRules {
  std::map<ArgClass, std::string> verdicts;      ///< class -> verdict words
  std::map<ArgClass, std::string> descriptions;  ///< class -> what it covers
  std::map<std::string, std::string> sources;    ///< id -> reference
  std::vector<NumericsRule> rules;
  std::string file;

  /// The rule covering `flag` (exact match first, then the longest prefix), or nullptr.
  const NumericsRule* find(std::string_view flag) const;
  bool operator==(const NumericsRules&) const = default;
};

/// Parses a rules file in the format of data/rules/numerics.yaml. Throws Error(input) at
/// file:line:col for a missing key, an unknown class, a rule without flags or reason, a source id
/// not in `sources`, or a flag ruled twice.
NumericsRules parse_numerics_rules(std::string_view yaml, const std::string& file);

/// The embedded data/rules/numerics.yaml.
const NumericsRules& default_numerics_rules();

}  // namespace ladle::verify
