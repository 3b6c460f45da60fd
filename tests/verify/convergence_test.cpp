// Convergence check: the synthetic seed pairs (make_fixtures.py tunes them to the seeds' published
// correlation and final difference, and prints the figures it computes in plain Python) and the
// strict cases where Megatron-Bridge's check would be lax.
#include "ladle/verify/convergence.hpp"

#include <string>

#include "support/test_support.hpp"

namespace ladle::verify {
namespace {

runlog::RunLog synthetic(const std::string& name) {
  return runlog::read_log_file(test::source_path("tests/data/runlog/synthetic/" + name));
}

const ConvergenceThresholds& bridge() { return default_convergence_thresholds(); }

runlog::RunLog slime(const std::vector<std::string>& losses, const std::string& path) {
  std::string text;
  for (size_t i = 0; i < losses.size(); ++i) {
    if (losses[i] == "-") continue;
    text += fmt::format("step {}: {{'train/loss': {}}}\n", i, losses[i]);
  }
  return runlog::read_log(text, path);
}

TEST(Convergence, EmbeddedThresholdsAreBridgeDefaults) {
  const ConvergenceThresholds& t = bridge();
  EXPECT_EQ(t.correlation_min, 0.95);
  EXPECT_EQ(t.tolerance_for(2.5), 0.10);
  EXPECT_EQ(t.tolerance_for(2.0), 0.05);
  EXPECT_EQ(t.tolerance_for(0.6), 0.05);
  EXPECT_EQ(t.tolerance_for(0.5), 0.02);
  EXPECT_EQ(t.final_loss_tolerance, 0.03);
  EXPECT_EQ(t.max_failure_ratio, 0.10);
  EXPECT_EQ(t.outlier_sigma, 3.0);
  EXPECT_EQ(t.max_outlier_ratio, 0.10);
  EXPECT_NE(t.source.find("0167cb957f01586e3a10b25accb9a08abb833456"), std::string::npos);
}

TEST(Convergence, Glm52PairReproducesTheSeed) {
  const auto r = check_convergence(synthetic("slime_glm52_tp4_ref20.log"), synthetic("slime_glm52_tp8_seed.log"),
                                   std::nullopt, bridge());
  EXPECT_TRUE(r.passed) << (r.reasons.empty() ? "" : r.reasons[0]);
  EXPECT_EQ(r.steps, 20);
  EXPECT_NEAR(*r.correlation, 0.99946501, 5e-9);
  EXPECT_NEAR(*r.final_loss_difference, 0.00200014, 5e-9);
  EXPECT_EQ(r.pointwise_failures, 0);
  EXPECT_EQ(r.outliers, 1);  // step 9, tuned for the correlation; 1 of 20 is within 10%
  const Convergence c = update_convergence(std::nullopt, r);
  EXPECT_EQ(c.correlation, 0.999465);
  EXPECT_EQ(c.final_loss_difference, 0.002);
  EXPECT_EQ(c.result, "pass");
  EXPECT_EQ(c.steps, 20);
}

TEST(Convergence, Glm47FlashPairReproducesTheSeed) {
  const auto r = check_convergence(synthetic("miles_glm47flash_ref.log"), synthetic("miles_glm47flash_seed.log"),
                                   std::nullopt, bridge());
  EXPECT_TRUE(r.passed);
  EXPECT_NEAR(*r.correlation, 0.9778999, 5e-7);
  EXPECT_NEAR(*r.final_loss_difference, 0.00320035, 5e-9);
  EXPECT_EQ(r.pointwise_failures, 1);
  EXPECT_TRUE(r.points[3].failed);
  EXPECT_EQ(r.points[3].tolerance, 0.05);
  Convergence existing;
  existing.note = "kept";
  const Convergence c = update_convergence(existing, r);
  EXPECT_EQ(c.correlation, 0.9779);
  EXPECT_EQ(c.final_loss_difference, 0.0032);
  EXPECT_EQ(c.pointwise_failures, 1);
  EXPECT_EQ(c.note, "kept");
}

TEST(Convergence, MissingCandidateStepFailsAndSaysWhich) {
  const auto r = check_convergence(slime({"2.0", "1.9", "1.8", "1.7"}, "ref.log"),
                                   slime({"2.0", "1.9", "-", "1.7"}, "cand.log"), std::nullopt, bridge());
  EXPECT_FALSE(r.passed);
  ASSERT_EQ(r.reasons.size(), 2u);
  EXPECT_EQ(r.reasons[0], "runs of different lengths: the reference has 4 steps, the candidate 3; pass --steps 3 to "
                          "compare the first 3");
  EXPECT_EQ(r.reasons[1], "step 2 is missing from the candidate");
}

TEST(Convergence, NonFiniteLossFailsWhereBridgeWouldPass) {
  // In Bridge, nan > tolerance is false, so this pair would pass its pointwise test.
  const auto r = check_convergence(slime({"2.0", "1.9", "1.8", "1.7"}, "ref.log"),
                                   slime({"2.0", "1.9", "nan", "1.7"}, "cand.log"), std::nullopt, bridge());
  EXPECT_FALSE(r.passed);
  ASSERT_FALSE(r.reasons.empty());
  EXPECT_EQ(r.reasons[0], "step 2: the candidate loss is nan");
}

TEST(Convergence, TruncatedCandidateFailsUnlessStepsSaysSo) {
  const auto ref = slime({"2.0", "1.9", "1.8", "1.7", "1.6"}, "ref.log");
  const auto cand = slime({"2.0", "1.91", "1.79"}, "cand.log");
  EXPECT_FALSE(check_convergence(ref, cand, std::nullopt, bridge()).passed);
  const auto first3 = check_convergence(ref, cand, 3, bridge());
  EXPECT_TRUE(first3.passed);
  EXPECT_EQ(first3.steps, 3);
  const auto r = check_convergence(ref, cand, 4, bridge());
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.reasons[0], "step 3 is missing from the candidate");
}

TEST(Convergence, DivergedRunFailsEveryTest) {
  const auto r = check_convergence(slime({"2.0", "1.9", "1.8", "1.7", "1.6", "1.5"}, "ref.log"),
                                   slime({"2.0", "2.4", "3.1", "4.0", "5.2", "7.7"}, "cand.log"), std::nullopt, bridge());
  EXPECT_FALSE(r.passed);
  ASSERT_EQ(r.reasons.size(), 3u);
  EXPECT_EQ(r.reasons[0], "correlation -0.953035 < 0.95");
  EXPECT_EQ(r.reasons[1], "5 of 6 steps outside their tolerance (83.3% > 10%)");
  EXPECT_EQ(r.reasons[2], "final loss differs by 413.33% > 3%");
}

TEST(Convergence, ConstantSeriesHasNoCorrelation) {
  const auto r = check_convergence(slime({"1.0", "1.0", "1.0"}, "ref.log"), slime({"1.0", "1.0", "1.0"}, "c.log"),
                                   std::nullopt, bridge());
  EXPECT_FALSE(r.passed);
  EXPECT_FALSE(r.correlation.has_value());
  EXPECT_EQ(r.reasons[0], "correlation is undefined: a loss series is constant");
}

TEST(Convergence, SkippedStepWithoutLossFails) {
  const auto ref = runlog::read_log(
      " iteration        1/       3 | consumed samples: 4 | elapsed time per iteration (ms): 1.0 | lm loss: 2.0E+00 |\n"
      " iteration        2/       3 | consumed samples: 8 | elapsed time per iteration (ms): 1.0 | number of skipped "
      "iterations:   1 |\n"
      " iteration        3/       3 | consumed samples: 12 | elapsed time per iteration (ms): 1.0 | lm loss: 1.9E+00 |\n",
      "ref.log");
  const auto r = check_convergence(ref, ref, std::nullopt, bridge());
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.reasons[0], "step 2 has no loss in the reference");
}

TEST(Convergence, BadThresholdsFileNamesTheKey) {
  EXPECT_LADLE_ERROR(parse_convergence_thresholds("correlation_min: high\n", "t.yaml"), input,
                     "t.yaml:1:18: error: correlation_min: 'high' is not a number");
  EXPECT_LADLE_ERROR(parse_convergence_thresholds("correlation_min: 0.9\n", "t.yaml"), input,
                     "t.yaml: error: high_loss_above: missing");
}

TEST(Convergence, UndefinedFiguresAreNeverRecordedAsNumbers) {
  // A constant series: the correlation is undefined, not 0.
  const auto constant = check_convergence(slime({"2.0", "2.0", "2.0", "2.0"}, "r.log"),
                                          slime({"2.0", "2.001", "2.002", "2.003"}, "c.log"), std::nullopt, bridge());
  EXPECT_FALSE(constant.correlation.has_value());
  EXPECT_LADLE_ERROR(update_convergence(std::nullopt, constant), input, "the correlation is undefined");
  // Losses near the largest double: the correlation is still exact (-1), not NaN.
  const auto huge = check_convergence(slime({"1e308", "-1e308", "1e308", "-1e308"}, "r.log"),
                                      slime({"-1e308", "1e308", "-1e308", "1e308"}, "c.log"), std::nullopt, bridge());
  ASSERT_TRUE(huge.correlation.has_value());
  EXPECT_DOUBLE_EQ(*huge.correlation, -1.0);
  EXPECT_LADLE_ERROR(update_convergence(std::nullopt, huge), input, "final loss difference is not finite");
  // Infinite losses only: no step to compare, nothing to record (not steps 0, correlation 0).
  const auto inf = check_convergence(slime({"inf", "inf"}, "r.log"), slime({"inf", "inf"}, "c.log"), std::nullopt,
                                     bridge());
  EXPECT_EQ(inf.steps, 0);
  EXPECT_LADLE_ERROR(update_convergence(std::nullopt, inf), input, "nothing to record");
}

}  // namespace
}  // namespace ladle::verify
