// The label `ls` and `show` print is accepted wherever a layout spec is.
#include <gtest/gtest.h>

#include "ladle/layout/layout_spec.hpp"
#include "support/test_support.hpp"

namespace ladle::layout {
namespace {

TEST(LayoutLabel, ParsesTheLabelLsPrints) {
  const Layout l = parse_layout_spec("TP4 PP4 EP16 DP4");
  EXPECT_EQ(l.tp, 4);
  EXPECT_EQ(l.pp, 4);
  EXPECT_EQ(l.ep, 16);
  EXPECT_EQ(l.dp, 4);
  // What plan chooses for the rest: sequence parallel with tp > 1, the precision-aware optimizer.
  EXPECT_TRUE(l.sp);
  EXPECT_TRUE(l.precision_aware);
}

TEST(LayoutLabel, RoundTripsLayoutLabel) {
  Layout l;
  l.tp = 2;
  l.pp = 8;
  l.vpp = 2;
  l.cp = 2;
  l.ep = 8;
  l.etp = 2;
  l.dp = 4;
  const Layout back = parse_layout_spec(layout_label(l));
  EXPECT_EQ(layout_label(back), layout_label(l));
}

TEST(LayoutLabel, AcceptsLowerCaseAndCommas) {
  const Layout l = parse_layout_spec("tp1,pp1, ep8");
  EXPECT_EQ(l.ep, 8);
  EXPECT_FALSE(l.sp);
}

TEST(LayoutLabel, RejectsAWordThatIsNoSize) {
  EXPECT_LADLE_ERROR(parse_layout_spec("TP4 PP4 XY2"), usage,
                     "layout label: expected sizes such as 'TP4 PP4 EP16 DP4', got 'XY2'");
  EXPECT_LADLE_ERROR(parse_layout_spec("TP4 TP2"), usage, "given twice");
}

TEST(LayoutLabel, KeyValueSpecsKeepTheirErrors) {
  EXPECT_LADLE_ERROR(parse_layout_spec("tpx=4"), usage, "unknown key 'tpx'");
}

}  // namespace
}  // namespace ladle::layout
