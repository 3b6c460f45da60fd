#pragma once
// script_reader.hpp: a launch script read as bash runs it. The script runs in the sandbox
// (sandbox.hpp); what its stand-ins recorded becomes the launches ladle reads everywhere else
// (args::LaunchArgs), unwrapped by the same reader that reads a script's text (ray job submit,
// torchrun, srun, ... down to the entry point), each argument placed at the file and line that
// wrote it where ladle can find it.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ladle/args/launch_args.hpp"

namespace ladle::args {

/// How `--script` runs a script.
struct ScriptOptions {
  std::vector<std::string> args;                         ///< --script-arg: $1..$N
  std::vector<std::pair<std::string, std::string>> env;  ///< --env KEY=VALUE
  int gpus_per_node = 8;                                 ///< what nvidia-smi lists inside
  double wall_seconds = 30;                              ///< --script-timeout
};

/// A script as bash ran it.
struct ScriptReading {
  args::LaunchArgs launch;       ///< every recorded training launch, in order
  std::vector<std::string> ran;    ///< every recorded call, "name args" (for messages), in order
  std::vector<std::string> sources;  ///< the files bash read, as ladle names them
  bool ran_bash = false;           ///< false: the sandbox could not start and `note` says so
  std::string note;                ///< one line for standard error when the static reader was used
  /// Lines for standard error: a stand-in whose output the script reads (`$(python3 x.py)`), which
  /// printed nothing where the real program prints something.
  std::vector<std::string> warnings;
};

/// Runs `path` with bash in the sandbox and reads its launches. Throws Error(input) at the file
/// and line for: a file that does not exist or is not a shell script; a script that stops
/// (exits non-zero, an unbound `set -u` variable, `${1:?}`) before any launch; a line of flags
/// that bash runs as a command of its own (a missing '\'); a script that runs past the time
/// limit; a script that launches no training entry point (naming what bash ran). Where the
/// sandbox cannot start, reads the script's text instead (ran_bash false, `note` set).
ScriptReading read_script(const std::string& path, const ScriptOptions& options);

/// The launch `n` (1-based) of `all`, alone: its arguments, the script's exports and setup. Without
/// `n`, the only launch, or the first when every launch passes the same arguments; several that
/// differ are an error listing them (Error(usage): pick one with --launch N).
args::LaunchArgs select_launch(const args::LaunchArgs& all, std::optional<size_t> n, const std::string& path);

}  // namespace ladle::args
