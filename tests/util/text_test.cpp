#include "ladle/util/text.hpp"

#include <gtest/gtest.h>

namespace ladle::util {
namespace {

TEST(Text, EditDistanceCountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("tp", "tpp"), 1u);
}

TEST(Text, SuggestsTheNearestNameOnlyWhenClose) {
  const std::vector<std::string> keys = {"schema_version", "model", "gpu", "layout"};
  EXPECT_EQ(nearest_name("lyout", keys), "layout");
  EXPECT_EQ(nearest_name("GPU", keys), "gpu");
  EXPECT_EQ(nearest_name("completely_different", keys), std::nullopt);
  EXPECT_EQ(did_you_mean("modle", keys), " (did you mean 'model'?)");
}

TEST(Text, GroupsThousands) {
  EXPECT_EQ(format_grouped(3579314176LL), "3,579,314,176");
  EXPECT_EQ(format_grouped(999LL), "999");
  EXPECT_EQ(format_grouped(-1000LL), "-1,000");
  EXPECT_EQ(format_grouped(6178.46, 2), "6,178.46");
  EXPECT_EQ(format_grouped(161.79, 2), "161.79");
  EXPECT_EQ(format_grouped(123456.0, 0), "123,456");
}

TEST(Text, SplitKeepsEmptyParts) {
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(trim("  x \n"), "x");
}

TEST(Text, TerminalSafeEscapesControlsAndKeepsLines) {
  EXPECT_EQ(terminal_safe("a\x1b]0;t\a\x1b[2J\rb\x7f\n\tc"), "a\\x1b]0;t\\x07\\x1b[2J\\x0db\\x7f\n\tc");
  EXPECT_EQ(terminal_safe("\xc2\x9b" "31m caf\xc3\xa9"), "\\u009b31m caf\xc3\xa9");  // C1 CSI; é stays
}

TEST(Text, TerminalSafeLineEscapesLineBreaksToo) {
  EXPECT_EQ(terminal_safe_line("a\nb\tc\x1b"), "a\\nb\\tc\\x1b");
}

}  // namespace
}  // namespace ladle::util
