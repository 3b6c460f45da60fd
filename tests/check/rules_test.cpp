#include "ladle/check/rules.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "ladle/layout/knobs.hpp"
#include "ladle/recipe/catalog.hpp"
#include "support/test_support.hpp"

namespace ladle::recipe {
namespace {

using check::check_recipe;
using check::CheckReport;
using check::recipe_rules;
using check::RuleInfo;

TEST(RecipeRules, EveryCatalogRecipeAndSeedPasses) {
  for (const LoadedRecipe& loaded : load_embedded_catalog()) {
    const CheckReport report = check_recipe(loaded);
    EXPECT_TRUE(report.findings.empty()) << loaded.path << ": " << report.findings.front().rule << " "
                                         << report.findings.front().message;
    EXPECT_TRUE(report.skipped.empty()) << loaded.path;
  }
  for (const LoadedRecipe& loaded : load_catalog_dir(test::source_path("tests/data/recipe/seeds"))) {
    EXPECT_TRUE(check_recipe(loaded).findings.empty()) << loaded.path;
  }
}

TEST(RecipeRules, ReportsTheExpertDataParallelSize) {
  const auto glm47 = find_recipe("glm-4.7-flash/h200/attune-tp1-pp1-ep8");
  EXPECT_EQ(check_recipe(glm47).expert_data_parallel, 1);  // 1 x 1 x 8 / (8 x 1)
  const auto glm52 = find_recipe("glm-5.2-744b-a40b/h200/attune-tp8-pp4");
  EXPECT_EQ(check_recipe(glm52).expert_data_parallel, 1);  // 8 x 1 x 4 / (32 x 1)
}

// Each fixture is a seed with one thing broken: its rule fires, and no other.
TEST(RecipeRules, EachRuleHasAFixtureThatTripsItAndOnlyIt) {
  std::set<std::string> tripped;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_path("tests/data/recipe/rules"))) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string name = entry.path().filename().string();
    const std::string rule = name.substr(0, name.find('-'));
    const CheckReport report = check_recipe(read_recipe_file(entry.path().string()));
    ASSERT_FALSE(report.findings.empty()) << name << " trips nothing";
    for (const Finding& f : report.findings) {
      EXPECT_EQ(f.rule, rule) << name << ": " << f.message;
      EXPECT_GT(f.line, 0) << name;
    }
    tripped.insert(rule);
  }
  for (const RuleInfo& rule : recipe_rules()) EXPECT_TRUE(tripped.count(rule.id)) << rule.id << " has no fixture";
}

TEST(RecipeRules, FindingsPointAtTheOffendingLine) {
  const CheckReport report =
      check_recipe(read_recipe_file(test::source_path("tests/data/recipe/rules/R12-launch_tp_disagrees.yaml")));
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].message, "--tensor-model-parallel-size 2 but layout.tp is 4");
  EXPECT_EQ(report.findings[0].line, 141);  // the argument's line in the run block
}

TEST(RecipeRules, LaunchArgumentsAreCheckedUnderTheKnobTablesFlagsAndFields) {
  // R12 names each argument and field as the knob table writes them (layout/knobs.hpp): a
  // value that disagrees is reported under the row's first flag and its recipe field.
  const LoadedRecipe seed = find_recipe("glm-4.7-flash/h200/attune-tp1-pp1-ep8");
  for (const std::string_view key : {"tp", "pp", "cp", "ep", "etp", "max_tokens"}) {
    const layout::Knob* knob = nullptr;
    for (const layout::Knob& k : layout::kKnobs) knob = k.key == key ? &k : knob;
    ASSERT_NE(knob, nullptr) << key;
    const std::string flag = std::string(knob->args.front().flag) + " ";
    LoadedRecipe loaded = seed;
    const size_t at = loaded.recipe.run.find(flag);
    ASSERT_NE(at, std::string::npos) << flag;
    const size_t value_end = loaded.recipe.run.find(' ', at + flag.size());
    loaded.recipe.run.replace(at + flag.size(), value_end - at - flag.size(), "3");
    std::vector<std::string> r12;
    for (const Finding& f : check_recipe(loaded).findings) {
      if (f.rule == "R12") r12.push_back(f.field + ": " + f.message);
    }
    ASSERT_EQ(r12.size(), 1u) << key;
    const std::string field = "layout." + std::string(knob->recipe);
    EXPECT_EQ(r12[0].rfind(field + ": " + flag + "3 but " + field + " is ", 0), 0u) << r12[0];
  }
}

TEST(RecipeRules, ArgumentsHiddenBehindAnArrayExpansionAreNotDemanded) {
  // The GLM-4.7-Flash seed sets its dispatcher through "${MODEL_ARGS[@]}"; a script without such an
  // expansion must name a non-default dispatcher explicitly.
  LoadedRecipe loaded = find_recipe("glm-4.7-flash/h200/attune-tp1-pp1-ep8");
  EXPECT_TRUE(check_recipe(loaded).findings.empty());
  const std::string expansion = "  \"${MODEL_ARGS[@]}\" \\\n";
  loaded.recipe.run.erase(loaded.recipe.run.find(expansion), expansion.size());
  const CheckReport report = check_recipe(loaded);
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].rule, "R12");
  EXPECT_NE(report.findings[0].message.find("--moe-token-dispatcher-type"), std::string::npos);
}

TEST(RecipeRules, TheWindowIsInTheEnginesOwnStepNumbers) {
  // slime numbers its steps from 0: a window ending at steps_per_run is past the run.
  LoadedRecipe loaded = find_recipe("glm-4.7-flash/h200/attune-tp1-pp1-ep8");
  const int64_t steps = loaded.recipe.result->steps_per_run;
  auto r7 = [](const LoadedRecipe& r) {
    std::vector<std::string> messages;
    for (const Finding& f : check_recipe(r).findings) {
      if (f.rule == "R7") messages.push_back(f.message);
    }
    return messages;
  };
  loaded.recipe.result->window = {5, steps - 1};
  EXPECT_TRUE(r7(loaded).empty());
  loaded.recipe.result->window = {6, steps};
  EXPECT_EQ(r7(loaded), std::vector<std::string>{fmt::format(
                            "window [6, {}] is not inside steps 0..{} of the run", steps, steps - 1)});
  // Megatron-LM (--train-iters) prints iterations 1 .. train_iters: its last step is a record.
  const std::string flag = "--num-rollout";
  loaded.recipe.run.replace(loaded.recipe.run.find(flag), flag.size(), "--train-iters");
  EXPECT_TRUE(r7(loaded).empty());
  loaded.recipe.result->window = {0, steps - 1};
  EXPECT_EQ(r7(loaded), std::vector<std::string>{fmt::format(
                            "window [0, {}] is not inside steps 1..{} of the run", steps - 1, steps)});
}

}  // namespace
}  // namespace ladle::recipe

namespace ladle::recipe {
namespace {

using check::check_recipe;
using check::CheckReport;
using check::recipe_rules;
using check::RuleInfo;

TEST(RecipeRules, R5ReadsThePipelineLayoutStringsStages) {
  // 78 decoder layers on 18/20/20/20, written as a layout string: no even split needed, nothing to report.
  const CheckReport report = check_recipe(read_recipe_file(test::source_path("tests/data/recipe/pipeline_layout_split.yaml")));
  for (const Finding& f : report.findings) ADD_FAILURE() << f.rule << ": " << f.message;
  const CheckReport short_one =
      check_recipe(read_recipe_file(test::source_path("tests/data/recipe/rules/R5-pipeline_layout_misses_a_layer.yaml")));
  ASSERT_EQ(short_one.findings.size(), 1u);
  EXPECT_EQ(short_one.findings[0].message,
            "the pipeline layout holds 77 decoder layers (t), but glm-5.2 has 78");
}

}  // namespace
}  // namespace ladle::recipe
