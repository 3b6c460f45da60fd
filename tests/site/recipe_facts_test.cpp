#include "ladle/site/recipe_facts.hpp"

#include <gtest/gtest.h>

#include "ladle/util/file_io.hpp"
#include "site/html_scan.hpp"
#include "site/site_fixture.hpp"

namespace ladle::site {
namespace {

// The labelled facts of the first page in a seed .page.txt: label, blank line, value, blank line,
// from the line after the title up to the run script.
std::vector<std::pair<std::string, std::string>> seed_facts(const std::string& path) {
  const std::string text = util::read_file(path);
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(text.substr(start, end - start));
  }
  std::vector<std::pair<std::string, std::string>> facts;
  for (size_t i = 2; i + 2 < lines.size(); i += 4) {
    if (lines[i].starts_with("export ") || lines[i].empty()) break;
    facts.emplace_back(lines[i], lines[i + 2]);
    if (lines[i] == "Rows") break;
  }
  return facts;
}

std::string fact_text(const std::vector<Fact>& facts, const std::string& label) {
  for (const Fact& f : facts) {
    if (f.label == label) return test::visible_text(f.html);
  }
  return "<missing " + label + ">";
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

TEST(RecipeFacts, ShowEveryFactOfTheSeedPage) {
  const auto expected = seed_facts(std::string(LADLE_SOURCE_DIR) + "/tests/data/recipe/pages/glm-4.7-flash-h200.page.txt");
  ASSERT_EQ(expected.size(), 12u);
  const std::vector<Fact> facts = recipe_facts(test::glm47_flash());
  for (const auto& [label, value] : expected) {
    // The site prints a real multiplication sign and may add words (the result, the measured window).
    const std::string shown = replace_all(fact_text(facts, label), "\u00d7", "x");
    EXPECT_NE(shown.find(value), std::string::npos) << label << "\n  seed: " << value << "\n  site: " << shown;
  }
  EXPECT_EQ(recipe_title(test::glm47_flash()), "Training GLM-4.7-Flash on H200");
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
