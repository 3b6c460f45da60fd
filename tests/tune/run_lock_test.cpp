// Tests of the one-writer lock of a tuning run.
#include "ladle/tune/run_lock.hpp"

#include <unistd.h>

#include <array>

#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::tune {
namespace {

TEST(RunLock, ASecondWriterIsRefusedNamingTheHolderUntilItLetsGo) {
  test::TempDir dir;
  std::array<char, 256> host{};
  ::gethostname(host.data(), host.size() - 1);
  const std::string holder = fmt::format("pid {} on {}", ::getpid(), host.data());
  {
    const RunLock first = RunLock::acquire(dir.path().string());
    EXPECT_EQ(util::read_file(dir.file(kRunLockFile)), holder + "\n");
    // flock(2) conflicts between two opens of the file, in one process as between two.
    EXPECT_LADLE_ERROR(RunLock::acquire(dir.path().string()), usage,
                       dir.path().string() + " is in use by " + holder);
  }
  EXPECT_NO_THROW(RunLock::acquire(dir.path().string()));
}

}  // namespace
}  // namespace ladle::tune
