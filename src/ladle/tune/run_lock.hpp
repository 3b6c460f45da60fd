#pragma once
// run_lock.hpp: one writer per tuning run. `ladle tune` and `tune resume` hold an exclusive
// flock(2) on DIR/tune.lock for as long as they run; the file names the holder (pid and host), so
// a second writer is refused in one line saying who holds the run. The kernel drops the lock when
// its holder dies, however it dies, so a killed run can always be resumed.

#include <string>

namespace ladle::tune {

/// The held lock of one run folder; released on destruction.
class RunLock {
 public:
  /// Takes the lock on `folder` (which must exist), without waiting. Throws Error(usage) naming
  /// the holder's pid and host when another process holds it, Error(io) when the lock file cannot
  /// be opened.
  static RunLock acquire(const std::string& folder);

  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();

 private:
  explicit RunLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

/// The name of the lock file in a run folder.
inline constexpr const char* kRunLockFile = "tune.lock";

}  // namespace ladle::tune
