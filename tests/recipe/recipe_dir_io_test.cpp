// Reading a folder of recipes (`check DIR`, `ls`, `site --recipes`, `fmt DIR`): a folder that
// cannot be listed is one error line naming it, not an uncaught filesystem_error.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "ladle/recipe/catalog.hpp"
#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::recipe {
namespace {
namespace fs = std::filesystem;

// What recipe_files(dir) says, as an unprivileged user: root reads every folder whatever its
// mode, so as root the walk runs in a child that has given up root.
std::string walk_error_as_user(const std::string& dir) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    constexpr uid_t kNobody = 65534;
    if (::geteuid() == 0 && (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0)) ::_exit(3);
    std::string message = "no error";
    try {
      recipe_files(dir);
    } catch (const Error& e) {
      message = fmt::format("{} {}", static_cast<int>(e.kind()), e.describe());
    } catch (const std::exception& e) {
      message = std::string("uncaught: ") + e.what();
    }
    (void)!::write(pipe_fds[1], message.data(), message.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string out;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    out.append(buffer, static_cast<size_t>(n));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

TEST(RecipeDirIo, AFolderThatCannotBeReadIsNamedInOneLine) {
  test::TempDir dir;
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  util::write_file_atomic(dir.file("a.yaml"), "x\n");
  fs::create_directories(dir.file("models/locked"));
  util::write_file_atomic(dir.file("models/locked/b.yaml"), "x\n");
  ASSERT_EQ(::chmod(dir.file("models/locked").c_str(), 0), 0);
  const std::string message = walk_error_as_user(dir.path().string());
  ::chmod(dir.file("models/locked").c_str(), 0755);  // so the folder can be removed
  EXPECT_EQ(message, fmt::format("{} {}: error: cannot read: Permission denied",
                                 static_cast<int>(ErrorKind::io), dir.file("models/locked")));
}

TEST(RecipeDirIo, FindsRecipesInNestedFoldersAndSkipsLinkedFolders) {
  test::TempDir dir;
  fs::create_directories(dir.file("a/b"));
  util::write_file_atomic(dir.file("a/b/r.yaml"), "x\n");
  util::write_file_atomic(dir.file("a/notes.txt"), "x\n");
  fs::create_directory_symlink(dir.path(), dir.file("a/loop"));  // not followed: no loop
  fs::create_symlink("b/r.yaml", dir.file("a/link.yaml"));       // a link to a file is a recipe
  fs::create_symlink("missing.yaml", dir.file("a/dangling.yaml"));
  EXPECT_EQ(recipe_files(dir.path().string()),
            (std::vector<std::string>{dir.file("a/b/r.yaml"), dir.file("a/link.yaml")}));
}

}  // namespace
}  // namespace ladle::recipe
