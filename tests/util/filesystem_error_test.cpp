#include "ladle/util/filesystem_error.hpp"

#include <gtest/gtest.h>

#include <system_error>

namespace ladle::util {
namespace {

TEST(FilesystemError, NamesThePathFirstOnOneLine) {
  const std::filesystem::filesystem_error e("directory iterator cannot open directory", "recipes/locked",
                                            std::make_error_code(std::errc::permission_denied));
  EXPECT_EQ(describe_filesystem_error(e), "recipes/locked: directory iterator cannot open directory: Permission denied");
}

TEST(FilesystemError, NamesBothPathsOfATwoPathOperation) {
  const std::filesystem::filesystem_error e("cannot rename", "a.yaml", "b/a.yaml",
                                            std::make_error_code(std::errc::cross_device_link));
  EXPECT_EQ(describe_filesystem_error(e), "a.yaml, b/a.yaml: cannot rename: Invalid cross-device link");
}

TEST(FilesystemError, EscapesControlCharactersInPaths) {
  const std::filesystem::filesystem_error e("status", "x\x1b[2J\ny",
                                            std::make_error_code(std::errc::too_many_symbolic_link_levels));
  EXPECT_EQ(describe_filesystem_error(e), "x\\x1b[2J\\ny: status: Too many levels of symbolic links");
}

TEST(FilesystemError, KeepsTheMessageWithoutPaths) {
  const std::filesystem::filesystem_error e("space", std::make_error_code(std::errc::io_error));
  EXPECT_EQ(describe_filesystem_error(e), "space: Input/output error");
}

}  // namespace
}  // namespace ladle::util
