#include "ladle/site/site.hpp"

#include <gtest/gtest.h>

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

TEST(WriteSite, CreatesTheFolderAndReplacesAnOldSiteWhole) {
  ladle::test::TempDir tmp;
  const std::string out = tmp.file("site");
  write_site(build_site(small_catalog()), out);
  EXPECT_TRUE(fs::exists(fs::path(out) / kSiteMarker));
  EXPECT_EQ(listing(out).size(), 10u);

  util::write_file_atomic(out + "/stale.html", "old");
  const SiteCatalog one = make_site_catalog({test::site_recipe(test::glm47_flash(), "recipes/a/h200/b.yaml")});
  write_site(build_site(one), out);
  EXPECT_FALSE(fs::exists(out + "/stale.html"));
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

TEST(WriteSite, RefusesPathsThatLeaveTheFolder) {
  ladle::test::TempDir tmp;
  EXPECT_LADLE_ERROR(write_site({{"../escape.html", "x"}}, tmp.file("site")), internal, "would leave");
  EXPECT_FALSE(fs::exists(tmp.file("escape.html")));
}

}  // namespace
}  // namespace ladle::site
