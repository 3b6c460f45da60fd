// Tests of the loop through the library: early stopping of trials clearly slower than the
// incumbent, with the stand-in engine on the local back-end.
#include "ladle/tune/tuner.hpp"

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
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

}  // namespace
}  // namespace ladle::tune
