#pragma once
// exit_code.hpp: the one meaning of each exit code, for every command.

namespace ladle::cli {

/// The command ran and the answer is yes, or it did what was asked (wrote, listed, printed).
constexpr int kExitOk = 0;
/// The command ran and the answer is no: a rule is broken, a check or verification failed, a
/// score is below its bar, nothing fits, nothing matches.
constexpr int kExitNo = 1;
/// The command could not run: bad usage, unreadable or invalid input, an unknown name.
constexpr int kExitError = 2;

}  // namespace ladle::cli
