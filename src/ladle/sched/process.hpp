#pragma once
// process.hpp: runs a program (no shell) and collects its exit status and output, for the
// scheduler back-ends that drive command-line tools (sbatch, squeue, scontrol, sacct, scancel).
// The runner is util/process.hpp's, which --script's sandbox uses as well (one process runner).

#include <string>
#include <string_view>

#include "ladle/util/process.hpp"

namespace ladle::sched {

using util::CommandOptions;
using util::CommandResult;
using util::find_program;
using util::run_command;

/// `text` quoted as one word for any POSIX shell: util::shell_quote with ShellQuoting::posix ('...'
/// with embedded quotes escaped; a newline kept inside, which /bin/sh reads as bash does).
std::string shell_quote(std::string_view text);

}  // namespace ladle::sched
