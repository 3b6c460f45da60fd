#include "ladle/plan/scenario.hpp"

#include <gtest/gtest.h>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/recipe/catalog.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

Scenario qwen_on(const char* gpu) {
  Scenario s;
  s.model = model::load_model("qwen3-30b-a3b");
  s.cluster = make_cluster(gpu, 16);
  s.price_model();
  return s;
}

TEST(Scenario, FromRecipeReadsModelGpusWorkloadAndPricesTheModel) {
  const recipe::LoadedRecipe loaded = recipe::find_recipe("attune-tp1-pp1-ep8");
  const Scenario s = scenario_from_recipe(loaded);
  EXPECT_EQ(s.cluster.gpus, loaded.recipe.gpu.count);
  EXPECT_EQ(s.workload.row_tokens, loaded.recipe.workload.row_tokens);
  EXPECT_EQ(s.workload.global_batch, loaded.recipe.workload.global_batch);
  EXPECT_GT(s.costs.n_params, 0);
  EXPECT_EQ(s.costs.num_layers, s.model.num_layers);
}

TEST(Scenario, ContextIsDerivedFromTheCurrentModelClusterAndWorkload) {
  Scenario s = qwen_on("h200");
  s.workload.row_tokens = 4096;
  s.workload.global_batch = 512;
  const layout::LayoutContext c = s.context();
  EXPECT_EQ(c.gpus, 16);
  EXPECT_EQ(c.gpus_per_node, s.cluster.gpus_per_node());
  EXPECT_EQ(c.row_tokens, 4096);
  EXPECT_EQ(c.global_batch, 512);
  EXPECT_EQ(c.num_layers, s.model.num_layers);
  // A changed workload is seen at once: there is no stored copy to go stale.
  s.workload.row_tokens = 16384;
  EXPECT_EQ(s.context().row_tokens, 16384);
}

TEST(Scenario, Mxfp8IsRefusedOnHopperAndRunsOnBlackwell) {
  const Layout layout = layout::parse_layout_spec("tp=2,ep=8,sp=on,fp8=e4m3,fp8_recipe=mxfp8");
  EXPECT_TRUE(layout::precision_violation(layout, qwen_on("h100").context()).has_value());
  EXPECT_FALSE(layout::precision_violation(layout, qwen_on("b200").context()).has_value());
}

}  // namespace
}  // namespace ladle::plan
