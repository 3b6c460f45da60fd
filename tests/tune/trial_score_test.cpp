// Tests of a trial's score from its log: warm-up dropped, median step time, CV.
#include "ladle/tune/trial_score.hpp"

#include <fmt/format.h>

#include "support/test_support.hpp"

namespace ladle::tune {
namespace {

std::string slime_log(const std::vector<double>& times) {
  std::string log;
  for (size_t i = 0; i < times.size(); ++i) {
    log += fmt::format(
        "[2026-10-01 00:{:02}:00] model.py:642 - step {}: {{'train/loss': 1.0, "
        "'train/global_batch_size': 128}}\n",
        i, i);
    log += fmt::format(
        "[2026-10-01 00:{:02}:00] train_metric_utils.py:68 - perf {}: {{'perf/step_time': {}}}\n",
        i, i, times[i]);
  }
  return log;
}

TEST(TrialScore, DropsTheWarmUpAndTakesTheMedianStepTime) {
  // 8 records: the first 2 are warm-up; the window's median is 20.0 despite one slow step.
  const std::string log = slime_log({40, 30, 20, 20.2, 19.8, 35, 20, 20.1});
  const auto s = score_trial_log(log, "t.log", ScoreShape{8, 8192, 128});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->records, 8);
  EXPECT_EQ(s->window_records, 6);
  EXPECT_DOUBLE_EQ(s->median_step_time_s, 20.05);
  EXPECT_NEAR(s->tokens_per_s_per_gpu, 128.0 * 8192 / 20.05 / 8, 1e-9);
  EXPECT_GT(s->step_time_cv_percent, 10);  // the 35 s step shows in the CV, not in the median
  const auto first = score_trial_log(log, "t.log", ScoreShape{8, 8192, 128}, 4, 2);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->records, 4);
  EXPECT_EQ(first->window_records, 3);  // ceil(4 / 4) = 1 warm-up record
  EXPECT_DOUBLE_EQ(first->median_step_time_s, 20.2);
}

TEST(TrialScore, ALogWithoutEnoughStepsHasNoScore) {
  EXPECT_EQ(score_trial_log("no steps here\n", "t.log", ScoreShape{8, 8192, 128}), std::nullopt);
  EXPECT_EQ(score_trial_log(slime_log({40, 30}), "t.log", ScoreShape{8, 8192, 128}), std::nullopt);
}

}  // namespace
}  // namespace ladle::tune
