// A log scored or compared with a recipe must be a run of it: the model, engine, batch and layout
// the log states. Real logs from tests/data/runlog/real/ (see each <name>.source.txt).
#include "ladle/verify/log_identity.hpp"

#include <string>

#include "ladle/recipe/recipe_io.hpp"
#include "support/test_support.hpp"

namespace ladle::verify {
namespace {

runlog::RunLog real_log(const std::string& name) {
  return runlog::read_log_file(test::source_path("tests/data/runlog/real/" + name));
}

Recipe flash() {
  return recipe::read_recipe_file(test::source_path("recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml")).recipe;
}

TEST(LogIdentity, MegatronLogOfAnotherModelIsRefusedNamingTheField) {
  // BigScience's GPT-2 run prints hidden_size 6144 on line 1206; GLM-4.7-Flash has 2048.
  const runlog::RunLog log = real_log("megatron_bigscience_gpt2_base_n4.log");
  EXPECT_LADLE_ERROR(check_log_matches_recipe(log, flash(), "flash.yaml", LogIdentity::run), input,
                     "megatron_bigscience_gpt2_base_n4.log:1206: error: hidden_size: the log states 6144, but the "
                     "recipe's model GLM-4.7-Flash (flash.yaml) has 2048: the log is of another model");
  EXPECT_LADLE_ERROR(check_log_matches_recipe(log, flash(), "flash.yaml", LogIdentity::model), input,
                     "hidden_size: the log states 6144");
}

TEST(LogIdentity, NemoLogAgainstAMilesRecipeIsAnotherEngine) {
  const runlog::RunLog log = real_log("nemo2_evo2_bionemo_val_interleaved.log");
  EXPECT_LADLE_ERROR(check_log_matches_recipe(log, flash(), "flash.yaml", LogIdentity::run), input,
                     "nemo2_evo2_bionemo_val_interleaved.log:3: error: format: a NeMo 2.0 log (nemo), but flash.yaml "
                     "runs miles (stack.framework 'miles 0.1.0");
  // A reference run may have had another engine: only its model is held against the recipe.
  EXPECT_NO_THROW(check_log_matches_recipe(log, flash(), "flash.yaml", LogIdentity::model));
}

TEST(LogIdentity, GoldenValuesStateNoBatchSoNoThroughput) {
  Recipe recipe = flash();
  recipe.stack.framework = "Megatron-Bridge";
  const runlog::RunLog log = real_log("megatron_bridge_golden_deepseek_fsdp_gb200.json");
  EXPECT_LADLE_ERROR(check_log_matches_recipe(log, recipe, "b.yaml", LogIdentity::run), input,
                     "megatron_bridge_golden_deepseek_fsdp_gb200.json: error: format: CI golden values state no batch "
                     "or tokens per step: no throughput of b.yaml can be computed");
  // As a converge reference their loss is what counts.
  EXPECT_NO_THROW(check_log_matches_recipe(log, recipe, "b.yaml", LogIdentity::model));
}

TEST(LogIdentity, LogThatStatesNothingIsAccepted) {
  const runlog::RunLog log =
      runlog::read_log_file(test::source_path("tests/data/runlog/synthetic/miles_glm47flash_seed.log"));
  EXPECT_TRUE(log.settings.empty());
  EXPECT_NO_THROW(check_log_matches_recipe(log, flash(), "flash.yaml", LogIdentity::run));
}

TEST(LogIdentity, BatchAndLayoutAreComparedAndNoneIsNotANumber) {
  runlog::RunLog log;
  log.path = "run.log";
  log.format = runlog::LogFormat::miles;
  log.settings = {{"hidden_size", "2048", 10}, {"num_experts", "None", 11}, {"global_batch_size", "128", 12}};
  EXPECT_NO_THROW(check_log_matches_recipe(log, flash(), "flash.yaml", LogIdentity::run));
  log.settings.push_back({"tensor_model_parallel_size", "4", 13});
  EXPECT_LADLE_ERROR(check_log_matches_recipe(log, flash(), "flash.yaml", LogIdentity::run), input,
                     "run.log:13: error: tensor_model_parallel_size: the log states 4, but the recipe's layout.tp "
                     "(flash.yaml) has 1: the log is of another layout");
  EXPECT_NO_THROW(check_log_matches_recipe(log, flash(), "flash.yaml", LogIdentity::model));
  log.settings[2].value = "256";
  EXPECT_LADLE_ERROR(check_log_matches_recipe(log, flash(), "flash.yaml", LogIdentity::run), input,
                     "run.log:12: error: global_batch_size: the log states 256, but the recipe's workload.global_batch "
                     "(flash.yaml) has 128: the log is of another batch");
}

TEST(LogIdentity, RecipeOfAModelOutsideTheCatalogComparesOnlyTheRun) {
  Recipe recipe = flash();
  recipe.model = "my-own-model";
  const runlog::RunLog log = real_log("megatron_bigscience_gpt2_base_n4.log");
  // No model shape to compare; the batch (4 against 128) still differs.
  EXPECT_LADLE_ERROR(check_log_matches_recipe(log, recipe, "r.yaml", LogIdentity::run), input,
                     "megatron_bigscience_gpt2_base_n4.log:1204: error: global_batch_size: the log states 4");
}

TEST(LogIdentity, CandidateOfAnotherModelThanTheReferenceIsRefused) {
  const runlog::RunLog reference = real_log("megatron_bigscience_ds3d_n16_dsoff.log");
  const runlog::RunLog candidate = real_log("megatron_bigscience_gpt2_base_n4.log");
  EXPECT_LADLE_ERROR(check_logs_same_model(reference, candidate), input,
                     "megatron_bigscience_gpt2_base_n4.log:1206: error: hidden_size: the candidate states 6144, the "
                     "reference 8192 (");
  EXPECT_NO_THROW(check_logs_same_model(candidate, candidate));
}

}  // namespace
}  // namespace ladle::verify
