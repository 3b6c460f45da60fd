#include "ladle/site/recipe_facts.hpp"

#include "ladle/recipe/page.hpp"

#include <gtest/gtest.h>

#include "site/html_scan.hpp"
#include "site/site_fixture.hpp"

namespace ladle::site {
namespace {

std::string fact_text(const std::vector<Fact>& facts, const std::string& label) {
  for (const Fact& f : facts) {
    if (f.label == label) return test::visible_text(f.html);
  }
  return "<missing " + label + ">";
}


// The facts are the recipe page's (tests/recipe/page_test.cpp checks those against the published
// pages); the site shows each one's text, with its outcome and note.
TEST(RecipeFacts, ShowEveryFactOfTheRecipePage) {
  const recipe::RecipePage page = recipe::build_page(test::glm47_flash());
  const std::vector<Fact> facts = recipe_facts(test::glm47_flash());
  ASSERT_EQ(facts.size(), page.facts.size());
  for (size_t i = 0; i < facts.size(); ++i) {
    const recipe::PageFact& f = page.facts[i];
    EXPECT_EQ(facts[i].key, f.key);
    EXPECT_EQ(facts[i].label, f.label);
    const std::string shown = fact_text(facts, f.label);
    EXPECT_NE(shown.find(f.value), std::string::npos) << f.label << "\n  page: " << f.value << "\n  site: " << shown;
    if (f.result) {
      EXPECT_TRUE(shown.starts_with(*f.result + " ")) << shown;
    }
  }
  EXPECT_EQ(recipe_title(test::glm47_flash()), page.title);
}

TEST(RecipeFacts, LinkTheAuthorOnlyOverHttp) {
  const std::vector<Fact> facts = recipe_facts(test::glm47_flash());
  EXPECT_EQ(facts.front().html, "ATTUNE (<a href=\"https://arxiv.org/abs/2610.17528\">cite</a>)");
  const std::vector<Fact> hostile = recipe_facts(test::hostile());
  EXPECT_EQ(hostile.front().html,
            "Mallory &quot;&lt;img src=x onerror=alert(1)&gt;&quot; O&#39;Brien "
            "(javascript:alert(document.cookie))");
}

TEST(RecipeFacts, ShowTheMeasuredWindow) {
  EXPECT_EQ(fact_text(recipe_facts(test::glm52_tp4()), "Measured"), "2026-10-11, 14-step run scored over steps 4\u201313");
}

TEST(RecipeFacts, PlannedRecipeSaysNotMeasuredWithItsPrediction) {
  Recipe r = test::glm52_tp4();
  r.result.reset();
  r.status = "planned";
  const std::vector<Fact> facts = recipe_facts(r);
  EXPECT_EQ(fact_text(facts, "Tokens/s per GPU"), "not measured; predicted 170.00 tokens/s per GPU, $12.90 / 1M tokens");
  EXPECT_EQ(fact_text(facts, "Measured"), "<missing Measured>");
}

TEST(RecipeFacts, FormatFiguresAsThePublishedPages) {
  EXPECT_EQ(format_tokens_per_s(6178.46), "6,178.46");
  EXPECT_EQ(format_usd(13.58), "$13.58");
  EXPECT_EQ(format_usd(0.36), "$0.36");
  EXPECT_EQ(format_mfu(0.0396), "4.0%");
  EXPECT_EQ(format_mfu(0.1342), "13.4%");
  EXPECT_EQ(format_percent(4.69), "4.69%");
}

}  // namespace
}  // namespace ladle::site
