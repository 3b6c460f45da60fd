// Tests of the loop through the library: early stopping of trials clearly slower than the
// incumbent, with the stand-in engine on the local back-end.
#include "ladle/tune/tuner.hpp"

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "tune/tune_e2e.hpp"

namespace ladle::tune {
namespace {

TEST(Tuner, StopsTrialsWhoseFirstStepsAreClearlySlowerThanTheIncumbent) {
  test::TempDir dir;
  test::use_engine_state(dir.path() / "engine");
  // Round 2's trials (5 to 8) wait after the 5 steps the early-stop rule judges, so a cancel sent
  // then lands before their last steps, however late ladle looks.
  ::setenv("FAKE_ENGINE_HOLD_TRIALS", "5,6,7,8", 1);
  ::setenv("FAKE_ENGINE_HOLD_AFTER", "5", 1);
  TuneSettings s;
  s.run_id = "0000beef";
  s.model = "glm-4.7-flash";
  s.gpu = "h200";
  s.gpus = 8;
  s.out_dir = (dir.path() / "run").string();
  s.scheduler.backend = "local";
  s.scheduler.state_dir = (dir.path() / "run" / "jobs").string();
  s.base_layout = layout::format_layout_spec(layout::resolve_layout(
      layout::parse_layout_spec(test::kFlashStart), layout::LayoutContext{8, 8, 8192, 128}));
  s.budget = 8;
  s.confirm_steps = 8;
  s.per_round = 4;
  s.max_running = 1;
  s.poll_s = 0.05;
  // A bar so high that every round-2 trial short of the round-1 best is stopped.
  s.early_stop_fraction = 0.999;
  s.engine_program = LADLE_FAKE_ENGINE;
  std::filesystem::create_directories(s.out_dir);
  TuneDb db = TuneDb::create(s.out_dir + "/tune.db",
                             {{"run_id", s.run_id}, {"settings", settings_to_json(s)}});
  auto scheduler = sched::make_scheduler(s.scheduler);
  Tuner tuner(db, *scheduler, s, nullptr);
  std::atomic<bool> interrupt{false};
  EXPECT_EQ(tuner.run(interrupt), TuneOutcome::finished);
  ::unsetenv("FAKE_ENGINE_HOLD_TRIALS");
  ::unsetenv("FAKE_ENGINE_HOLD_AFTER");
  double incumbent = 0;
  for (const Trial& t : db.trials()) {
    if (t.round == 1 && t.measured_tokens_per_s_per_gpu)
      incumbent = std::max(incumbent, *t.measured_tokens_per_s_per_gpu);
  }
  int stopped = 0;
  for (const Trial& t : db.trials()) {
    if (t.state != TrialState::stopped_early) continue;
    ++stopped;
    EXPECT_EQ(t.round, 2);
    ASSERT_TRUE(t.measured_tokens_per_s_per_gpu);
    EXPECT_LT(*t.measured_tokens_per_s_per_gpu, 0.999 * incumbent);
    EXPECT_NE(t.detail.find("first 5 steps"), std::string::npos) << t.detail;
    // Scored on its first steps only, and cancelled during them: its log ends before step 9.
    const std::string log = util::read_file(t.log_path);
    EXPECT_EQ(log.find("perf 9:"), std::string::npos) << "trial " << t.id << " ran to the end";
  }
  EXPECT_GE(stopped, 1);
}

// The settings of a small run of the stand-in engine on the local back-end in `dir`.
TuneSettings stand_in_settings(const test::TempDir& dir) {
  TuneSettings s;
  s.run_id = "0000cafe";
  s.model = "glm-4.7-flash";
  s.gpu = "h200";
  s.gpus = 8;
  s.out_dir = (dir.path() / "run").string();
  s.scheduler.backend = "local";
  s.scheduler.state_dir = (dir.path() / "run" / "jobs").string();
  s.base_layout = layout::format_layout_spec(layout::resolve_layout(
      layout::parse_layout_spec(test::kFlashStart), layout::LayoutContext{8, 8, 8192, 128}));
  s.max_running = 1;
  s.poll_s = 0.05;
  s.engine_program = LADLE_FAKE_ENGINE;
  return s;
}

TEST(Tuner, TheDefaultTrialTimeLimitIsTenTimesThePredictedRunTimeAndAtLeastHalfAnHour) {
  TuneSettings s;
  s.global_batch = 128;
  s.row_tokens = 8192;
  Trial t;
  t.steps = 10;
  // 128 x 8192 tokens a step at 1000 tokens/s on each of 8 GPUs: 131.072 s a step.
  t.predicted_tokens_per_s_per_gpu = 1000;
  EXPECT_EQ(trial_time_limit_s(s, t, 8), 13108);  // ceil(10 x 10 x 131.072)
  t.predicted_tokens_per_s_per_gpu = 100000;      // 1.3 s a step: the floor
  EXPECT_EQ(trial_time_limit_s(s, t, 8), 1800);
  t.predicted_tokens_per_s_per_gpu = 0;  // no prediction: the floor, never "no limit"
  EXPECT_EQ(trial_time_limit_s(s, t, 8), 1800);
  t.predicted_tokens_per_s_per_gpu = 1e-300;  // absurd: capped, not overflowed
  EXPECT_EQ(trial_time_limit_s(s, t, 8), 365 * 24 * 3600);
  s.trial_time_limit_s = 60;  // --time-limit wins
  EXPECT_EQ(trial_time_limit_s(s, t, 8), 60);
}

TEST(Tuner, ATrialThatHangsEndsAsATimeoutWithoutATimeLimitFlag) {
  test::TempDir dir;
  test::use_engine_state(dir.path() / "engine");
  ::setenv("FAKE_ENGINE_HANG", "1", 1);
  TuneSettings s = stand_in_settings(dir);
  s.budget = 1;
  // No --time-limit: the default applies, made short here (the real one is at least half an
  // hour): 0.001 x the predicted run time of 10 steps (under a second), so the floor of 2 s.
  s.time_limit_factor = 0.001;
  s.time_limit_floor_s = 2;
  std::filesystem::create_directories(s.out_dir);
  TuneDb db = TuneDb::create(s.out_dir + "/tune.db",
                             {{"run_id", s.run_id}, {"settings", settings_to_json(s)}});
  auto scheduler = sched::make_scheduler(s.scheduler);
  Tuner tuner(db, *scheduler, s, nullptr);
  std::atomic<bool> interrupt{false};
  const auto start = std::chrono::steady_clock::now();
  EXPECT_LADLE_ERROR(tuner.run(interrupt), input, "no trial produced a measurement");
  ::unsetenv("FAKE_ENGINE_HANG");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  const std::vector<Trial> trials = db.trials();
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].state, TrialState::timeout);
  EXPECT_NE(trials[0].detail.find("ran past the trial time limit of 2 s (the default: 0.001 x"),
            std::string::npos)
      << trials[0].detail;
}

TEST(Tuner, ARecipeIsVerifiedOnlyWhenLadleCheckPassesIt) {
  const std::string path = test::source_path("recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml");
  Recipe r = recipe::read_recipe_file(path).recipe;
  EXPECT_EQ(check_rejection(r, path), std::nullopt);
  r.gpu.count += 8;  // tp x pp x cp x dp no longer makes the GPU count
  const auto why = check_rejection(r, path);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("R1: "), std::string::npos) << *why;
}

}  // namespace
}  // namespace ladle::tune
