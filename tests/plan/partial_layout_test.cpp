#include "ladle/plan/partial_layout.hpp"

#include <gtest/gtest.h>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/predictor.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

using PlannedRun = Scenario;

PlannedRun run_for(const std::string& model_name, const std::string& gpu, int64_t gpus) {
  PlannedRun r;
  r.model = model::load_model(model_name);
  r.cluster = make_cluster(gpu, gpus);
  r.calibration = default_calibration();
  r.price_model();
  return r;
}

CompletedLayout complete(const PlannedRun& r, const std::string& spec) {
  return complete_layout(layout::parse_partial_layout_spec(spec), r);
}

bool fits_plan(const Prediction& p) {
  return p.memory_gib <= p.capacity_gib * (1 - kPlanMemoryMargin) && p.host_memory_gib <= p.host_capacity_gib;
}

TEST(PartialLayout, TurnsOnSequenceParallelWhereMegatronLmRequiresIt) {
  const PlannedRun r = run_for("glm-5.2", "h200", 128);
  const CompletedLayout c = complete(r, "tp=4,pp=4,ep=32,first=18,last=20");
  EXPECT_TRUE(c.layout.sp);
  EXPECT_TRUE(c.layout.precision_aware);
  EXPECT_EQ(c.layout.dp, 8);
  EXPECT_EQ(c.chosen, (std::vector<std::string>{
                          "precision_aware=on (as plan sets it with the distributed optimizer)",
                          "sp=on (Megatron-LM requires sequence parallel for MoE with tp > 1)"}));
  EXPECT_EQ(layout::find_layout_violation(c.layout, r.model, r.context()), std::nullopt);
}

TEST(PartialLayout, KeepsAnExplicitValueThatMegatronLmRejects) {
  const PlannedRun r = run_for("glm-5.2", "h200", 128);
  const CompletedLayout c = complete(r, "tp=4,pp=4,ep=32,first=18,last=20,sp=off,precision_aware=off");
  EXPECT_FALSE(c.layout.sp);
  EXPECT_FALSE(c.layout.precision_aware);
  EXPECT_TRUE(c.chosen.empty());
  const auto violation = layout::find_layout_violation(c.layout, r.model, r.context());
  ASSERT_TRUE(violation.has_value());
  EXPECT_NE(violation->find("needs sequence parallel"), std::string::npos);
  EXPECT_NE(violation->find("without also enabling sequence parallelism"), std::string::npos);
}

TEST(PartialLayout, UsesPlansDefaultsForADenseModel) {
  const PlannedRun r = run_for("llama-3.1-8b", "h200", 8);
  const CompletedLayout c = complete(r, "tp=2");
  EXPECT_TRUE(c.layout.sp);
  EXPECT_TRUE(c.layout.precision_aware);
  EXPECT_EQ(c.chosen.back(), "sp=on (as plan sets it wherever tp > 1)");
  // tp 1: nothing to turn on; the split is even.
  const CompletedLayout one = complete(r, "tp=1,pp=2");
  EXPECT_FALSE(one.layout.sp);
  EXPECT_EQ(one.layout.first, 0);
  EXPECT_EQ(one.chosen.size(), 1u);
}

TEST(PartialLayout, ChoosesTheSplitThePlannerPredictsBest) {
  // GLM-5.2 has 78 decoder layers, which pp 4 does not divide.
  const PlannedRun r = run_for("glm-5.2", "h200", 128);
  const CompletedLayout c = complete(r, "tp=4,pp=4,ep=32,recompute=selective,offload=1.0,overlap=on");
  ASSERT_TRUE(layout::has_split(c.layout));
  ASSERT_FALSE(c.chosen.empty());
  EXPECT_EQ(c.chosen.back().rfind(layout::split_spec(c.layout) + " (pp 4 does not divide the 78 decoder layers", 0),
            0u)
      << c.chosen.back();
  const Prediction chosen = predict(r.costs, r.model, c.layout, r.cluster, r.workload, r.calibration);
  ASSERT_TRUE(fits_plan(chosen));
  // No other valid split that fits is predicted faster.
  Layout plain = c.layout;
  plain.first = plain.last = 0;
  plain.account_embedding = plain.account_loss = false;
  int64_t compared = 0;
  for (const Layout& other : layout::candidate_splits(plain, r.model.num_layers)) {
    if (layout::find_layout_violation(other, r.model, r.context())) continue;
    const Prediction p = predict(r.costs, r.model, other, r.cluster, r.workload, r.calibration);
    ++compared;
    if (fits_plan(p)) {
      EXPECT_LE(p.tokens_per_s_per_gpu, chosen.tokens_per_s_per_gpu) << layout::split_spec(other);
    }
  }
  EXPECT_GT(compared, 10);
}

TEST(PartialLayout, ChoosesTheLeastMemoryWhereNoSplitFits) {
  const PlannedRun r = run_for("glm-5.2", "h200", 128);
  const CompletedLayout c = complete(r, "tp=4,pp=4,ep=32");
  const Prediction chosen = predict(r.costs, r.model, c.layout, r.cluster, r.workload, r.calibration);
  ASSERT_FALSE(fits_plan(chosen));
  Layout plain = c.layout;
  plain.first = plain.last = 0;
  plain.account_embedding = plain.account_loss = false;
  for (const Layout& other : layout::candidate_splits(plain, r.model.num_layers)) {
    if (layout::find_layout_violation(other, r.model, r.context())) continue;
    const Prediction p = predict(r.costs, r.model, other, r.cluster, r.workload, r.calibration);
    EXPECT_FALSE(fits_plan(p));
    EXPECT_GE(p.memory_gib, chosen.memory_gib) << layout::split_spec(other);
  }
}

TEST(PartialLayout, KeepsASplitTheSpecStates) {
  const PlannedRun r = run_for("glm-5.2", "h200", 128);
  // first=18 alone leaves 60 layers for 3 stages: valid, so nothing is chosen.
  const CompletedLayout c = complete(r, "tp=4,pp=4,ep=32,sp=on,precision_aware=on,first=18");
  EXPECT_EQ(c.layout.first, 18);
  EXPECT_EQ(c.layout.last, 0);
  EXPECT_TRUE(c.chosen.empty());
}

}  // namespace
}  // namespace ladle::plan
