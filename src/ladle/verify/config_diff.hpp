#pragma once
// config_diff.hpp: which launch-argument differences between two runs can change the numerics,
// by the argument classes of data/rules/numerics.yaml.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/args/launch_args.hpp"
#include "ladle/verify/numerics_rules.hpp"

namespace ladle::verify {

using args::LaunchArg;
using args::LaunchArgs;
using args::LaunchExport;
using args::parse_launch_args;

/// One argument that differs between A and B.
struct ArgDifference {
  std::string flag;              ///< "--lr", "${MODEL_ARGS[@]}", "(command)", or a variable name
  std::optional<std::string> a;  ///< as written in A ("(set)" for a switch), nullopt when absent
  std::optional<std::string> b;
  ArgClass arg_class = ArgClass::unclassified;
  std::string reason;
  int line_a = 0;  ///< first line of the flag in A's script, 0 when absent
  int line_b = 0;
  /// The file of line_a (line_b) when it is not A's (B's) script itself: a file the script
  /// sources or runs (ladle diff runs the scripts with bash); empty otherwise.
  std::string file_a;
  std::string file_b;
  std::string section = "training";  ///< training (the entry point's) | launcher | environment
  size_t launch = 0;                 ///< the 1-based launch it belongs to; 0 for the whole script
  bool operator==(const ArgDifference&) const = default;
};

/// The result of `ladle diff`.
struct ConfigDiff {
  std::string a_path;
  std::string b_path;
  size_t flags_compared = 0;  ///< distinct flags in A and B together
  std::vector<ArgDifference> differences;
  /// Arguments whose value comes from outside a script ($HF_CKPT, $(...), a variable set in a
  /// branch): shown, never counted as a difference. `arg_class` is the flag's class.
  std::vector<ArgDifference> unresolved;
  size_t launches_a = 0;  ///< training launches in A
  size_t launches_b = 0;
  std::vector<std::string> notes;
  std::optional<ArgClass> worst;  ///< the most severe class among the differences
  std::string configuration;      ///< for correctness.configuration: pass | fail | pending
  std::string verdict;            ///< in words, from the rules file
  bool operator==(const ConfigDiff&) const = default;
};

/// Compares two scripts launch by launch (the first launch of A with the first of B, ...): the
/// entry point, its arguments flag by flag (every value and repetition; a flag absent on one side
/// differs unless the other gives the engine's default; numbers and paths compare by value), the
/// launchers' arguments (layout_only: they start processes, they do not compute) and the
/// environment (exports, then the launch's prefixes and runtime-env vars, classified by the rules'
/// `env`). A training difference gets its rule's class (an unknown flag: unclassified); values the
/// script takes from outside go to `unresolved`. The configuration fails on any math_changing or
/// unclassified difference, is pending (needs a component test) on a precision change, and passes
/// otherwise.
ConfigDiff diff_launch_args(const LaunchArgs& a, const LaunchArgs& b, const NumericsRules& rules,
                            const std::string& a_path, const std::string& b_path);

/// What to add to a line of `path`'s launch script (read_launch_script of its text) to make it a
/// line of the file: 0 for a script; for a recipe, the lines before its `run:` text (a literal
/// block `|` starts on the line after the key, a one-line string on the key's); -1 when its lines
/// are not the file's (a folded block `>`, a quoted string over several lines).
int launch_script_line_offset(std::string_view text, const std::string& path);

/// Adds `offset` to every line of `launch` that is a line of the script read (not of a file it
/// sources or runs); an offset of -1 clears them (0: not known).
void shift_script_lines(LaunchArgs& launch, int offset);

/// The `run:` block of a recipe file, or the whole file when it is not a YAML mapping with `run`
/// (a launch script). Throws Error(io) when the file cannot be read.
std::string read_launch_script(const std::string& path);

}  // namespace ladle::verify
