// Tests of what the loop learns of the planner's memory from trials that ran and ran out.
#include "ladle/tune/memory_belief.hpp"

#include <cmath>

#include "support/test_support.hpp"

namespace ladle::tune {
namespace {

constexpr double kCapacity = 140.0;
constexpr double kSigma = 0.1;

Trial trial(TrialState state, double predicted_gib) {
  Trial t;
  t.state = state;
  t.predicted_memory_gib = predicted_gib;
  return t;
}

TEST(MemoryBelief, WithoutTrialsThePlannerIsRightOnAverage) {
  const MemoryBelief b = memory_belief({trial(TrialState::proposed, 130), trial(TrialState::failed, 90)},
                                       kCapacity, kSigma);
  EXPECT_EQ(b.log_ratio, 0);
  EXPECT_EQ(b.ran + b.oom, 0);
  EXPECT_NEAR(fit_probability(b, kCapacity, kCapacity), 0.5, 1e-12);
  // One spread of headroom: Phi(1).
  EXPECT_NEAR(fit_probability(b, kCapacity * std::exp(-kSigma), kCapacity), 0.841345, 1e-6);
  EXPECT_EQ(fit_probability(b, 0, kCapacity), 1.0);
}

TEST(MemoryBelief, ARunOutOfMemoryRaisesTheRatioAndOneThatRanLowersIt) {
  const MemoryBelief none = memory_belief({}, kCapacity, kSigma);
  const MemoryBelief oom = memory_belief({trial(TrialState::oom, 125)}, kCapacity, kSigma);
  const MemoryBelief ran = memory_belief({trial(TrialState::scored, 135)}, kCapacity, kSigma);
  EXPECT_EQ(oom.oom, 1);
  EXPECT_EQ(ran.ran, 1);
  EXPECT_GT(oom.log_ratio, 0);
  EXPECT_LT(ran.log_ratio, 0);
  // The posterior mode by hand for the run out of memory: with a = log(140 / 125) and u = m / sigma,
  // u = phi(u - a / sigma) / Phi(u - a / sigma), the prior's pull against the bound.
  const double a = std::log(kCapacity / 125) / kSigma;
  const double u = oom.log_ratio / kSigma;
  const double z = u - a;
  const double hazard = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI) / (0.5 * std::erfc(-z / std::sqrt(2.0)));
  EXPECT_NEAR(u, hazard, 1e-3);
  // A layout predicted a little under the one that ran out now fits less often than before it did.
  EXPECT_LT(fit_probability(oom, 122, kCapacity), fit_probability(none, 122, kCapacity));
  EXPECT_GT(fit_probability(ran, 138, kCapacity), fit_probability(none, 138, kCapacity));
  // More runs out of memory near the same prediction push the ratio further up.
  const MemoryBelief two =
      memory_belief({trial(TrialState::oom, 125), trial(TrialState::oom, 124)}, kCapacity, kSigma);
  EXPECT_GT(two.log_ratio, oom.log_ratio);
}

TEST(MemoryBelief, RunsThatRanAndRunsOutBracketTheRatio) {
  // Ran at 110, out of memory at 120: log r lies between log(140/120) and log(140/110) for most.
  const MemoryBelief b =
      memory_belief({trial(TrialState::scored, 110), trial(TrialState::stopped_early, 108),
                     trial(TrialState::oom, 120), trial(TrialState::oom, 121)},
                    kCapacity, kSigma);
  EXPECT_EQ(b.ran, 2);
  EXPECT_EQ(b.oom, 2);
  EXPECT_GT(b.log_ratio, std::log(kCapacity / 121) - kSigma);
  EXPECT_LT(b.log_ratio, std::log(kCapacity / 108) + kSigma);
  EXPECT_GT(fit_probability(b, 105, kCapacity), fit_probability(b, 118, kCapacity));
}

}  // namespace
}  // namespace ladle::tune
