#pragma once
// launch_args.hpp: the exports and command-line arguments of a launch script (or a recipe's `run:`
// block), read as bash would split them: every value of a flag, every repetition, `--flag=value`
// spellings and `${ARRAY[@]}` expansions as named placeholders. `ladle diff` compares two of them;
// run_script.hpp gives the rules their one-value-per-flag view of the same reading.

#include <string>
#include <string_view>
#include <vector>

namespace ladle::recipe {

/// One argument of an engine call.
struct LaunchArg {
  std::string flag;                 ///< "--lr", or the placeholder itself ("${MODEL_ARGS[@]}")
  std::vector<std::string> values;  ///< words after the flag up to the next flag; empty for a switch
  bool placeholder = false;         ///< an array expansion whose words ladle cannot see
  int line = 0;                     ///< 1-based line of the flag in the script
  size_t command = 0;               ///< index of its engine call in LaunchArgs::commands
  bool operator==(const LaunchArg&) const = default;
};

/// One `export NAME=VALUE` of the script.
struct LaunchExport {
  std::string name;
  std::string value;  ///< after quote removal; `$(...)` and `${...}` kept as written
  int line = 0;
  bool operator==(const LaunchExport&) const = default;
};

/// The engine calls of a script: each command that passes a `--flag` (or an array expansion).
struct LaunchArgs {
  std::vector<std::string> commands;  ///< the words before each call's first flag, joined by spaces
  std::vector<LaunchArg> args;        ///< every call's arguments, in order
  std::vector<LaunchExport> exports;  ///< the export lines, in order
  bool operator==(const LaunchArgs&) const = default;
};

/// Splits `script` like bash: backslash-newline continuations, single and double quotes (removed),
/// `$(...)` and `${...}` kept whole, comments, and `;`, `&&`, `||`, `|` between commands. Commands
/// that are builtins (export, read, echo, cd, set, source, if/for/while ...) are skipped. Throws
/// Error(input) at file:line for an unterminated quote or `$(`.
LaunchArgs parse_launch_args(std::string_view script, const std::string& path);

}  // namespace ladle::recipe
