#include "ladle/util/table.hpp"

#include <gtest/gtest.h>

namespace ladle::util {
namespace {

TEST(Table, AlignsNumbersRight) {
  const Table table{{"name", "n"}, {{"a", "1"}, {"bb", "1,000"}}};
  EXPECT_EQ(table.render(), "name  n\n----  -----\na         1\nbb    1,000\n");
}

// A cell read from a file cannot drive the terminal or break its row, and the columns still line
// up around its escaped form.
TEST(Table, EscapesControlCharactersInCells) {
  const Table table{{"model", "n"}, {{"m\x1b[2J\nx", "1"}, {"plain", "22"}}};
  EXPECT_EQ(table.render(),
            "model        n\n"
            "-----------  --\n"
            "m\\x1b[2J\\nx   1\n"
            "plain        22\n");
}

}  // namespace
}  // namespace ladle::util
