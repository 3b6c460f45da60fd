// Reads slime / miles RL logs into one Rollout per rollout (runlog/rollout.hpp): the rollout
// manager's and the trainer's perf lines, the trainer's rollout line and the step lines. The inline
// logs are written by hand in slime's published format (rollout.hpp cites it), not copied.
#include <gtest/gtest.h>

#include <string>

#include "ladle/runlog/run_log.hpp"
#include "support/test_support.hpp"

namespace ladle::runlog {
namespace {

// Two rollouts, two optimizer steps each; the rollout manager prints numpy scalars.
constexpr const char* kTwoRollouts = R"((RolloutManager pid=7) [2026-11-02 08:00:10] rollout_metrics.py:268 - perf 0: {'rollout/response_len/mean': np.float64(900.5), 'perf/rollout_time': np.float64(60.25), 'perf/tokens_per_gpu_per_sec': 120.0}
(MegatronTrainRayActor pid=9) [2026-11-02 08:00:12] timer.py:36 - Timer train_wait end (elapsed: 62.0s)
(MegatronTrainRayActor pid=9) [2026-11-02 08:00:12] train_metric_utils.py:135 - rollout 0: {'rollout/response_lengths': 900.5, 'rollout/total_lengths': 1100.5, 'rollout/raw_reward': 0.25}
(MegatronTrainRayActor pid=9) [2026-11-02 08:00:20] model.py:918 - step 0: {'train/loss': 0.01, 'train/grad_norm': 0.5, 'train/lr-pg_0': 1e-06, 'train/global_batch_size': 64, 'train/step': 0}
(MegatronTrainRayActor pid=9) [2026-11-02 08:00:28] model.py:918 - step 1: {'train/loss': 0.02, 'train/grad_norm': 0.6, 'train/lr-pg_0': 1e-06, 'train/global_batch_size': 64, 'train/step': 1}
(MegatronTrainRayActor pid=9) [2026-11-02 08:00:29] train_metric_utils.py:401 - perf 0: {'perf/update_weights_time': 0.0, 'perf/train_wait_time': 62.0, 'perf/ref_log_probs_time': 3.0, 'perf/log_probs_time': 3.5, 'perf/actor_train_time': 16.0, 'perf/train_time': 23.0, 'perf/step_time': 85.0, 'perf/wait_time_ratio': 0.7294}
(RolloutManager pid=7) [2026-11-02 08:01:40] rollout_metrics.py:268 - perf 1: {'rollout/response_len/mean': np.float64(880.0), 'perf/rollout_time': np.float64(58.0)}
(MegatronTrainRayActor pid=9) [2026-11-02 08:01:42] train_metric_utils.py:135 - rollout 1: {'rollout/response_lengths': 880.0, 'rollout/total_lengths': 1080.0}
(MegatronTrainRayActor pid=9) [2026-11-02 08:01:50] model.py:918 - step 2: {'train/loss': 0.01, 'train/grad_norm': 0.5, 'train/lr-pg_0': 1e-06, 'train/global_batch_size': 64, 'train/step': 2}
(MegatronTrainRayActor pid=9) [2026-11-02 08:01:58] model.py:918 - step 3: {'train/loss': 0.01, 'train/grad_norm': 0.5, 'train/lr-pg_0': 1e-06, 'train/global_batch_size': 60, 'train/step': 3}
(MegatronTrainRayActor pid=9) [2026-11-02 08:01:59] train_metric_utils.py:401 - perf 1: {'perf/update_weights_time': 2.5, 'perf/train_wait_time': 63.0, 'perf/log_probs_time': 3.25, 'perf/actor_train_time': 15.5, 'perf/train_time': 22.0, 'perf/step_time': 85.0}
)";

TEST(RlLog, ReadsOneRolloutPerRolloutIdWithItsPhaseTimesAndSamples) {
  const RunLog log = read_log(kTwoRollouts, "rl.log");
  EXPECT_EQ(log.format, LogFormat::slime);
  EXPECT_EQ(log.steps.size(), 4u);
  ASSERT_EQ(log.rollouts.size(), 2u);
  const Rollout& first = log.rollouts[0];
  EXPECT_EQ(first.rollout, 0);
  EXPECT_EQ(first.line, 1);
  EXPECT_EQ(first.rollout_time_s, 60.25);
  EXPECT_EQ(first.ref_log_probs_time_s, 3.0);
  EXPECT_EQ(first.log_probs_time_s, 3.5);
  EXPECT_EQ(first.actor_train_time_s, 16.0);
  EXPECT_EQ(first.train_time_s, 23.0);
  EXPECT_EQ(first.train_wait_time_s, 62.0);
  EXPECT_EQ(first.update_weights_time_s, 0.0);
  EXPECT_EQ(first.step_time_s, 85.0);
  EXPECT_EQ(first.response_length_mean, 900.5);
  EXPECT_EQ(first.total_length_mean, 1100.5);
  EXPECT_EQ(first.train_steps, 2);
  EXPECT_EQ(first.samples, 128);
  const Rollout& second = log.rollouts[1];
  EXPECT_EQ(second.samples, 124);  // 64 + 60: the step lines' batches, summed
  EXPECT_FALSE(second.ref_log_probs_time_s.has_value());
  EXPECT_EQ(second.update_weights_time_s, 2.5);
  // Two steps per rollout: the steps carry no step time (the perf lines time rollouts).
  EXPECT_FALSE(log.steps[0].step_time_s.has_value());
}

TEST(RlLog, MilesEchoOfEveryLineGivesTheSameRollouts) {
  // miles prints each record twice (the logger and the tracker); identical copies fold.
  std::string doubled;
  const std::string text = kTwoRollouts;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\n', at) + 1;
    doubled += text.substr(at, end - at) + text.substr(at, end - at);
    at = end;
  }
  const RunLog once = read_log(kTwoRollouts, "rl.log");
  const RunLog twice = read_log(doubled, "rl.log");
  EXPECT_EQ(twice.format, LogFormat::miles);
  ASSERT_EQ(twice.rollouts.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    Rollout a = once.rollouts[i];
    Rollout b = twice.rollouts[i];
    a.line = b.line = 0;  // the copies sit on other lines
    EXPECT_EQ(a, b) << i;
  }
}

TEST(RlLog, RefusesARolloutKeyPrintedTwiceWithTwoValues) {
  const std::string text = std::string(kTwoRollouts) +
                           "(MegatronTrainRayActor pid=9) [2026-11-02 08:02:00] train_metric_utils.py:135 - rollout 1: "
                           "{'rollout/total_lengths': 1090.0}\n";
  EXPECT_LADLE_ERROR(read_log(text, "rl.log"), input,
                     "rl.log:12: error: rollout/total_lengths: rollout 1 prints 'rollout/total_lengths' twice with "
                     "different values (lines 8 and 12)");
}

TEST(RlLog, ATrainOnlyRunWithSeveralStepsPerRolloutIsStillRefused) {
  // --debug-train-only: the rollout manager generates nothing and prints no perf/rollout_time, so
  // the perf lines cannot time steps and no rollout is an RL one.
  const std::string text =
      "step 0: {'train/loss': 1.0, 'train/global_batch_size': 8}\n"
      "step 1: {'train/loss': 1.0, 'train/global_batch_size': 8}\n"
      "perf 0: {'perf/train_time': 3.0, 'perf/train_wait_time': 1.0, 'perf/step_time': 4.0}\n";
  EXPECT_LADLE_ERROR(read_log(text, "t.log"), input, "2 training steps per rollout");
}

TEST(RlLog, ATrainingLogHasRolloutsOnlyFromItsPerfLines) {
  const std::string text =
      "step 0: {'train/loss': 1.0, 'train/global_batch_size': 8}\n"
      "perf 0: {'perf/train_time': 3.0, 'perf/train_wait_time': 1.0, 'perf/step_time': 4.0}\n";
  const RunLog log = read_log(text, "t.log");
  ASSERT_EQ(log.rollouts.size(), 1u);
  EXPECT_FALSE(log.rollouts[0].rollout_time_s.has_value());
  EXPECT_EQ(log.steps[0].step_time_s, 4.0);  // one step per rollout: the step keeps its time
}

TEST(RlLog, ReadsTheSyntheticColocatedRun) {
  const RunLog log = read_log_file(test::source_path("tests/data/runlog/synthetic/slime_rl_grpo_colocated.log"));
  ASSERT_EQ(log.rollouts.size(), 8u);
  for (const Rollout& r : log.rollouts) {
    EXPECT_EQ(r.samples, 256) << r.rollout;
    EXPECT_EQ(r.train_steps, 2) << r.rollout;
    EXPECT_TRUE(r.rollout_time_s && r.step_time_s && r.total_length_mean) << r.rollout;
  }
}

}  // namespace
}  // namespace ladle::runlog
