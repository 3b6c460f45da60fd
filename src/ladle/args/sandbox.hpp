#pragma once
// sandbox.hpp: runs a user's launch script with the real bash inside bubblewrap, with stand-ins for
// every launcher and entry point that record how they were called (argv, working directory,
// environment, the script line that called them) and return success. Nothing the script does
// leaves the sandbox: the root is read-only, writes land in throwaway tmpfs mounts, there is no
// network, and a wall-time, memory and process limit stop it. script_reader.hpp turns the record
// into the launches the rest of ladle reads.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ladle::args {

/// How to run a script.
struct SandboxOptions {
  std::string script;                                       ///< the script, as the user named it
  std::vector<std::string> args;                            ///< its positional parameters ($1..$N)
  std::vector<std::pair<std::string, std::string>> env;     ///< what the cluster would set (--env)
  int gpus_per_node = 8;                                    ///< what the nvidia-smi stand-in lists
  double wall_seconds = 30;                                 ///< the wall-time limit
  uint64_t memory_bytes = uint64_t{4} << 30;                ///< address space of each process
  uint64_t processes = 512;                                 ///< processes of the sandbox's user
  /// Variables the script reads that nothing sets at plan time: each is set to its sentinel
  /// (unset_sentinel(name)). The kind of an input a ladle job declares (`need NAME dir`) makes the
  /// sentinel a folder ("dir"), an empty file ("file") or a data prefix with .bin and .idx
  /// ("prefix"), so the job's own checks pass; any other kind leaves nothing there.
  std::vector<std::pair<std::string, std::string>> unset;   ///< NAME, KIND
};

/// Where the sentinel paths of unset variables live inside the sandbox.
inline constexpr const char* kUnsetFolder = "/tmp/.ladle/unset/";

/// The value the sandbox gives an unset variable `name`: a path no script sets, which bash's
/// arithmetic refuses (a syntax error naming it) and which a word keeps whole.
inline std::string unset_sentinel(const std::string& name) { return kUnsetFolder + name; }

/// One recorded call of a stand-in (or of a command bash did not find).
struct RecordedCall {
  std::vector<std::string> argv;  ///< argv[0]: the program's name as called (no folder)
  std::string cwd;                ///< its working directory
  std::string file;               ///< the script file whose command called it (absolute); "" unknown
  int line = 0;                   ///< that command's first line
  std::vector<std::pair<std::string, std::string>> env;  ///< its environment, minus ladle's own
  int64_t order = 0;              ///< when it was called (ns), for the order of the calls
  bool piped = false;             ///< its standard output went to a pipe (`$(...)`, `| tee`)
};

/// What one run left.
struct Recording {
  bool started = false;  ///< the sandbox started (bash ran); false: `why_not` says why
  std::string why_not;
  int exit_code = 0;         ///< bash's exit status; 128 + signal when killed
  bool timed_out = false;    ///< stopped at the wall-time limit
  std::vector<RecordedCall> calls;    ///< every stand-in call, in order
  std::vector<RecordedCall> missing;  ///< commands bash did not find (a line of flags: a missing '\')
  std::vector<std::string> sources;   ///< script files bash read (absolute), in the order first read
  std::string stderr_text;            ///< bash's standard error (its own messages: `line N: ...`)
  /// The file and line of the last command the script's shell ran before it exited (an `exit 1`);
  /// empty when the script set its own EXIT trap.
  std::string exit_file;
  int exit_line = 0;
  /// The environment the sandbox started bash with: a call's environment minus this is what the
  /// script set.
  std::vector<std::pair<std::string, std::string>> initial_env;
};

/// The programs that have stand-ins, in the order the record lists them.
const std::vector<std::string>& stand_in_programs();

/// Runs `options.script` with bash in the sandbox and collects what it called. Never throws for
/// what the script does; Recording::started is false when bwrap is missing or cannot make its
/// namespaces (the caller falls back to reading the script without running it). The program run
/// as bwrap is /usr/bin/bwrap, or $LADLE_BWRAP when set (a test that the fallback works).
Recording run_sandboxed(const SandboxOptions& options);

}  // namespace ladle::args
