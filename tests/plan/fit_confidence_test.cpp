// plan --fit-confidence (issue 32): the HBM margin that makes a counted layout fit with at least
// the stated probability under the calibrated log-normal memory error.
#include <gtest/gtest.h>

#include <cmath>

#include "ladle/plan/calibrate_memory.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/util/error.hpp"

namespace ladle::plan {
namespace {

TEST(FitConfidence, TheMarginLeavesThePeakUnderCapacityWithTheStatedProbability) {
  const double sigma = 0.094;
  for (double c : {0.5, 0.8, 0.9, 0.95, 0.99}) {
    const double margin = fit_confidence_margin(c, sigma);
    // A peak predicted at the usable limit fits the capacity with probability c.
    const double used = 1.0 - margin;
    EXPECT_NEAR(normal_cdf(std::log(1.0 / used) / sigma), c, 1e-6) << c;
  }
  EXPECT_NEAR(fit_confidence_margin(0.5, sigma), 0.0, 1e-9);  // the median: no margin
  // 0.9 with the embedded spread keeps about 11% free, more than the fixed 5% it replaced.
  EXPECT_NEAR(fit_confidence_margin(0.9, sigma), 1 - std::exp(-1.28155 * sigma), 1e-4);
  EXPECT_GT(fit_confidence_margin(0.9, sigma), 0.05);
  EXPECT_LT(fit_confidence_margin(0.8, sigma), fit_confidence_margin(0.9, sigma));
}

TEST(FitConfidence, MarginOrConfidenceNotBoth) {
  Calibration cal;
  cal.memory_log_spread = 0.094;
  EXPECT_DOUBLE_EQ(plan_memory_margin(0.05, std::nullopt, cal), 0.05);
  EXPECT_DOUBLE_EQ(plan_memory_margin(std::nullopt, std::nullopt, cal),
                   fit_confidence_margin(kDefaultFitConfidence, 0.094));
  EXPECT_THROW(plan_memory_margin(0.05, 0.9, cal), Error);
  EXPECT_THROW(plan_memory_margin(std::nullopt, 1.0, cal), Error);
  EXPECT_THROW(plan_memory_margin(std::nullopt, 0.0, cal), Error);
  EXPECT_THROW(plan_memory_margin(1.0, std::nullopt, cal), Error);
  EXPECT_THROW(verdict_confidence(1.5), Error);
  EXPECT_DOUBLE_EQ(verdict_confidence(std::nullopt), kDefaultFitConfidence);
}

}  // namespace
}  // namespace ladle::plan
