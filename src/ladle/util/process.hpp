#pragma once
// process.hpp: ladle's one way to run a program (no shell) and collect its exit status and
// output, with the limits a caller may need: a wall time after which the program's whole process
// group is killed, resource limits of the child (address space, processes, file size, CPU time),
// and a cap on the output kept. The scheduler back-ends (sched/process.hpp) drive sbatch, squeue,
// ... with it, and --script's sandbox (args/sandbox.hpp) runs bwrap with it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ladle::util {

/// How to run a command; every limit 0 is none (the child inherits ladle's).
struct CommandOptions {
  /// Seconds of wall time; past it the child's process group (it runs in a group of its own) gets
  /// SIGKILL, and CommandResult::timed_out says so.
  double timeout_s = 0;
  uint64_t address_space_bytes = 0;  ///< RLIMIT_AS of the child
  uint64_t processes = 0;            ///< RLIMIT_NPROC: processes of the child's user
  uint64_t file_bytes = 0;           ///< RLIMIT_FSIZE: bytes one file it writes may have
  uint64_t cpu_seconds = 0;          ///< RLIMIT_CPU
  size_t max_output_bytes = 0;       ///< of standard output and of standard error each kept (the rest read and dropped)
};

/// What a finished command left.
struct CommandResult {
  int exit_code = 0;  ///< the exit status; 128 + signal when killed; 127 when it could not start
  std::string out;    ///< standard output
  std::string err;    ///< standard error
  bool timed_out = false;  ///< killed at CommandOptions::timeout_s
  bool operator==(const CommandResult&) const = default;
};

/// Runs argv[0] (looked up in PATH) with the arguments, standard input empty, and waits for it
/// (at most options.timeout_s when set). Never throws for a failing command; a program that
/// cannot be started gives exit code 127.
CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options = {});

/// The full path of `program` in PATH (or `program` itself when it holds a '/' and is
/// executable), or "" when there is none.
std::string find_program(std::string_view program);

}  // namespace ladle::util
