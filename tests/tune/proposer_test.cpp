// Tests of the proposals: expected improvement, never a tried layout, one per shape first.
#include "ladle/tune/proposer.hpp"

#include <cmath>

#include "ladle/layout/layout_spec.hpp"
#include "support/test_support.hpp"

namespace ladle::tune {
namespace {

Prediction prediction(const std::string& spec, double tokens) {
  Prediction p;
  p.layout = layout::parse_layout_spec(spec);
  p.tokens_per_s_per_gpu = tokens;
  return p;
}

TEST(Proposer, ExpectedImprovementOfANormalBelief) {
  // mean = best: EI = sigma * mean * phi(0) / best = sigma / sqrt(2 pi).
  EXPECT_NEAR(expected_improvement(100, 0.1, 100), 0.1 / std::sqrt(2 * M_PI), 1e-12);
  EXPECT_NEAR(expected_improvement(120, 0, 100), 0.2, 1e-12);
  EXPECT_EQ(expected_improvement(80, 0, 100), 0);
  EXPECT_GT(expected_improvement(80, 0.2, 100), 0);
  EXPECT_LT(expected_improvement(80, 0.05, 100), expected_improvement(80, 0.2, 100));
  EXPECT_NEAR(pooled_sigma(0.15, 2, {}), 0.15, 1e-12);
  EXPECT_NEAR(pooled_sigma(0.15, 2, {0.0, 0.0}), 0.15 / std::sqrt(2.0), 1e-12);
}

TEST(Proposer, NeverProposesATriedLayoutAndSpreadsOverShapes) {
  const std::vector<Prediction> preds = {prediction("tp=1,ep=8,dispatcher=alltoall", 110),
                                         prediction("tp=1,ep=8,dispatcher=allgather", 109),
                                         prediction("tp=2,ep=8", 105), prediction("tp=1,pp=2", 100),
                                         prediction("tp=4", 90)};
  const std::vector<double> sigmas(preds.size(), 0.1);
  const std::set<std::string> tried = {layout::format_layout_spec(preds[3].layout)};
  const std::vector<Candidate> c = propose(preds, sigmas, tried, 100, 3);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].prediction.tokens_per_s_per_gpu, 110);
  EXPECT_EQ(c[1].prediction.tokens_per_s_per_gpu,
            105);  // the allgather twin waits: same shape as the first
  EXPECT_EQ(c[2].prediction.tokens_per_s_per_gpu, 90);
  for (const Candidate& x : c) EXPECT_FALSE(tried.count(x.spec));
  EXPECT_EQ(propose(preds, sigmas, tried, 100, 5).size(), 4u);
}

TEST(Proposer, UncertaintyGrowsWithTheStepTimeNoMeasurementExercised) {
  Prediction measured = prediction("tp=1", 100);
  measured.step_time_s = 10;
  measured.step_parts = {{"dense GEMM", 6}, {"EP all-to-all", 4}};
  Prediction similar = measured;
  Prediction other = prediction("tp=2", 100);
  other.step_time_s = 10;
  other.step_parts = {{"dense GEMM", 5}, {"pipeline bubble", 5}};
  const auto exposure = part_exposure({measured});
  EXPECT_NEAR(unexplored_share(similar, exposure), 0, 1e-12);
  EXPECT_NEAR(unexplored_share(other, exposure), 0.5, 1e-12);
  EXPECT_NEAR(candidate_sigma(0.05, 0.15, 0.5), std::sqrt(0.0025 + 0.0225 * 0.5), 1e-12);
}

}  // namespace
}  // namespace ladle::tune
