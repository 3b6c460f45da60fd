// Scores the synthetic seed logs (tests/data/runlog/make_fixtures.py builds their step times from
// the seeds' published figures) against the seed recipes, and checks the error cases.
#include "ladle/verify/score.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::verify {
namespace {

std::string seed(const std::string& name) { return test::source_path("tests/data/verify/seeds/" + name); }
runlog::RunLog synthetic(const std::string& name) {
  return runlog::read_log_file(test::source_path("tests/data/runlog/synthetic/" + name));
}

ScoreInputs glm52_inputs(int64_t gpus = 128) {
  ScoreInputs in;
  in.gpus = gpus;
  in.row_tokens = 8192;
  in.global_batch = 128;
  in.active_params = 40297758720;
  in.peak_tflops = 989;
  in.usd_per_gpu_hour = 7.912;
  return in;
}

TEST(Score, DefaultWindowSkipsTheFirstQuarterRoundedUp) {
  runlog::RunLog log;
  const auto first_steps = [](int64_t n) {
    runlog::StepSeries steps;
    for (int64_t i = 0; i < n; ++i) steps.push_back(Step{.step = i});
    return steps;
  };
  for (int64_t n : {2, 4, 5, 14, 20, 200}) {
    log.steps = first_steps(n);
    const StepWindow w = default_window(log);
    EXPECT_EQ(w.first, (n + 3) / 4) << n;
    EXPECT_EQ(w.last, n - 1) << n;
  }
  log.steps = first_steps(14);
  EXPECT_EQ(default_window(log), (StepWindow{4, 13}));
  log.steps = first_steps(1);
  EXPECT_LADLE_ERROR(default_window(log), input, "1 record: nothing is left after warm-up; pass --window A:B");
}

TEST(Score, ParseWindow) {
  EXPECT_EQ(parse_window("4:13"), (StepWindow{4, 13}));
  EXPECT_LADLE_ERROR(parse_window("13:4"), usage, "--window '13:4': expected A:B");
  EXPECT_LADLE_ERROR(parse_window("4-13"), usage, "expected A:B");
  EXPECT_LADLE_ERROR(parse_window("a:3"), usage, "expected A:B");
}

TEST(Score, ReproducesGlm52Tp4Seed) {
  const ScoreReport r = score_runs({synthetic("slime_glm52_tp4_seed.log")}, glm52_inputs(), std::nullopt);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].window, (StepWindow{4, 13}));
  EXPECT_EQ(r.runs[0].steps_per_run, 14);
  EXPECT_EQ(r.window_tokens, 10485760);
  EXPECT_NEAR(r.window_time_s, 506.335372, 1e-6);
  EXPECT_EQ(fmt::format("{:.2f}", r.tokens_per_s_per_gpu), "161.79");
  EXPECT_EQ(fmt::format("{:.2f}", *r.step_time_cv_percent), "4.69");
  EXPECT_EQ(fmt::format("{:.4f}", *r.mfu), "0.0396");
  EXPECT_EQ(fmt::format("{:.2f}", *r.usd_per_million_tokens), "13.58");
  EXPECT_EQ(fmt::format("{:.1f}", *r.gpu_hours), "44.9");
  EXPECT_EQ(r.tokens_source, "rows printed in the log x the recipe's row_tokens");
}

TEST(Score, ReproducesGlm52Tp8Seed) {
  const ScoreReport r = score_runs({synthetic("slime_glm52_tp8_seed.log")}, glm52_inputs(), std::nullopt);
  EXPECT_EQ(r.runs[0].window, (StepWindow{5, 19}));
  EXPECT_EQ(r.window_tokens, 15728640);
  EXPECT_EQ(fmt::format("{:.2f}", r.tokens_per_s_per_gpu), "131.12");
  EXPECT_EQ(fmt::format("{:.2f}", *r.step_time_cv_percent), "5.17");
  EXPECT_EQ(fmt::format("{:.4f}", *r.mfu), "0.0321");
  EXPECT_EQ(fmt::format("{:.2f}", *r.usd_per_million_tokens), "16.76");
  EXPECT_EQ(fmt::format("{:.1f}", *r.gpu_hours), "64.6");
}

TEST(Score, ReproducesGlm47FlashSeedFromTheEchoedMilesLog) {
  ScoreInputs in = glm52_inputs(8);
  in.active_params = 3579314176;
  const ScoreReport r = score_runs({synthetic("miles_glm47flash_seed.log")}, in, std::nullopt);
  EXPECT_EQ(r.runs[0].window, (StepWindow{5, 19}));
  EXPECT_EQ(fmt::format("{:.2f}", r.tokens_per_s_per_gpu), "6178.46");
  EXPECT_EQ(fmt::format("{:.2f}", *r.step_time_cv_percent), "0.95");
  EXPECT_EQ(fmt::format("{:.4f}", *r.mfu), "0.1342");
  EXPECT_EQ(fmt::format("{:.2f}", *r.usd_per_million_tokens), "0.36");
  EXPECT_EQ(fmt::format("{:.2f}", *r.gpu_hours), "1.34");
}

TEST(Score, InputsComeFromTheRecipeAndTheCatalog) {
  const auto loaded = recipe::read_recipe_file(seed("glm-5.2-attune-tp4-pp4.yaml"));
  const ScoreInputs in = score_inputs_from_recipe(loaded.recipe, loaded.path, std::nullopt);
  EXPECT_EQ(in.gpus, 128);
  EXPECT_EQ(in.row_tokens, 8192);
  EXPECT_EQ(in.global_batch, 128);
  EXPECT_EQ(in.active_params, 40297758720);
  EXPECT_EQ(in.peak_tflops, 989);
  ASSERT_TRUE(in.usd_per_gpu_hour.has_value());
  EXPECT_NEAR(*in.usd_per_gpu_hour, 7.912, 1e-9);
  EXPECT_EQ(score_inputs_from_recipe(loaded.recipe, loaded.path, 2.5).usd_per_gpu_hour, 2.5);
  EXPECT_LADLE_ERROR(score_inputs_from_recipe(loaded.recipe, loaded.path, -1.0), usage,
                     "--price -1: expected a positive, finite number");
  // An infinite price would be written into the recipe as .inf, which the reader then refuses.
  EXPECT_LADLE_ERROR(score_inputs_from_recipe(loaded.recipe, loaded.path, std::numeric_limits<double>::infinity()),
                     usage, "--price inf");
  EXPECT_LADLE_ERROR(score_inputs_from_recipe(loaded.recipe, loaded.path, std::nan("")), usage, "--price nan");
}

TEST(Score, UpdateResultReproducesEverySeedResultBlock) {
  struct Case {
    const char* recipe;
    const char* log;
  };
  for (const Case& c : {Case{"glm-5.2-attune-tp4-pp4.yaml", "slime_glm52_tp4_seed.log"},
                        Case{"glm-5.2-attune-tp8-pp4.yaml", "slime_glm52_tp8_seed.log"},
                        Case{"glm-4.7-flash-attune-tp1-pp1-ep8.yaml", "miles_glm47flash_seed.log"}}) {
    const std::string original = util::read_file(seed(c.recipe));
    const Recipe published = recipe::read_recipe(original, c.recipe).recipe;
    Recipe scored = published;
    const ScoreReport r = score_runs({synthetic(c.log)}, score_inputs_from_recipe(published, c.recipe, std::nullopt),
                                     std::nullopt);
    scored.result = update_result(published.result, r);
    // Every field of the published result block is reproduced from the log.
    EXPECT_EQ(*scored.result, *published.result) << c.recipe;
    EXPECT_EQ(recipe::write_recipe(scored), recipe::write_recipe(published)) << c.recipe;
  }
}

TEST(Score, UpdateResultFillsAnEmptyResult) {
  const ScoreReport r = score_runs({synthetic("slime_glm52_tp4_seed.log")}, glm52_inputs(), std::nullopt);
  const RecipeResult result = update_result(std::nullopt, r);
  EXPECT_EQ(result.tokens_per_s_per_gpu, 161.79);
  EXPECT_EQ(result.window, (std::vector<int64_t>{4, 13}));
  EXPECT_EQ(result.measured, "2026-10-11");
  EXPECT_EQ(result.gpu_hours, 44.9);
  EXPECT_EQ(result.gpu_hours_note, "GPUs x (first to last timestamp of the log)");
  EXPECT_EQ(result.runs, 1);
}

TEST(Score, TwoRunsArePooled) {
  const auto log = synthetic("slime_glm52_tp4_seed.log");
  const ScoreReport r = score_runs({log, log}, glm52_inputs(), std::nullopt);
  EXPECT_EQ(r.window_tokens, 2 * 10485760);
  EXPECT_EQ(fmt::format("{:.2f}", r.tokens_per_s_per_gpu), "161.79");
  EXPECT_EQ(fmt::format("{:.1f}", *r.gpu_hours), "89.8");
  EXPECT_EQ(update_result(std::nullopt, r).runs, 2);
}

TEST(Score, ExplicitWindow) {
  const ScoreReport r = score_runs({synthetic("slime_glm52_tp4_seed.log")}, glm52_inputs(), StepWindow{0, 13});
  EXPECT_EQ(r.window_tokens, 14 * 1048576);
  EXPECT_LADLE_ERROR(score_runs({synthetic("slime_glm52_tp4_seed.log")}, glm52_inputs(), StepWindow{4, 20}), input,
                     "window 4:20 is outside the run (steps 0-13)");
}

runlog::RunLog slime_text(const std::string& text) { return runlog::read_log(text, "t.log"); }

std::string slime_steps(int n, int skip_step = -1, const char* loss = "1.0") {
  std::string text;
  for (int i = 0; i < n; ++i) {
    if (i == skip_step) continue;
    text += fmt::format("step {}: {{'train/loss': {}, 'train/global_batch_size': 128}}\n", i, i == 2 ? loss : "1.0");
    text += fmt::format("perf {}: {{'perf/step_time': {}}}\n", i, 10.0 + i % 2);
  }
  return text;
}

TEST(Score, MissingStepInTheWindowIsAnError) {
  EXPECT_LADLE_ERROR(score_runs({slime_text(slime_steps(8, 6))}, glm52_inputs(), std::nullopt), input,
                     "t.log:13: error: steps 6-6 are missing from the window 2:7");
  EXPECT_LADLE_ERROR(score_runs({slime_text(slime_steps(8, 2))}, glm52_inputs(), StepWindow{2, 7}), input,
                     "step 2 (the window's first) is not a record of the log");
}

TEST(Score, NonFiniteLossRefusesToScore) {
  EXPECT_LADLE_ERROR(score_runs({slime_text(slime_steps(8, -1, "nan"))}, glm52_inputs(), std::nullopt), input,
                     "t.log:5: error: step 2: loss is nan: a diverged run is not scored");
}

TEST(Score, RowsThatDisagreeWithTheRecipeAreAnError) {
  ScoreInputs in = glm52_inputs();
  in.global_batch = 64;
  EXPECT_LADLE_ERROR(score_runs({slime_text(slime_steps(8))}, in, std::nullopt), input,
                     "step 2 consumed 128 rows but the recipe's global batch is 64");
}

TEST(Score, StepWithoutTimeIsAnError) {
  EXPECT_LADLE_ERROR(score_runs({slime_text("step 0: {'train/loss': 1.0}\nstep 1: {'train/loss': 1.0}\n")},
                                glm52_inputs(), std::nullopt),
                     input, "step 1 has no step time");
}

TEST(Score, MegatronIntervalRecordsCountEveryIteration) {
  // Records every 5 steps of 1.0 s per step: 10 iterations in the window 10:15.
  std::string text;
  for (int i = 5; i <= 20; i += 5) {
    text += fmt::format(" iteration {:8d}/      20 | consumed samples: {:12d} | elapsed time per iteration (ms): "
                        "{:.1f} | global batch size:   128 | lm loss: 2.0E+00 |\n",
                        i, i * 128, i == 15 ? 1500.0 : 1000.0);
  }
  const ScoreReport r = score_runs({runlog::read_log(text, "m.log")}, glm52_inputs(), StepWindow{10, 15});
  EXPECT_EQ(r.runs[0].window_iterations, 10);
  EXPECT_EQ(r.window_tokens, 10 * 128 * 8192);
  EXPECT_DOUBLE_EQ(r.window_time_s, 5 * 1.0 + 5 * 1.5);
  EXPECT_EQ(r.notes[0], "m.log: one record every 5 steps; step times are interval averages, so the CV is of averages");
  // Sample standard deviation of {1.0, 1.5} is 0.353553; mean 1.25.
  EXPECT_NEAR(*r.step_time_cv_percent, 100 * 0.35355339 / 1.25, 1e-6);
}

}  // namespace
}  // namespace ladle::verify
