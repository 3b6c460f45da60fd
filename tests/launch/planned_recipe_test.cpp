#include "ladle/launch/planned_recipe.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "ladle/check/rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/search.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

PlanReport flash_plan(PlanRequest& r, const std::string& gpu, int64_t gpus) {
  r.model = model::load_model("glm-4.7-flash");
  r.cluster = make_cluster(gpu, gpus);
  r.calibration = default_calibration();
  r.top = 1;
  return plan_layouts(r);
}

TEST(PlannedRecipe, EmittedRecipesPassCheckForEveryEngine) {
  for (layout::Engine engine : {layout::Engine::slime, layout::Engine::miles, layout::Engine::megatron}) {
    for (int64_t gpus : {8, 32}) {
      PlanRequest r;
      const PlanReport report = flash_plan(r, "h200", gpus);
      const launch::Base base = launch::resolve_base("", r.model, engine, 8192, 128);
      const Recipe planned =
          launch::planned_recipe(r, report.top.front(), engine, base);
      const std::string text = recipe::write_recipe(planned);
      const recipe::LoadedRecipe loaded = recipe::read_recipe(text, "planned.yaml");
      EXPECT_EQ(loaded.recipe.status, "planned");
      ASSERT_TRUE(loaded.recipe.predicted.has_value());
      EXPECT_NEAR(loaded.recipe.predicted->tokens_per_s_per_gpu, report.top.front().tokens_per_s_per_gpu, 0.01);
      const check::CheckReport checked = check::check_recipe(loaded);
      for (const recipe::Finding& f : checked.findings) {
        ADD_FAILURE() << layout::to_string(engine) << " " << gpus << ": " << f.rule << " " << f.field << ": " << f.message
                      << "\n" << text;
      }
    }
  }
}

TEST(PlannedRecipe, LaunchScriptCarriesTheLayout) {
  PlanRequest r;
  const PlanReport report = flash_plan(r, "h200", 8);
  const launch::Base base = launch::resolve_base("", r.model, layout::Engine::slime, 8192, 128);
  const Recipe planned =
      launch::planned_recipe(r, report.top.front(), layout::Engine::slime, base);
  const args::RunScript script = args::parse_run_script(planned.run);
  Layout from_script = layout::layout_from_run_args(script);
  from_script.dp = report.top.front().layout.dp;
  from_script.rows_per_mb = report.top.front().layout.rows_per_mb;
  EXPECT_EQ(layout::format_layout_spec(from_script), layout::format_layout_spec(report.top.front().layout));
  ASSERT_NE(script.find("--actor-num-nodes"), nullptr);
  EXPECT_EQ(script.find("--actor-num-nodes")->value, "1");
}

TEST(PlannedRecipe, PredictedMemoryIsInDecimalGigabytes) {
  PlanRequest r;
  const PlanReport report = flash_plan(r, "h200", 8);
  const Prediction& best = report.top.front();
  const launch::Base base = launch::resolve_base("", r.model, layout::Engine::slime, 8192, 128);
  const Recipe planned = launch::planned_recipe(r, best, layout::Engine::slime, base);
  ASSERT_TRUE(planned.predicted.has_value());
  EXPECT_NEAR(planned.predicted->memory_gib, best.memory_gib, 0.006);
  double parts = 0;
  for (const PredictedPart& part : planned.predicted->memory_breakdown) parts += part.value;
  EXPECT_NEAR(parts, planned.predicted->memory_gib, 0.05);
  // One entry per pipeline stage; the worst of them is the block's memory.
  ASSERT_EQ(planned.predicted->stage_memory.size(), best.stages.size());
  double worst = 0;
  for (const PredictedPart& stage : planned.predicted->stage_memory) worst = std::max(worst, stage.value);
  EXPECT_NEAR(worst, planned.predicted->memory_gib, 0.006);
  // The interval brackets the prediction.
  ASSERT_TRUE(planned.predicted->tokens_per_s_per_gpu_low && planned.predicted->tokens_per_s_per_gpu_high);
  EXPECT_LE(*planned.predicted->tokens_per_s_per_gpu_low, planned.predicted->tokens_per_s_per_gpu);
  EXPECT_GE(*planned.predicted->tokens_per_s_per_gpu_high, planned.predicted->tokens_per_s_per_gpu);
}

}  // namespace
}  // namespace ladle::plan
