// `ladle show` prints every fact of the published seed pages (tests/data/recipe/pages/*.page.txt).

#include "ladle/recipe/page.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "ladle/recipe/catalog.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/text.hpp"
#include "support/test_support.hpp"

namespace ladle::recipe {
namespace {

struct SeedPage {
  std::string recipe;  ///< "glm-5.2-744b-a40b/h200/attune-tp4-pp4"
  std::vector<std::pair<std::string, std::string>> facts;
};

// A published page holds one block per recipe: "Author", blank, value, blank, ... up to "Rows", then
// the run script and the YAML, whose first line is "# recipes/<name>.yaml".
std::vector<SeedPage> read_seed_pages(const std::string& file) {
  const std::vector<std::string> lines = util::split(util::read_file(file), '\n');
  std::vector<SeedPage> pages;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == "Author" && i + 2 < lines.size()) {
      SeedPage& page = pages.emplace_back();
      for (; i + 2 < lines.size(); i += 4) {
        page.facts.emplace_back(lines[i], lines[i + 2]);
        if (lines[i] == "Rows") break;
      }
    } else if (lines[i].starts_with("# recipes/") && !pages.empty() && pages.back().recipe.empty()) {
      const std::string path = lines[i].substr(std::string("# recipes/").size());
      pages.back().recipe = path.substr(0, path.size() - std::string(".yaml").size());
    }
  }
  return pages;
}

// Where ladle words a fact better than the published page, the seed's text is mapped to ladle's.
std::string as_ladle_words(const std::string& label, std::string value) {
  if (label == "Author" && value.ends_with(" (cite)")) value.resize(value.size() - 7);  // the link is the url
  const size_t one = value.find(", 1 pointwise failures");
  if (one != std::string::npos) value.replace(one, 22, ", 1 pointwise failure");
  return value;
}

TEST(RecipePage, ShowsEveryFactOfThePublishedPages) {
  size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_path("tests/data/recipe/pages"))) {
    for (const SeedPage& seed : read_seed_pages(entry.path().string())) {
      ASSERT_FALSE(seed.recipe.empty()) << entry.path();
      const RecipePage page = build_page(find_recipe(seed.recipe).recipe);
      const std::string text = render_page_text(page);
      EXPECT_TRUE(text.starts_with(page.title + "\n")) << seed.recipe;
      for (const auto& [label, value] : seed.facts) {
        const auto fact = std::find_if(page.facts.begin(), page.facts.end(),
                                       [&](const PageFact& f) { return f.label == label; });
        ASSERT_NE(fact, page.facts.end()) << seed.recipe << ": no fact '" << label << "'";
        EXPECT_NE(fact->value.find(as_ladle_words(label, value)), std::string::npos)
            << seed.recipe << ": " << label << "\n  published: " << value << "\n  ladle:     " << fact->value;
        ++checked;
      }
      EXPECT_NE(text.find(page.run), std::string::npos);
      EXPECT_NE(text.find("schema_version: 1\n"), std::string::npos);
    }
  }
  EXPECT_EQ(checked, 12u + 11u + 11u);  // GLM-4.7-Flash has a component test; the two GLM-5.2 recipes do not
}

TEST(RecipePage, TitleNamesModelAndGpu) {
  const RecipePage page = build_page(find_recipe("attune-tp1-pp1-ep8").recipe);
  EXPECT_EQ(page.title, "Training GLM-4.7-Flash on H200");
  EXPECT_EQ(page.facts.front().url, std::optional<std::string>("https://arxiv.org/abs/2610.17528"));
}

}  // namespace
}  // namespace ladle::recipe
