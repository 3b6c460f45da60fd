// The model pages' "how many GPUs?" sweep (site/sweep.hpp), its charts and the index's predicted
// frontier, and the chart pieces they use: intervals, measured points, a log2 GPU axis and the
// usable-memory line of memory charts.
#include "ladle/site/sweep.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/search.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/site/pages.hpp"
#include "ladle/site/svg_chart.hpp"
#include "site/site_fixture.hpp"

namespace ladle::site {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

std::vector<recipe::LoadedRecipe> flash_only() {
  std::vector<recipe::LoadedRecipe> out;
  for (recipe::LoadedRecipe& r : recipe::load_embedded_catalog()) {
    if (r.recipe.model == "GLM-4.7-Flash") out.push_back(std::move(r));
  }
  return out;
}

TEST(Sweep, SearchesEachCountOnTheRecipesWorkloadAndMarksTheFrontier) {
  const std::vector<recipe::LoadedRecipe> loaded = flash_only();
  ASSERT_EQ(loaded.size(), 1u);
  const std::vector<ModelSweep> sweeps = sweep_models(loaded, {1, 16, 8});
  ASSERT_EQ(sweeps.size(), 1u);
  const ModelSweep& s = sweeps[0];
  EXPECT_EQ(s.model, "GLM-4.7-Flash");
  EXPECT_EQ(s.gpu, "H200");
  EXPECT_EQ(s.basis, loaded[0].path);
  // Sorted, unique, with the recipe's own count (8) once.
  ASSERT_EQ(s.counts.size(), 3u);
  EXPECT_EQ(s.counts[0].gpus, 1);
  EXPECT_EQ(s.counts[1].gpus, 8);
  EXPECT_EQ(s.counts[2].gpus, 16);
  // One GPU holds no layout of a 30B-parameter model: the planner's reason, not a figure.
  EXPECT_FALSE(s.counts[0].fits);
  EXPECT_FALSE(s.counts[0].reason.empty());
  EXPECT_EQ(s.counts[0].reason.find("error:"), std::string::npos) << s.counts[0].reason;
  for (size_t i = 1; i < s.counts.size(); ++i) {
    const SweepCount& c = s.counts[i];
    ASSERT_TRUE(c.fits) << c.gpus << ": " << c.reason;
    EXPECT_LT(c.tokens_per_s_low, c.tokens_per_s_per_gpu);
    EXPECT_GT(c.tokens_per_s_high, c.tokens_per_s_per_gpu);
    EXPECT_LE(c.memory_gib, c.capacity_gib);
    EXPECT_GT(c.usd_per_million_tokens, 0);
    // The frontier: no other count gives more total tokens/s for less per token.
    bool dominated = false;
    for (const SweepCount& o : s.counts) {
      dominated = dominated || (o.fits && o.gpus != c.gpus &&
                                o.tokens_per_s_per_gpu * static_cast<double>(o.gpus) >
                                    c.tokens_per_s_per_gpu * static_cast<double>(c.gpus) &&
                                o.usd_per_million_tokens < c.usd_per_million_tokens);
    }
    EXPECT_EQ(c.frontier, !dominated) << c.gpus;
  }
  EXPECT_DOUBLE_EQ(hours_to_tokens(3600.0 * 8 * 100, 100, 8), 1.0);
}

SiteCatalog catalog_with_sweep() {
  SiteCatalog catalog =
      make_site_catalog({test::site_recipe(test::glm47_flash(), "recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml")});
  ModelSweep s{"GLM-4.7-Flash", "H200", "p5en.48xlarge", "rows of 8,192 tokens, global batch 128, bf16", "r.yaml", {}};
  s.counts.push_back({.gpus = 2, .fits = false, .reason = "no layout fits"});
  s.counts.push_back({8, true, "", "TP1 PP1 EP8 DP8", 8000, 6400, 10000, 0.27, 120, 133.4, true});
  s.counts.push_back({16, true, "", "TP1 PP1 EP16 DP16", 7000, 5600, 8800, 0.31, 110, 133.4, false});
  catalog.sweeps.push_back(s);
  return catalog;
}

TEST(Sweep, TheModelPageDrawsTheSweepWithItsIntervalAndTheMeasuredRecipes) {
  const SiteCatalog catalog = catalog_with_sweep();
  const std::string html = render_model_page(catalog, "GLM-4.7-Flash");
  EXPECT_NE(html.find("How many GPUs? H200"), std::string::npos);
  for (const char* id : {"chart-sweep-tokens-h200", "chart-sweep-usd-h200", "chart-sweep-days-h200"}) {
    EXPECT_NE(html.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_EQ(count(html, "<polygon "), 3u);            // one interval band per chart
  EXPECT_EQ(count(html, "class=\"marker\""), 3u);      // the one measured recipe on each chart
  EXPECT_NE(html.find("no layout: no layout fits"), std::string::npos);
  EXPECT_NE(html.find("6,400\u201310,000"), std::string::npos);
  // Days to 1T tokens at 8 x 8,000 tokens/s: 1e12 / 64,000 / 86,400 = 180.8.
  EXPECT_NE(html.find(">181<"), std::string::npos);
}

TEST(Sweep, TheIndexListsOnlyThePredictedFrontier) {
  const std::string html = render_index(catalog_with_sweep());
  const size_t at = html.find("id=\"frontier\"");
  ASSERT_NE(at, std::string::npos);
  const std::string table = html.substr(at, html.find("</table>", at) - at);
  EXPECT_EQ(count(table, "<tr data-model=\"GLM-4.7-Flash\" data-gpu=\"H200\">"), 1u);
  EXPECT_NE(table.find("8 x H200"), std::string::npos);
  EXPECT_EQ(table.find("16 x H200"), std::string::npos);
}

TEST(Sweep, MemoryChartsDrawTheGpusUsableMemory) {
  const SiteCatalog catalog =
      make_site_catalog({test::site_recipe(test::glm52_tp4(), "recipes/glm-5.2-744b-a40b/h200/attune-tp4-pp4.yaml")});
  ASSERT_TRUE(catalog.recipes[0].prediction);
  const std::string page = render_recipe_page(catalog, 0);
  // What the planner lets a layout use on an H200: its HBM less the margin of plan's default
  // --fit-confidence (plan prints it).
  const double margin = plan::plan_memory_margin(std::nullopt, std::nullopt, plan::default_calibration());
  const double usable_gib = plan::hbm_capacity_gib(plan::make_cluster("H200", 1).gpu) * (1.0 - margin);
  const std::string usable = fmt::format("usable on H200: {:.1f} GiB", usable_gib);
  EXPECT_GE(count(page, "class=\"limit\""), 1u);
  EXPECT_NE(page.find(usable), std::string::npos) << usable;
  EXPECT_NE(render_model_page(catalog, "GLM-5.2-744B-A40B").find(usable), std::string::npos);
}

TEST(SvgChart, ALimitLineIsDrawnAndTheAxisReachesIt) {
  BarChart chart;
  chart.id = "mem";
  chart.title = "Memory";
  chart.value_label = "GiB per GPU";
  chart.categories = {"stage 0"};
  chart.series = {BarSeries{"predicted", {40.0}}};
  chart.limit = 133.4;
  chart.limit_label = "usable on H200: 133.4 GiB";
  const std::string svg = render_bar_chart(chart);
  EXPECT_EQ(count(svg, "class=\"limit\""), 1u);
  EXPECT_NE(svg.find(">150<"), std::string::npos);  // the axis runs past 133.4 to its next tick (steps of 50)
  EXPECT_NE(svg.find("usable on H200: 133.4 GiB"), std::string::npos);
}

TEST(SvgChart, ALog2AxisTicksEveryPowerOfTwo) {
  LineChart chart;
  chart.id = "sweep";
  chart.x_label = "GPUs";
  chart.y_label = "tokens/s";
  chart.x_log2 = true;
  chart.series = {LineSeries{"predicted", {{8, 1}, {16, 2}, {512, 3}}, {}, {}, false}};
  const std::string svg = render_line_chart(chart);
  for (const char* tick : {">8<", ">16<", ">32<", ">64<", ">128<", ">256<", ">512<"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_EQ(svg.find(">100<"), std::string::npos);
}

}  // namespace
}  // namespace ladle::site
