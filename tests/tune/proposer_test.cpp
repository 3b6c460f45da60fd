// Tests of the proposals: never a tried layout, one per shape first.
#include "ladle/tune/proposer.hpp"

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

TEST(Proposer, CountsTheImprovementOnlyInTheCaseTheLayoutFits) {
  // The faster layout, likely to run out of memory, is worth less than a slower one that fits.
  const std::vector<Prediction> preds = {prediction("tp=1,ep=8", 120), prediction("tp=2,ep=8", 110)};
  const std::vector<double> sigmas(preds.size(), 0.05);
  const std::vector<Candidate> free = propose(preds, sigmas, {}, 100, 2);
  ASSERT_EQ(free.size(), 2u);
  EXPECT_EQ(free[0].prediction.tokens_per_s_per_gpu, 120);
  const std::vector<Candidate> c = propose(preds, sigmas, {}, 100, 2, {0.2, 0.9});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].prediction.tokens_per_s_per_gpu, 110);
  EXPECT_DOUBLE_EQ(c[0].fit_probability, 0.9);
  EXPECT_NEAR(c[0].expected_improvement, 0.9 * free[1].expected_improvement, 1e-12);
  EXPECT_NEAR(c[1].expected_improvement, 0.2 * free[0].expected_improvement, 1e-12);
}

}  // namespace
}  // namespace ladle::tune
