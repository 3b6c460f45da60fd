#include "ladle/site/site.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "ladle/util/file_io.hpp"
#include "site/site_fixture.hpp"
#include "support/test_support.hpp"

namespace ladle::site {
namespace {
namespace fs = std::filesystem;

SiteCatalog small_catalog() {
  return make_site_catalog({test::site_recipe(test::glm47_flash(), "recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml"),
                            test::site_recipe(test::glm52_tp4())});
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SiteCatalog, NamesPagesFromCatalogPathsAndKeepsThemUnique) {
  const SiteCatalog catalog = make_site_catalog(
      {test::site_recipe(test::glm47_flash(), "recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml"),
       test::site_recipe(test::glm47_flash(), "/some/dir/recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml"),
       test::site_recipe(test::glm52_tp4())});
  ASSERT_EQ(catalog.paths.size(), 3u);
  EXPECT_EQ(catalog.paths[0].page, "recipes/glm-4.7-flash-h200-attune-tp1-pp1-ep8.html");
  EXPECT_EQ(catalog.paths[0].yaml, "recipes/glm-4.7-flash-h200-attune-tp1-pp1-ep8.yaml");
  EXPECT_EQ(catalog.paths[1].page, "recipes/glm-4.7-flash-h200-attune-tp1-pp1-ep8-2.html");
  EXPECT_EQ(catalog.paths[2].page, "recipes/glm-5.2-744b-a40b-h200-tp4-pp4-ep32-dp8.html");
  EXPECT_EQ(catalog.paths[2].model_page, "models/glm-5.2-744b-a40b.html");
  EXPECT_EQ(catalog.models, (std::vector<std::string>{"GLM-4.7-Flash", "GLM-5.2-744B-A40B"}));
  EXPECT_EQ(catalog.recipes_of("GLM-4.7-Flash"), (std::vector<size_t>{0, 1}));
}

TEST(BuildSite, WritesIndexAssetsModelAndRecipePagesSortedByPath) {
  const std::vector<SiteFile> files = build_site(small_catalog());
  std::vector<std::string> paths;
  for (const SiteFile& f : files) paths.push_back(f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{
                       "assets/site.css", "assets/site.js", "index.html", "models/glm-4.7-flash.html",
                       "models/glm-5.2-744b-a40b.html", "recipes/glm-4.7-flash-h200-attune-tp1-pp1-ep8.html",
                       "recipes/glm-4.7-flash-h200-attune-tp1-pp1-ep8.yaml",
                       "recipes/glm-5.2-744b-a40b-h200-tp4-pp4-ep32-dp8.html",
                       "recipes/glm-5.2-744b-a40b-h200-tp4-pp4-ep32-dp8.yaml"}));
  EXPECT_EQ(files[6].content, "model: GLM-4.7-Flash\n");
  EXPECT_EQ(build_site(small_catalog()), files);
}

TEST(WriteSite, CreatesTheFolderAndReplacesAnOldSitesPages) {
  ladle::test::TempDir tmp;
  const std::string out = tmp.file("site");
  write_site(build_site(small_catalog()), out);
  EXPECT_TRUE(fs::exists(fs::path(out) / kSiteMarker));
  EXPECT_EQ(listing(out).size(), 10u);

  util::write_file_atomic(out + "/stale.html", "old");
  const SiteCatalog one = make_site_catalog({test::site_recipe(test::glm47_flash(), "recipes/a/h200/b.yaml")});
  write_site(build_site(one), out);
  EXPECT_EQ(util::read_file(out + "/stale.html"), "old");  // not ladle's: kept
  EXPECT_TRUE(fs::exists(out + "/recipes/a-h200-b.html"));
  EXPECT_FALSE(fs::exists(out + "/models/glm-5.2-744b-a40b.html"));
  // Nothing of the staging folders is left beside the site.
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1);
}

TEST(WriteSite, WritesIntoAnEmptyFolderAndMakesMissingParents) {
  ladle::test::TempDir tmp;
  fs::create_directory(tmp.file("empty"));
  write_site(build_site(small_catalog()), tmp.file("empty"));
  EXPECT_TRUE(fs::exists(tmp.file("empty/index.html")));
  write_site(build_site(small_catalog()), tmp.file("a/b/site/"));
  EXPECT_TRUE(fs::exists(tmp.file("a/b/site/index.html")));
}

TEST(WriteSite, RefusesAFolderItDidNotWrite) {
  ladle::test::TempDir tmp;
  fs::create_directory(tmp.file("mine"));
  util::write_file_atomic(tmp.file("mine/notes.txt"), "keep me");
  EXPECT_LADLE_ERROR(write_site(build_site(small_catalog()), tmp.file("mine")), usage,
                     "is not empty and holds no output written by ladle (.ladle-site)");
  EXPECT_EQ(util::read_file(tmp.file("mine/notes.txt")), "keep me");
  EXPECT_EQ(listing(tmp.file("mine")).size(), 1u);
  util::write_file_atomic(tmp.file("file"), "x");
  EXPECT_LADLE_ERROR(write_site(build_site(small_catalog()), tmp.file("file")), usage, "is not a folder");
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 2);
}

// A site is often a git checkout with a CNAME: the next `site --out` replaces ladle's pages only.
TEST(WriteSite, KeepsEveryFileTheUserAddedToASite) {
  ladle::test::TempDir tmp;
  const std::string out = tmp.file("site");
  write_site(build_site(small_catalog()), out);
  fs::create_directories(out + "/.git/refs/heads");
  fs::create_directories(out + "/drafts");  // empty
  util::write_file_atomic(out + "/.git/HEAD", "ref: refs/heads/main\n");
  util::write_file_atomic(out + "/.git/refs/heads/main", "abc\n");
  util::write_file_atomic(out + "/CNAME", "recipes.example.org\n");
  util::write_file_atomic(out + "/recipes/notes.md", "mine\n");
  fs::create_symlink("index.html", out + "/home.html");

  const SiteCatalog one = make_site_catalog({test::site_recipe(test::glm47_flash(), "recipes/a/h200/b.yaml")});
  write_site(build_site(one), out);
  EXPECT_EQ(util::read_file(out + "/.git/HEAD"), "ref: refs/heads/main\n");
  EXPECT_EQ(util::read_file(out + "/.git/refs/heads/main"), "abc\n");
  EXPECT_EQ(util::read_file(out + "/CNAME"), "recipes.example.org\n");
  EXPECT_EQ(util::read_file(out + "/recipes/notes.md"), "mine\n");
  EXPECT_TRUE(fs::is_directory(out + "/drafts"));
  EXPECT_EQ(fs::read_symlink(out + "/home.html"), "index.html");
  // The old site's own pages went with it; the new one's are there and listed in the marker.
  EXPECT_FALSE(fs::exists(out + "/models/glm-5.2-744b-a40b.html"));
  EXPECT_TRUE(fs::exists(out + "/recipes/a-h200-b.html"));
  const std::string marker = util::read_file(out + "/" + kSiteMarker);
  EXPECT_NE(marker.find("\nrecipes/a-h200-b.html\n"), std::string::npos) << marker;
  EXPECT_EQ(marker.find("CNAME"), std::string::npos) << marker;
  // Kept again by a third run: the user's files never enter the list of ladle's.
  write_site(build_site(small_catalog()), out);
  EXPECT_EQ(util::read_file(out + "/CNAME"), "recipes.example.org\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1);
}

// Runs at once take turns carrying the user's files, so none fails and none loses them.
TEST(WriteSite, ConcurrentRunsAllSucceedAndKeepTheUsersFiles) {
  ladle::test::TempDir tmp;
  const std::string out = tmp.file("site");
  write_site(build_site(small_catalog()), out);
  util::write_file_atomic(out + "/CNAME", "recipes.example.org\n");
  const std::vector<SiteFile> one =
      build_site(make_site_catalog({test::site_recipe(test::glm47_flash(), "recipes/a/h200/b.yaml")}));
  const std::vector<SiteFile> two = build_site(small_catalog());
  std::vector<pid_t> children;
  for (int w = 0; w < 4; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        for (int i = 0; i < 15; ++i) write_site(w % 2 ? one : two, out);
      } catch (...) {
        status = 1;
      }
      ::_exit(status);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(util::read_file(out + "/CNAME"), "recipes.example.org\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1);
}

TEST(WriteSite, RefusesToWriteOverAFileTheUserAdded) {
  ladle::test::TempDir tmp;
  const std::string out = tmp.file("site");
  const SiteCatalog one = make_site_catalog({test::site_recipe(test::glm47_flash(), "recipes/a/h200/b.yaml")});
  write_site(build_site(one), out);
  util::write_file_atomic(out + "/models/glm-5.2-744b-a40b.html", "my own page");
  EXPECT_LADLE_ERROR(write_site(build_site(small_catalog()), out), usage,
                     "is a file ladle did not write and the new site writes there");
  EXPECT_EQ(util::read_file(out + "/models/glm-5.2-744b-a40b.html"), "my own page");
  EXPECT_TRUE(fs::exists(out + "/recipes/a-h200-b.html"));  // the old site stands
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1);
}

// A site from before the marker listed its files: ladle's page names are recognised as its own.
TEST(WriteSite, KeepsUserFilesOfASiteWhoseMarkerListsNoFiles) {
  ladle::test::TempDir tmp;
  const std::string out = tmp.file("site");
  write_site(build_site(small_catalog()), out);
  util::write_file_atomic(out + "/" + kSiteMarker, "written by ladle site; the whole folder is replaced on the next run\n");
  util::write_file_atomic(out + "/CNAME", "x\n");
  const SiteCatalog one = make_site_catalog({test::site_recipe(test::glm47_flash(), "recipes/a/h200/b.yaml")});
  write_site(build_site(one), out);
  EXPECT_EQ(util::read_file(out + "/CNAME"), "x\n");
  EXPECT_FALSE(fs::exists(out + "/models/glm-5.2-744b-a40b.html"));
}

TEST(WriteSite, RefusesPathsThatLeaveTheFolder) {
  ladle::test::TempDir tmp;
  EXPECT_LADLE_ERROR(write_site({{"../escape.html", "x"}}, tmp.file("site")), internal, "would leave");
  EXPECT_FALSE(fs::exists(tmp.file("escape.html")));
}

}  // namespace
}  // namespace ladle::site
