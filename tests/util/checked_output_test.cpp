#include "ladle/util/checked_output.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <string>

#include "ladle/util/file_io.hpp"

namespace ladle::util {
namespace {

TEST(CheckedOutput, WritesEverythingToItsDescriptor) {
  const std::string path = (std::filesystem::temp_directory_path() / "ladle_checked_output_test.txt").string();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  std::string expected;
  {
    CheckedOutput buffer(fd);
    std::ostream out(&buffer);
    // More than one block, in pieces and as single characters.
    for (int i = 0; i < 2000; ++i) {
      out << "line " << i << '\n';
      expected += "line " + std::to_string(i) + "\n";
    }
    EXPECT_TRUE(buffer.finish());
    EXPECT_EQ(buffer.error(), 0);
  }
  ::close(fd);
  EXPECT_EQ(read_file(path), expected);
  std::filesystem::remove(path);
}

TEST(CheckedOutput, ReportsAFullDeviceWithItsErrno) {
  const int fd = ::open("/dev/full", O_WRONLY);
  if (fd < 0) GTEST_SKIP() << "no /dev/full";
  CheckedOutput buffer(fd);
  std::ostream out(&buffer);
  out << "lost\n";
  EXPECT_FALSE(buffer.finish());
  EXPECT_EQ(buffer.error(), ENOSPC);
  ::close(fd);
}

TEST(CheckedOutput, KeepsTheFirstErrorWhateverErrnoSaysLater) {
  const int fd = ::open("/dev/full", O_WRONLY);
  if (fd < 0) GTEST_SKIP() << "no /dev/full";
  CheckedOutput buffer(fd);
  std::ostream out(&buffer);
  // A block's worth fails while the command is still printing; the rest is dropped.
  out << std::string(20000, 'x');
  EXPECT_FALSE(out.good());
  out << "more\n";
  errno = ENOENT;
  EXPECT_FALSE(buffer.finish());
  EXPECT_EQ(buffer.error(), ENOSPC);
  ::close(fd);
}

}  // namespace
}  // namespace ladle::util
