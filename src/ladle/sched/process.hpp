#pragma once
// process.hpp: runs a program (no shell) and collects its exit status and output, for the
// scheduler back-ends that drive command-line tools (sbatch, squeue, scontrol, sacct, scancel).

#include <string>
#include <string_view>
#include <vector>

namespace ladle::sched {

/// What a finished command left.
struct CommandResult {
  int exit_code = 0;  ///< the exit status; 128 + signal when killed; 127 when it could not start
  std::string out;    ///< standard output
  std::string err;    ///< standard error
  bool operator==(const CommandResult&) const = default;
};

/// Runs argv[0] (looked up in PATH) with the arguments, standard input empty, and waits for it.
/// Never throws for a failing command; a program that cannot be started gives exit code 127.
CommandResult run_command(const std::vector<std::string>& argv);

/// The full path of `program` in PATH (or `program` itself when it holds a '/' and is
/// executable), or "" when there is none.
std::string find_program(std::string_view program);

/// `text` quoted as one word for any POSIX shell: util::shell_quote with ShellQuoting::posix ('...'
/// with embedded quotes escaped; a newline kept inside, which /bin/sh reads as bash does).
std::string shell_quote(std::string_view text);

}  // namespace ladle::sched
