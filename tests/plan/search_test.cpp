#include "ladle/plan/search.hpp"

#include <gtest/gtest.h>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/recipe/catalog.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

PlanRequest request_for(const std::string& model_name, const std::string& gpu, int64_t gpus) {
  PlanRequest r;
  r.model = model::load_model(model_name);
  r.cluster = make_cluster(gpu, gpus);
  r.calibration = default_calibration();
  return r;
}

TEST(Search, FindsTheFlashSeedAndRanksFasterLayoutsAboveIt) {
  PlanRequest r = request_for("glm-4.7-flash", "h200", 8);
  const recipe::LoadedRecipe seed = recipe::find_recipe("attune-tp1-pp1-ep8");
  const layout::LayoutContext context{8, 8, 8192, 128};
  r.watch.push_back(layout::resolve_layout(layout::layout_from_recipe(seed.recipe), context));
  r.top = 3;
  const PlanReport report = plan_layouts(r);
  EXPECT_GT(report.enumerated, report.valid);
  EXPECT_GT(report.valid, report.fitting);
  ASSERT_EQ(report.watched.size(), 1u);
  const WatchResult& w = report.watched[0];
  EXPECT_TRUE(w.enumerated);
  EXPECT_EQ(w.status, "fits");
  EXPECT_GE(w.rank, 1);
  ASSERT_EQ(report.top.size(), 3u);
  for (size_t i = 1; i < report.top.size(); ++i) {
    EXPECT_GE(report.top[i - 1].tokens_per_s_per_gpu, report.top[i].tokens_per_s_per_gpu);
  }
  // Everything ranked above the seed is predicted faster than it.
  if (w.rank > 1) {
    EXPECT_GT(report.top.front().tokens_per_s_per_gpu, w.tokens_per_s_per_gpu);
  } else {
    EXPECT_EQ(report.top.front().layout, w.layout);
  }
  for (const Prediction& p : report.top) {
    EXPECT_TRUE(p.fits);
    EXPECT_LE(p.memory_gib, report.usable_gib);
  }
  ASSERT_FALSE(report.best_rejected.empty());
  EXPECT_NE(report.best_rejected.front().reason.find("GiB usable"), std::string::npos);
}

TEST(Search, FindsBothGlm52SeedsAndOrdersThem) {
  PlanRequest r = request_for("glm-5.2", "h200", 128);
  const layout::LayoutContext context{128, 8, 8192, 128};
  for (const char* stem : {"attune-tp4-pp4", "attune-tp8-pp4"}) {
    r.watch.push_back(layout::resolve_layout(layout::layout_from_recipe(recipe::find_recipe(stem).recipe), context));
  }
  r.top = 1;
  const PlanReport report = plan_layouts(r);
  ASSERT_EQ(report.watched.size(), 2u);
  for (const WatchResult& w : report.watched) {
    EXPECT_TRUE(w.enumerated) << layout::format_layout_spec(w.layout);
    EXPECT_EQ(w.status, "fits");
    EXPECT_GT(report.top.front().tokens_per_s_per_gpu, w.tokens_per_s_per_gpu);
  }
  EXPECT_LT(report.watched[0].rank, report.watched[1].rank);  // TP4 ranks above TP8
}

TEST(Search, RejectsAGpuCountNoLayoutDivides) {
  // 97 is prime and above the 47 layers: only dp = 97 remains, which does not divide 128 rows.
  // (7 GPUs do place: pp 7 with a 5/7 layer split.)
  PlanRequest r = request_for("glm-4.7-flash", "h200", 97);
  EXPECT_LADLE_ERROR(plan_layouts(r), usage, "no valid layout of glm-4.7-flash on 97 GPUs");
}

TEST(Search, RejectsAModelThatDoesNotFit) {
  PlanRequest r = request_for("glm-5.2", "h100", 8);
  EXPECT_LADLE_ERROR(plan_layouts(r), usage, "no layout of glm-5.2 fits 8 x h100-sxm");
}

TEST(Search, IsDeterministic) {
  PlanRequest r = request_for("qwen3-30b-a3b", "h100", 16);
  r.top = 4;
  const PlanReport a = plan_layouts(r);
  const PlanReport b = plan_layouts(r);
  ASSERT_EQ(a.top.size(), b.top.size());
  for (size_t i = 0; i < a.top.size(); ++i) EXPECT_EQ(a.top[i], b.top[i]);
  EXPECT_EQ(a.fitting, b.fitting);
}

}  // namespace
}  // namespace ladle::plan

namespace ladle::plan {
namespace {

TEST(Search, KeepsTheFixedPartOfTheUsersArguments) {
  PlanRequest r = request_for("glm-4.7-flash", "h200", 8);
  r.top = 5;
  r.base = layout::parse_layout_spec("tp=1,recompute=full:uniform:1,grad_reduce=bf16,dispatcher=alltoall");
  r.fixed = {"tp", "recompute", "recompute_method", "recompute_layers", "grad_reduce", "dispatcher"};
  const PlanReport fixed = plan_layouts(r);
  ASSERT_FALSE(fixed.top.empty());
  for (const Prediction& p : fixed.top) {
    EXPECT_EQ(p.layout.tp, 1);
    EXPECT_EQ(p.layout.recompute, RecomputeGranularity::full);
    EXPECT_EQ(p.layout.grad_reduce, StateDtype::bf16);
    EXPECT_EQ(p.layout.dispatcher, MoeDispatcher::alltoall);
  }
  // Fixing knobs only narrows the search.
  PlanRequest open = request_for("glm-4.7-flash", "h200", 8);
  EXPECT_LT(fixed.enumerated, plan_layouts(open).enumerated);
}

}  // namespace
}  // namespace ladle::plan
