#include "ladle/plan/search.hpp"

#include <fmt/format.h>
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
  // TP4 is predicted faster than TP8; both are far enough down the space that their ranks may be
  // beyond the exactly counted range, which never orders them the wrong way.
  EXPECT_GT(report.watched[0].tokens_per_s_per_gpu, report.watched[1].tokens_per_s_per_gpu);
  EXPECT_LE(report.watched[0].rank, report.watched[1].rank);
  if (report.watched[0].rank_exact && report.watched[1].rank_exact) {
    EXPECT_LT(report.watched[0].rank, report.watched[1].rank);
  }
}

TEST(Search, RejectsAGpuCountNoLayoutDivides) {
  // 776 = 8 x 97 whole nodes; 97 is prime and above the 47 layers, so it must go to dp, which does
  // not divide 128 rows. (7 GPUs do place: pp 7 with a 5/7 layer split.)
  PlanRequest r = request_for("glm-4.7-flash", "h200", 776);
  EXPECT_LADLE_ERROR(plan_layouts(r), usage, "no valid layout of glm-4.7-flash on 776 GPUs");
}

TEST(Search, RejectsAGpuCountThatIsNotWholeNodes) {
  // 97 GPUs are 12 nodes of 8 and one GPU more: a job runs on whole nodes.
  PlanRequest r = request_for("glm-4.7-flash", "h200", 97);
  EXPECT_LADLE_ERROR(plan_layouts(r), usage, "a job runs on whole nodes");
}

TEST(Search, RejectsAModelThatDoesNotFit) {
  PlanRequest r = request_for("glm-5.2", "h100", 8);
  EXPECT_LADLE_ERROR(plan_layouts(r), no, "no layout of glm-5.2 fits 8 x h100-sxm");
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

namespace ladle::plan {
namespace {

// The pruned search must give the brute-force answer: the same top layouts in the same order with
// the same figures (and twin counts), the same best rejected layouts and the same watched ranks.
void expect_same_answer(PlanRequest r) {
  r.brute_force = true;
  const PlanReport brute = plan_layouts(r);
  r.brute_force = false;
  const PlanReport pruned = plan_layouts(r);
  const std::string what = fmt::format("{} on {} x {}", r.model.name, r.cluster.gpus, r.cluster.gpu.name);
  EXPECT_EQ(brute.enumerated, pruned.enumerated) << what;
  EXPECT_LE(brute.evaluated, brute.enumerated) << what;  // all but the layouts of unsplittable cores
  EXPECT_LT(pruned.evaluated, brute.evaluated) << what;
  EXPECT_GT(pruned.bounded_memory + pruned.bounded_speed, 0) << what;
  ASSERT_EQ(brute.top.size(), pruned.top.size()) << what;
  for (size_t i = 0; i < brute.top.size(); ++i) {
    EXPECT_EQ(layout::format_layout_spec(brute.top[i].layout), layout::format_layout_spec(pruned.top[i].layout))
        << what << " rank " << i + 1;
    EXPECT_EQ(brute.top[i], pruned.top[i]) << what << " rank " << i + 1;
  }
  EXPECT_EQ(brute.top_same_speed, pruned.top_same_speed) << what;
  ASSERT_EQ(brute.best_rejected.size(), pruned.best_rejected.size()) << what;
  for (size_t i = 0; i < brute.best_rejected.size(); ++i) {
    EXPECT_EQ(brute.best_rejected[i].layout, pruned.best_rejected[i].layout) << what;
    EXPECT_EQ(brute.best_rejected[i].reason, pruned.best_rejected[i].reason) << what;
  }
  ASSERT_EQ(brute.watched.size(), pruned.watched.size());
  for (size_t i = 0; i < brute.watched.size(); ++i) {
    EXPECT_EQ(brute.watched[i].rank, pruned.watched[i].rank) << what;
    EXPECT_EQ(brute.watched[i].rank_exact, pruned.watched[i].rank_exact) << what;
    EXPECT_EQ(brute.watched[i].enumerated, pruned.watched[i].enumerated) << what;
  }
}

// Smaller spaces: a few knobs fixed so that brute force stays quick; every searched knob of the
// table still varies in at least one of them.
PlanRequest small_space(const std::string& model_name, const std::string& gpu, int64_t gpus, const std::string& spec,
                        std::vector<std::string> fixed) {
  PlanRequest r = request_for(model_name, gpu, gpus);
  r.top = 20;
  r.base = layout::parse_layout_spec(spec);
  r.fixed = std::move(fixed);
  return r;
}

TEST(Search, PrunedEqualsBruteForceOnAMoeWithMla) {
  expect_same_answer(small_space("glm-4.7-flash", "h200", 8, "tp=1,rows_per_mb=1", {"tp", "rows_per_mb"}));
}

TEST(Search, PrunedEqualsBruteForceOnAMoeWithGqa) {
  expect_same_answer(small_space("qwen3-30b-a3b", "h100", 16, "cp=1,rows_per_mb=1", {"cp", "rows_per_mb"}));
}

TEST(Search, PrunedEqualsBruteForceOnADenseModel) {
  expect_same_answer(small_space("llama-3.1-8b", "h100", 16, "rows_per_mb=1", {"rows_per_mb"}));
}

TEST(Search, PrunedEqualsBruteForceWithRejectedAndWatchedLayouts) {
  // A model that barely fits, so that the faster layouts are rejected, and a layout near the top
  // to rank (a slow one would make the bound as weak as brute force).
  PlanRequest r = small_space("glm-5.2", "h200", 64, "tp=4,pp=4,cp=1,etp=1,rows_per_mb=1,dispatcher=alltoall",
                              {"tp", "pp", "cp", "etp", "rows_per_mb", "dispatcher"});
  const PlanReport open = plan_layouts(r);
  ASSERT_GE(open.top.size(), 3u);
  ASSERT_FALSE(open.best_rejected.empty());
  r.watch.push_back(open.top[2].layout);
  expect_same_answer(r);
}

TEST(Search, ASlowWatchedLayoutRanksBeyondTheExactRangeAsBruteForceSays) {
  // Brute force counts every faster fitting layout; the pruned search stops predicting below the
  // kWatchRankExact fastest, and both report the same: beyond the range for the slow layout, exact
  // for the fast one.
  PlanRequest r = small_space("glm-4.7-flash", "h200", 8, "tp=1,rows_per_mb=1", {"tp", "rows_per_mb"});
  const layout::LayoutContext context{8, 8, 8192, 128};
  r.watch.push_back(layout::resolve_layout(
      layout::parse_layout_spec("tp=1,pp=1,cp=1,ep=8,rows_per_mb=1,recompute=full,cuda_graph=none"), context));
  const PlanReport open = plan_layouts(r);
  ASSERT_GE(open.top.size(), 3u);
  r.watch.push_back(open.top[2].layout);
  r.brute_force = true;
  const PlanReport brute = plan_layouts(r);
  ASSERT_EQ(brute.watched.size(), 2u);
  EXPECT_EQ(brute.watched[0].status, "fits");
  EXPECT_FALSE(brute.watched[0].rank_exact);
  EXPECT_EQ(brute.watched[0].rank, kWatchRankExact + 1);
  EXPECT_TRUE(brute.watched[1].rank_exact);
  EXPECT_GE(brute.watched[1].rank, 3);
  EXPECT_LE(brute.watched[1].rank, kWatchRankExact);
  r.brute_force = false;
  expect_same_answer(r);
}

TEST(Search, PrunedEqualsBruteForceForCost) {
  PlanRequest r = small_space("qwen3-30b-a3b", "b200", 8, "rows_per_mb=2", {"rows_per_mb"});
  r.objective = Objective::cost;
  expect_same_answer(r);
}

TEST(Search, SearchesEveryTableKnob) {
  // The top of an open search differs from the defaults in the new knobs where they pay.
  PlanRequest r = request_for("glm-4.7-flash", "h200", 8);
  r.top = 20;
  const PlanReport report = plan_layouts(r);
  bool bf16_grads = false;
  for (const Prediction& p : report.top) bf16_grads = bf16_grads || p.layout.grad_reduce == StateDtype::bf16;
  EXPECT_TRUE(bf16_grads);
  EXPECT_GT(report.enumerated, 1000000);
}

}  // namespace
}  // namespace ladle::plan
