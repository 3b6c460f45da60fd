#pragma once

namespace ladle::cli {

/// The command ran and the answer is yes (or there was nothing to judge).
constexpr int kExitOk = 0;
/// The command ran and the answer is no: a check found violations, a verification failed.
constexpr int kExitNo = 1;
/// The command could not run: bad usage, unreadable or invalid input.
constexpr int kExitError = 2;

}  // namespace ladle::cli
