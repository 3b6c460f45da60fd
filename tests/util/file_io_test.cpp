#include "ladle/util/file_io.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "ladle/util/embedded.hpp"
#include "ladle/util/output_dir.hpp"
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

TEST(FileIo, OnlyRegularFilesWithinTheLimitOfTheirKindAreRead) {
  test::TempDir dir;
  EXPECT_LADLE_ERROR(read_file("/dev/zero"), io, "/dev/zero: error: is a character device, expected a regular file");
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_LADLE_ERROR(read_file(fifo), io, "is a FIFO, expected a regular file");  // and does not block
  EXPECT_LADLE_ERROR(LineReader{fifo}, io, "is a FIFO");
  const std::string big = dir.file("config.json");
  {
    std::ofstream out(big);
    out << "{}";
  }
  std::filesystem::resize_file(big, limits::kMaxModelConfigBytes + 1);
  EXPECT_LADLE_ERROR(read_file(big, limits::FileKind::model_config), io,
                     "16777217 bytes is more than the 16777216 bytes allowed for a model config.json");
  EXPECT_EQ(check_input_file(big, limits::FileKind::any), limits::kMaxModelConfigBytes + 1);
}

TEST(FileIo, LineReaderStreamsLinesWithAndWithoutAFinalNewline) {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 300000; ++i) text += "line " + std::to_string(i) + "\n";
  text += "last";
  write_file_atomic(dir.file("log"), text);
  LineReader reader(dir.file("log"));
  std::string_view line;
  int n = 0;
  while (reader.next(line)) {
    if (n < 300000) {
      ASSERT_EQ(line, "line " + std::to_string(n));
    }
    ++n;
  }
  EXPECT_EQ(n, 300001);
  EXPECT_EQ(line, "last");
  EXPECT_EQ(reader.line_number(), 300001);
}

TEST(FileIo, AtomicWriteKeepsTheModeAndWritesThroughASymlink) {
  test::TempDir dir;
  const std::string path = dir.file("secret.yaml");
  write_file_atomic(path, "first");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  write_file_atomic(path, "second");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  std::filesystem::create_directories(dir.file("real"));
  write_file_atomic(dir.file("real/r.yaml"), "old");
  std::filesystem::create_symlink("real/r.yaml", dir.file("link.yaml"));
  write_file_atomic(dir.file("link.yaml"), "new");
  EXPECT_TRUE(std::filesystem::is_symlink(dir.file("link.yaml")));
  EXPECT_EQ(read_file(dir.file("real/r.yaml")), "new");
}

TEST(FileIo, AtomicWriteRemovesTheTemporariesOfAKilledWriteButNothingElse) {
  test::TempDir dir;
  const std::string path = dir.file("r.yaml");
  write_file_atomic(dir.file(".r.yaml.ladle-tmp-AbC123"), "left by a killed run");
  write_file_atomic(dir.file(".r.yaml.ladle-tmp-toolong1"), "not our pattern");
  write_file_atomic(dir.file(".r.yaml.swp"), "an editor's");
  write_file_atomic(path, "x");
  EXPECT_FALSE(std::filesystem::exists(dir.file(".r.yaml.ladle-tmp-AbC123")));
  EXPECT_TRUE(std::filesystem::exists(dir.file(".r.yaml.ladle-tmp-toolong1")));
  EXPECT_TRUE(std::filesystem::exists(dir.file(".r.yaml.swp")));
}

TEST(StagedDir, RefusesAFolderItDidNotWriteAndSwapsInOneItDid) {
  test::TempDir dir;
  const OutputMarker marker{"manifest", "# by ladle"};
  std::filesystem::create_directories(dir.file("mine"));
  write_file_atomic(dir.file("mine/notes.txt"), "keep");
  EXPECT_LADLE_ERROR(StagedDir(dir.file("mine"), marker, "--out"), usage, "holds no output written by ladle");
  EXPECT_EQ(read_file(dir.file("mine/notes.txt")), "keep");
  write_file_atomic(dir.file("afile"), "x");
  EXPECT_LADLE_ERROR(StagedDir(dir.file("afile"), marker, "--out"), usage, "is not a folder");
  for (const char* content : {"one", "two"}) {
    StagedDir staged(dir.file("out"), marker, "--out");
    write_file_atomic((staged.path() / "manifest").string(), std::string("# by ladle ") + content);
    staged.commit();
  }
  EXPECT_EQ(read_file(dir.file("out/manifest")), "# by ladle two");
  EXPECT_FALSE(std::filesystem::exists(dir.file("out/.ladle-staging")));
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 3u);  // mine, afile, out: no temporary folder is left
}

TEST(StagedDir, RemovesWhatAKilledRunLeftButNotLookAlikes) {
  test::TempDir dir;
  const OutputMarker marker{"manifest", "# by ladle"};
  std::filesystem::create_directories(dir.file(".out.tmp-Ab12Cd"));  // killed before writing
  std::filesystem::create_directories(dir.file(".out.tmp-Zz99Zz"));
  write_file_atomic(dir.file(".out.tmp-Zz99Zz/.ladle-staging"), "");  // killed while writing
  write_file_atomic(dir.file(".out.tmp-Zz99Zz/rows.bin"), "partial");
  std::filesystem::create_directories(dir.file(".out.tmp-Qq11Qq.old"));  // the old output, set aside
  write_file_atomic(dir.file(".out.tmp-Qq11Qq.old/manifest"), "# by ladle old");
  std::filesystem::create_directories(dir.file(".out.tmp-user01"));  // looks alike, is not ours
  write_file_atomic(dir.file(".out.tmp-user01/data.csv"), "a user's");
  {
    StagedDir staged(dir.file("out"), marker, "--out");
    write_file_atomic((staged.path() / "manifest").string(), "# by ladle new");
    staged.commit();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file(".out.tmp-Ab12Cd")));
  EXPECT_FALSE(std::filesystem::exists(dir.file(".out.tmp-Zz99Zz")));
  EXPECT_FALSE(std::filesystem::exists(dir.file(".out.tmp-Qq11Qq.old")));
  EXPECT_EQ(read_file(dir.file(".out.tmp-user01/data.csv")), "a user's");
}

}  // namespace
}  // namespace ladle::util
