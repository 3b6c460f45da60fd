#pragma once
// The launch script of a recipe (`run:`), read as data: its export lines and the command-line
// arguments of the engine call, each with its line in the script.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/args/launch_args.hpp"

namespace ladle::args {

struct RunArg {
  std::string flag;                  ///< e.g. "--tensor-model-parallel-size"
  std::optional<std::string> value;  ///< the words after the flag up to the next flag, joined by spaces
  int line = 0;                      ///< 1-based line within the script
};

struct RunExport {
  std::string name;
  std::string value;  ///< after quote removal; `$(...)` and `${...}` kept as written
  int line = 0;
};

struct RunScript {
  std::vector<RunExport> exports;
  std::vector<RunArg> args;  ///< every `--flag [value]` of the script's commands, in order
  /// Whether the command line expands an array or variable into several words (e.g.
  /// "${MODEL_ARGS[@]}"): flags absent from the script may then still be passed.
  bool has_opaque_args = false;
  /// The launches' words that expand at run time into what ladle cannot read (LaunchArgs).
  std::vector<RunTimeWord> run_time_words;

  /// The first argument with this flag, or nullptr.
  const RunArg* find(std::string_view flag) const;
  /// Whether the flag appears.
  bool has(std::string_view flag) const { return find(flag) != nullptr; }
};

/// The launch script as parse_launch_args reads it, one value per flag: `export NAME=VALUE` lines
/// and every `--flag value` of the engine calls. Throws Error(input) as parse_launch_args does
/// (an unterminated quote or `$(`, a limit of the reader).
RunScript parse_run_script(std::string_view script, const std::string& path = "run");

}  // namespace ladle::args
