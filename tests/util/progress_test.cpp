// The shared progress report: what each style writes, with a fake clock.
#include "ladle/util/progress.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace ladle::util {
namespace {

TEST(Progress, BarShowsCountRateAndTimeLeft) {
  EXPECT_EQ(render_progress_bar("pack", "rows", 450, 1000, 5.0, 20),
            "pack [#########           ] 450/1,000 rows  90 rows/s  6s left");
  EXPECT_EQ(render_progress_bar("plan", "GPU counts", 1, 4, 100.0, 4),
            "plan [#   ] 1/4 GPU counts  0.01 GPU counts/s  5m00s left");
  // Done: no time left; nothing done yet: no rate.
  EXPECT_EQ(render_progress_bar("site", "pages", 3, 3, 1.0, 3), "site [###] 3/3 pages  3.00 pages/s");
  EXPECT_EQ(render_progress_bar("site", "pages", 0, 3, 0.0, 3), "site [   ] 0/3 pages");
}

TEST(Progress, StyleFollowsTheTerminalUnlessQuiet) {
  EXPECT_EQ(progress_style(true, false), ProgressStyle::bar);
  EXPECT_EQ(progress_style(false, false), ProgressStyle::lines);
  EXPECT_EQ(progress_style(true, true), ProgressStyle::quiet);
}

TEST(Progress, LinesAtEveryTenthAndAtTheEnd) {
  std::ostringstream out;
  Progress p(out, "pack", "rows", 20, ProgressStyle::lines, [] { return 0.0; });
  for (int i = 1; i <= 20; ++i) p.update(i);
  p.finish();
  p.finish();
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 10);  // 10%..90%, then 20/20
  EXPECT_NE(text.find("pack: 2/20 rows (10%)\n"), std::string::npos);
  EXPECT_TRUE(text.ends_with("pack: 20/20 rows (100%)\n"));
}

TEST(Progress, BarRedrawsInPlaceAndEndsItsLine) {
  std::ostringstream out;
  double now = 0;
  Progress p(out, "sweep", "GPU counts", 2, ProgressStyle::bar, [&] { return now; });
  now = 1;
  p.update(1);
  now = 1.05;  // within the redraw interval: not drawn
  p.update(1);
  now = 2;
  p.update(2);
  p.finish();
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\r'), 3);
  EXPECT_TRUE(text.ends_with("2/2 GPU counts  1.00 GPU counts/s\x1b[K\n"));
}

TEST(Progress, QuietWritesNothing) {
  std::ostringstream out;
  {
    Progress p(out, "pack", "rows", 5, ProgressStyle::quiet);
    p.update(5);
    p.finish();
  }
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace ladle::util
