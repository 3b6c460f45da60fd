// Scores RL runs: the synthetic slime RL logs (tests/data/runlog/make_rl_fixtures.py computes the
// figures it prints independently, in Python) and hand-made rollouts for the phase split's rules.
#include "ladle/verify/rl_score.hpp"

#include <limits>
#include <string>

#include "support/test_support.hpp"

namespace ladle::verify {
namespace {

runlog::RunLog synthetic(const std::string& name) {
  return runlog::read_log_file(test::source_path("tests/data/runlog/synthetic/" + name));
}

Recipe rl_recipe() {
  Recipe recipe;
  recipe.gpu.count = 8;
  recipe.workload.row_tokens = 5120;
  recipe.workload.global_batch = 128;
  recipe.workload.rl = RlWorkload{.algorithm = "grpo",
                                  .prompts_per_rollout = 32,
                                  .samples_per_prompt = 8,
                                  .steps_per_rollout = 2,
                                  .prompt_max_tokens = 1024,
                                  .response_max_tokens = 4096,
                                  .mode = "colocated_sync",
                                  .rollout_gpus = 8,
                                  .gpus_per_engine = 2};
  return recipe;
}

ScoreInputs inputs() {
  ScoreInputs in;
  in.gpus = 8;
  in.row_tokens = 5120;
  in.global_batch = 128;
  in.usd_per_gpu_hour = 7.912;
  return in;
}

TEST(RlScore, ReproducesTheFiguresComputedApartFromTheSyntheticLog) {
  const runlog::RunLog log = synthetic("slime_rl_grpo_colocated.log");
  ASSERT_TRUE(is_rl_log(log));
  const RlScoreReport r = score_rl_runs({log}, rl_recipe(), inputs(), std::nullopt);
  // make_rl_fixtures.py prints: window 2:7, samples/s 1.003298605441066, trained tokens/s per GPU
  // 382.5912015415265, step time mean 255.15833333333333, CV 2.447229789577402 %, split rollout
  // 0.663640223390705, log-prob 0.11365492014762076, train 0.18321956954831967, update
  // 0.00862209739050916, other 0.03086318952284539.
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].window, (StepWindow{2, 7}));
  EXPECT_EQ(r.runs[0].window_samples, 6 * 256);
  EXPECT_NEAR(r.samples_per_s, 1.003298605441066, 1e-12);
  EXPECT_NEAR(r.trained_tokens_per_s_per_gpu, 382.5912015415265, 1e-9);
  EXPECT_NEAR(r.step_time_mean_s, 255.15833333333333, 1e-9);
  ASSERT_TRUE(r.step_time_cv_percent);
  EXPECT_NEAR(*r.step_time_cv_percent, 2.447229789577402, 1e-9);
  EXPECT_NEAR(r.phase_split.rollout, 0.663640223390705, 1e-12);
  EXPECT_NEAR(r.phase_split.log_prob, 0.11365492014762076, 1e-12);
  EXPECT_NEAR(r.phase_split.train, 0.18321956954831967, 1e-12);
  EXPECT_NEAR(r.phase_split.weight_update, 0.00862209739050916, 1e-12);
  EXPECT_NEAR(r.phase_split.other, 0.03086318952284539, 1e-12);
  ASSERT_TRUE(r.usd_per_million_trained_tokens);
  EXPECT_NEAR(*r.usd_per_million_trained_tokens, 7.912 / (382.5912015415265 * 3600) * 1e6, 1e-9);
}

TEST(RlScore, RefusesARolloutWhoseSamplesDifferFromTheRecipe) {
  EXPECT_LADLE_ERROR(score_rl_runs({synthetic("slime_rl_grpo_wrong_samples.log")}, rl_recipe(), inputs(), std::nullopt),
                     input,
                     "train/global_batch_size: rollout 5 trained 240 samples (train/global_batch_size over its steps) "
                     "but the recipe's RL workload has 32 prompts x 8 samples = 256");
}

TEST(RlScore, RefusesARolloutWithAnotherStepCountThanTheRecipe) {
  Recipe recipe = rl_recipe();
  recipe.workload.rl->steps_per_rollout = 1;
  EXPECT_LADLE_ERROR(score_rl_runs({synthetic("slime_rl_grpo_colocated.log")}, recipe, inputs(), std::nullopt), input,
                     "workload.rl.steps_per_rollout: rollout 2 has 2 step lines but the recipe's RL workload has 1");
}

runlog::RunLog hand_made(double rollout_s) {
  runlog::RunLog log;
  log.path = "h.log";
  for (int64_t id = 0; id < 3; ++id) {
    Rollout r;
    r.rollout = id;
    r.line = static_cast<int32_t>(id + 1);
    r.rollout_time_s = rollout_s;
    r.log_probs_time_s = 10.0;
    r.actor_train_time_s = 40.0;
    r.update_weights_time_s = 2.0;
    r.step_time_s = 100.0;
    r.samples = 256;
    r.train_steps = 2;
    r.total_length_mean = 1000.0;
    log.rollouts.push_back(r);
  }
  return log;
}

TEST(RlScore, OverlappedGenerationCountsOnlyTheTimeTheTrainerWaits) {
  // One rollout ahead (train_async.py): 90 s of generation overlaps a 100 s step whose trainer
  // phases take 52 s; only the 48 s left are on the step's clock.
  const RlScoreReport r = score_rl_runs({hand_made(90.0)}, rl_recipe(), inputs(), StepWindow{1, 2});
  EXPECT_DOUBLE_EQ(r.phase_split.rollout, 0.48);
  EXPECT_DOUBLE_EQ(r.phase_split.other, 0.0);
  EXPECT_DOUBLE_EQ(r.phase_split.rollout + r.phase_split.log_prob + r.phase_split.train +
                       r.phase_split.weight_update + r.phase_split.other,
                   1.0);
  EXPECT_DOUBLE_EQ(r.samples_per_s, 2.56);
  EXPECT_DOUBLE_EQ(r.trained_tokens_per_s_per_gpu, 256.0 * 1000.0 / 100.0 / 8.0);
}

TEST(RlScore, SynchronousGenerationLeavesTheRestAsOther) {
  const RlScoreReport r = score_rl_runs({hand_made(30.0)}, rl_recipe(), inputs(), StepWindow{1, 2});
  EXPECT_DOUBLE_EQ(r.phase_split.rollout, 0.30);
  EXPECT_NEAR(r.phase_split.other, 0.18, 1e-12);
}

TEST(RlScore, RefusesAWindowRolloutWithoutAStepTime) {
  runlog::RunLog log = hand_made(30.0);
  log.rollouts[1].step_time_s.reset();
  EXPECT_LADLE_ERROR(score_rl_runs({log}, rl_recipe(), inputs(), StepWindow{1, 2}), input,
                     "rollout 1 (in the window 1:2) has no trainer perf line with perf/step_time");
}

TEST(RlScore, RefusesANonFinitePhaseTime) {
  runlog::RunLog log = hand_made(30.0);
  log.rollouts[2].actor_train_time_s = std::numeric_limits<double>::quiet_NaN();
  EXPECT_LADLE_ERROR(score_rl_runs({log}, rl_recipe(), inputs(), StepWindow{1, 2}), input,
                     "h.log:3: error: perf/actor_train_time: rollout 2: perf/actor_train_time is nan");
}

TEST(RlScore, ARecipeWithoutAnRlWorkloadIsRefused) {
  Recipe recipe = rl_recipe();
  recipe.workload.rl.reset();
  EXPECT_LADLE_ERROR(score_rl_runs({hand_made(30.0)}, recipe, inputs(), StepWindow{1, 2}), input,
                     "workload.rl: the log is an RL run's");
}

TEST(RlScore, UpdateWritesTheRlBlockAndTheTrainedTokenFigures) {
  const RlScoreReport r = score_rl_runs({hand_made(30.0)}, rl_recipe(), inputs(), StepWindow{1, 2});
  const RecipeResult out = update_rl_result(std::nullopt, r);
  ASSERT_TRUE(out.rl);
  EXPECT_DOUBLE_EQ(out.rl->samples_per_s, 2.56);
  EXPECT_DOUBLE_EQ(out.tokens_per_s_per_gpu, 320.0);
  EXPECT_DOUBLE_EQ(out.rl->trained_tokens_per_s_per_gpu, 320.0);
  EXPECT_DOUBLE_EQ(out.rl->phase_split.train, 0.4);
  EXPECT_EQ(out.window, (std::vector<int64_t>{1, 2}));
}

}  // namespace
}  // namespace ladle::verify
