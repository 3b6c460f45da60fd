#pragma once
// Shared helpers for ladle's unit tests.

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "ladle/util/error.hpp"

/// Expects `statement` to throw ladle::Error of `error_kind` whose one-line description contains
/// `substring`.
#define EXPECT_LADLE_ERROR(statement, error_kind, substring)                                   \
  do {                                                                                          \
    try {                                                                                       \
      statement;                                                                                \
      ADD_FAILURE() << "expected ladle::Error containing '" << (substring) << "', got nothing"; \
    } catch (const ::ladle::Error& e) {                                                         \
      EXPECT_EQ(e.kind(), ::ladle::ErrorKind::error_kind) << e.describe();                      \
      EXPECT_NE(e.describe().find(substring), std::string::npos) << e.describe();               \
    }                                                                                           \
  } while (0)

namespace ladle::test {

/// A fresh temporary folder, removed when the guard goes out of scope.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("ladle-test-" + std::to_string(rd()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// Path of a file in the source tree, e.g. source_path("tests/data/recipe/x.yaml").
inline std::string source_path(const std::string& relative) {
  return std::string(LADLE_SOURCE_DIR) + "/" + relative;
}

}  // namespace ladle::test
