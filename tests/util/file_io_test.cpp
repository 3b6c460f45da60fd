#include "ladle/util/file_io.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "ladle/util/embedded.hpp"
#include "ladle/util/sha256.hpp"
#include "support/test_support.hpp"

namespace ladle::util {
namespace {

TEST(FileIo, AtomicWriteReplacesTheFileAndLeavesNoTemporary) {
  test::TempDir dir;
  const std::string path = dir.file("out.txt");
  write_file_atomic(path, "first");
  write_file_atomic(path, "second");
  EXPECT_EQ(read_file(path), "second");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(FileIo, MissingFileAndFolderAreIoErrorsNamingThePath) {
  test::TempDir dir;
  EXPECT_LADLE_ERROR(read_file(dir.file("nope.yaml")), io, "nope.yaml: error: cannot open");
  EXPECT_LADLE_ERROR(read_file(dir.path().string()), io, "is a folder");
  EXPECT_LADLE_ERROR(write_file_atomic(dir.file("no/such/dir/x"), "x"), io, "cannot create");
}

TEST(Sha256, MatchesKnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256 incremental;
  incremental.update("a");
  incremental.update("bc");
  EXPECT_EQ(incremental.hex_digest(), sha256_hex("abc"));
}

TEST(Embedded, HoldsTheSourceTreesDataByteForByte) {
  const auto files = embedded_files();
  ASSERT_FALSE(files.empty());
  for (const EmbeddedFile& f : files) {
    EXPECT_EQ(read_file(test::source_path(std::string(f.path))), f.bytes) << f.path;
    EXPECT_EQ(find_embedded(f.path), f.bytes);
  }
  EXPECT_EQ(find_embedded("data/not-there"), std::nullopt);
}

}  // namespace
}  // namespace ladle::util
