// Every public log in tests/data/runlog/real/ is read, or rejected with its reason. Expected values
// were read off the files by hand (and cross-checked with a separate regex count); see each
// <name>.source.txt for where a log comes from.
#include <cmath>
#include <string>

#include "ladle/runlog/run_log.hpp"
#include "support/test_support.hpp"

namespace ladle::runlog {
namespace {

RunLog read_real(const std::string& name) {
  return read_log_file(test::source_path("tests/data/runlog/real/" + name));
}

TEST(RealLogs, AwsomeAllSkippedHasNoLossButTimes) {
  const RunLog log = read_real("megatron_awsome_all_skipped_excerpt.log");
  EXPECT_EQ(log.format, LogFormat::megatron);
  ASSERT_EQ(log.steps.size(), 3u);
  EXPECT_EQ(log.steps[0].step, 1);
  EXPECT_EQ(log.steps[2].step, 3);
  EXPECT_DOUBLE_EQ(*log.steps[0].step_time_s, 255.9405);
  for (const Step& step : log.steps) {
    EXPECT_FALSE(step.loss.has_value()) << step.step;
    EXPECT_EQ(step.skipped_iterations, 1);
    EXPECT_EQ(step.samples, 288);
  }
  EXPECT_DOUBLE_EQ(*log.steps[1].learning_rate, 0.0);
}

TEST(RealLogs, AwsomeSrunPrefixIsStripped) {
  const RunLog log = read_real("megatron_awsome_srun_prefix_excerpt.log");
  ASSERT_EQ(log.steps.size(), 3u);
  EXPECT_EQ(log.steps[0].step, 25);
  EXPECT_EQ(log.log_interval, 1);
  EXPECT_DOUBLE_EQ(*log.steps[0].step_time_s, 0.087);
  EXPECT_DOUBLE_EQ(*log.steps[2].loss, 10.87129);
  EXPECT_DOUBLE_EQ(*log.steps[1].learning_rate, 1.704e-8);
  EXPECT_DOUBLE_EQ(*log.steps[1].grad_norm, 0.0);
  EXPECT_EQ(log.steps[1].samples, 2);  // 52 - 50 consumed samples
}

TEST(RealLogs, BigscienceDs3dIgnoresTimerAndMemoryLines) {
  const RunLog log = read_real("megatron_bigscience_ds3d_n16_dsoff.log");
  EXPECT_EQ(log.format, LogFormat::megatron);
  ASSERT_EQ(log.steps.size(), 62u);
  EXPECT_EQ(log.steps.front().step, 1);
  EXPECT_EQ(log.steps.back().step, 62);
  EXPECT_DOUBLE_EQ(*log.steps.front().step_time_s, 144.9156);
  EXPECT_DOUBLE_EQ(*log.steps.back().loss, 20.43871);
  EXPECT_DOUBLE_EQ(*log.steps.back().grad_norm, 8.017);
  EXPECT_EQ(log.steps.back().samples, 1024);
  EXPECT_TRUE(log.notes.empty());
}

TEST(RealLogs, BigscienceGpt2SkipsSetXNoiseAndKeepsSkippedInterval) {
  const RunLog log = read_real("megatron_bigscience_gpt2_base_n4.log");
  ASSERT_EQ(log.steps.size(), 20u);
  EXPECT_EQ(log.log_interval, 10);
  EXPECT_EQ(log.steps.front().step, 10);
  EXPECT_EQ(log.steps.front().iterations, 10);
  EXPECT_FALSE(log.steps.front().loss.has_value());  // all 10 iterations skipped
  EXPECT_EQ(log.steps.front().skipped_iterations, 10);
  EXPECT_DOUBLE_EQ(*log.steps[1].loss, 12.03115);
  EXPECT_EQ(log.steps[1].samples, 40);  // 80 - 40
  EXPECT_DOUBLE_EQ(*log.steps.back().step_time_s, 1.3822);
  // The job was cancelled by slurm; its last line carries the cancel time.
  ASSERT_TRUE(log.last_timestamp.has_value());
  EXPECT_EQ(*log.last_timestamp, "2021-05-23 08:45:57");
}

TEST(RealLogs, BloomSpikeReadsSecondsTokensAndNotesTheElidedRecords) {
  const RunLog log = read_real("megatron_bloom176b_spike_excerpt.log");
  ASSERT_EQ(log.steps.size(), 11u);
  EXPECT_EQ(log.steps[0].step, 31214);
  EXPECT_DOUBLE_EQ(*log.steps[0].step_time_s, 106.46);
  EXPECT_DOUBLE_EQ(*log.steps[5].grad_norm, 960.351);
  EXPECT_EQ(log.steps[1].tokens, 97834074112 - 97829879808);  // consumed tokens delta
  EXPECT_EQ(log.steps[1].samples, 2048);
  ASSERT_EQ(log.notes.size(), 1u);
  EXPECT_EQ(log.notes[0], "27 records are missing: steps 31223-31249");
}

TEST(RealLogs, BloomWrappedRecordsAreJoined) {
  const RunLog log = read_real("megatron_bloom176b_wrapped_excerpt.log");
  ASSERT_EQ(log.steps.size(), 5u);
  EXPECT_EQ(log.steps[4].step, 42784);
  EXPECT_DOUBLE_EQ(*log.steps[4].step_time_s, 111.14);
  EXPECT_DOUBLE_EQ(*log.steps[4].learning_rate, 4.475e-5);  // "learning" / " rate:" across lines
  EXPECT_DOUBLE_EQ(*log.steps[4].loss, 2.127643);
  EXPECT_EQ(log.steps[4].skipped_iterations, 0);
}

TEST(RealLogs, BridgeDocLineWithoutStepTimeReadsAsMegatron) {
  const RunLog log = read_real("megatron_bridge_mtp_doc_line.log");
  EXPECT_EQ(log.format, LogFormat::megatron);
  ASSERT_EQ(log.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(*log.steps[0].loss, 7.968678);  // "lm loss", not "mtp_1 loss"
  EXPECT_DOUBLE_EQ(*log.steps[0].step_time_s, 3.7386);
  EXPECT_LADLE_ERROR(read_log_file(test::source_path("tests/data/runlog/real/megatron_bridge_mtp_doc_line.log"),
                                   LogFormat::megatron_bridge),
                     input, "no 'Step Time :' lines");
}

TEST(RealLogs, ShseoDenseIgnoresInterleavedWarnings) {
  const RunLog log = read_real("megatron_shseo_dense_warnings_excerpt.log");
  ASSERT_EQ(log.steps.size(), 10u);
  EXPECT_EQ(log.log_interval, 20);
  EXPECT_EQ(log.steps[0].iterations, 20);
  EXPECT_EQ(*log.steps[0].timestamp, "2024-10-24 21:02:23");
  EXPECT_DOUBLE_EQ(*log.steps[9].loss, 6.76083);
  EXPECT_EQ(log.steps[9].samples, 1280);
  EXPECT_DOUBLE_EQ(*log.span_s, 42.0);  // 21:02:23 to 21:03:05
}

TEST(RealLogs, ShseoDmoeGapIsNotedNotInvented) {
  const RunLog log = read_real("megatron_shseo_dmoe_gap_excerpt.log");
  ASSERT_EQ(log.steps.size(), 13u);
  EXPECT_EQ(log.log_interval, 20);
  EXPECT_EQ(log.steps[7].step, 1040);
  EXPECT_EQ(log.steps[7].iterations, 20);  // the average still covers one interval
  EXPECT_EQ(log.steps[7].samples, 1280);   // from the batch size, not 66560 - 8960
  ASSERT_EQ(log.notes.size(), 1u);
  EXPECT_EQ(log.notes[0], "44 records are missing: steps 160-1020");
}

TEST(RealLogs, ShseoMoeReadsLmLossNotLoadBalancingLoss) {
  const RunLog log = read_real("megatron_shseo_moe_lbl_excerpt.log");
  ASSERT_EQ(log.steps.size(), 15u);
  EXPECT_DOUBLE_EQ(*log.steps[0].loss, 11.56039);
  EXPECT_DOUBLE_EQ(*log.steps[7].grad_norm, 23.285);
  EXPECT_DOUBLE_EQ(*log.steps[14].step_time_s, 0.6214);
}

TEST(RealLogs, NemoTwoUsesGlobalStepAndNotesTheMissingOne) {
  const RunLog log = read_real("nemo2_awsome_k8s_ray_excerpt.log");
  EXPECT_EQ(log.format, LogFormat::nemo);
  ASSERT_EQ(log.steps.size(), 3u);
  EXPECT_EQ(log.steps[0].step, 45);
  EXPECT_EQ(log.steps[2].step, 48);
  EXPECT_DOUBLE_EQ(*log.steps[2].step_time_s, 46.81);
  EXPECT_DOUBLE_EQ(*log.steps[0].loss, 11.02);
  EXPECT_DOUBLE_EQ(*log.steps[1].learning_rate, 7.046e-6);
  EXPECT_EQ(log.steps[1].samples, 512);
  ASSERT_EQ(log.notes.size(), 1u);
  EXPECT_EQ(log.notes[0], "1 record is missing: step 47");
}

TEST(RealLogs, LightningProgressBarIsRejectedWithItsReason) {
  EXPECT_LADLE_ERROR(read_real("nemo1_bionemo_ptl_progress_excerpt.log"), input,
                     "nemo1_bionemo_ptl_progress_excerpt.log: error: a PyTorch Lightning progress bar");
}

TEST(RealLogs, SlimeRolloutOnlyRunIsRejectedWithItsReason) {
  // The rollout manager's real perf line (perf/rollout_time) with no training step after it.
  EXPECT_LADLE_ERROR(read_real("slime_issue1837_rollout_only_excerpt.log"), input,
                     "slime_issue1837_rollout_only_excerpt.log: error: slime/miles rollout lines (perf/rollout_time) "
                     "but no 'step N:' training records: a rollout-only run (--debug-rollout-only)");
}

TEST(RealLogs, BigscienceArgumentDumpGivesTheModelAndLayout) {
  const RunLog log = read_real("megatron_bigscience_gpt2_base_n4.log");
  const auto value = [&](const std::string& key) {
    for (const LogSetting& s : log.settings) {
      if (s.key == key) return s.value + " @" + std::to_string(s.line);
    }
    return std::string("-");
  };
  EXPECT_EQ(value("hidden_size"), "6144 @1206");
  EXPECT_EQ(value("num_layers"), "40 @1254");
  EXPECT_EQ(value("num_attention_heads"), "32 @1251");
  EXPECT_EQ(value("ffn_hidden_size"), "24576 @1199");
  EXPECT_EQ(value("global_batch_size"), "4 @1204");
  EXPECT_EQ(value("tensor_model_parallel_size"), "4 @1281");
  EXPECT_EQ(value("pipeline_model_parallel_size"), "4 @1263");
}

TEST(RealLogs, NemoAndGoldenValuesStateNoArguments) {
  EXPECT_TRUE(read_real("nemo2_awsome_k8s_ray_excerpt.log").settings.empty());
  EXPECT_TRUE(read_real("megatron_golden_t5_11b_tp4.json").settings.empty());
}

// Megatron-LM CI golden values (NVIDIA/Megatron-LM tests/functional_tests): per-metric series.
TEST(RealLogs, GoldenValuesKeyedByStepGiveLossAndStepTime) {
  const RunLog log = read_real("megatron_golden_t5_11b_tp4.json");
  EXPECT_EQ(log.format, LogFormat::megatron_golden);
  ASSERT_EQ(log.steps.size(), 6u);
  EXPECT_EQ(log.steps[0].step, 1);
  EXPECT_EQ(log.steps[1].step, 5);
  EXPECT_EQ(log.steps[5].step, 25);
  EXPECT_DOUBLE_EQ(*log.steps[0].loss, 10.64514);
  EXPECT_DOUBLE_EQ(*log.steps[5].loss, 7.72142);
  EXPECT_DOUBLE_EQ(*log.steps[0].step_time_s, 12.14062);
  EXPECT_DOUBLE_EQ(*log.steps[2].step_time_s, 0.96499);
  for (const Step& step : log.steps) {
    EXPECT_EQ(step.iterations, 1) << step.step;  // the value at that step, not an average
    EXPECT_FALSE(step.samples.has_value()) << step.step;  // the file states no batch
    EXPECT_FALSE(step.tokens.has_value()) << step.step;
  }
  EXPECT_FALSE(log.first_timestamp.has_value());
}

TEST(RealLogs, GoldenValuesListedFromStartStepEveryInterval) {
  const RunLog log = read_real("megatron_golden_gpt3_fp16_list.json");
  EXPECT_EQ(log.format, LogFormat::megatron_golden);
  ASSERT_EQ(log.steps.size(), 10u);  // 0, 5, ..., 45
  EXPECT_EQ(log.steps[0].step, 0);
  EXPECT_EQ(log.steps[9].step, 45);
  EXPECT_DOUBLE_EQ(*log.steps[0].loss, 10.83369);
  EXPECT_DOUBLE_EQ(*log.steps[9].loss, 10.24593);
  for (const Step& step : log.steps) EXPECT_FALSE(step.step_time_s.has_value()) << step.step;
}

TEST(RealLogs, GoldenValuesNanStepTimeIsKeptAsNan) {
  const RunLog log = read_real("megatron_golden_gpt3_7b_nan_times.json");
  ASSERT_EQ(log.steps.size(), 6u);
  EXPECT_TRUE(std::isnan(*log.steps[0].step_time_s));
  EXPECT_DOUBLE_EQ(*log.steps[2].step_time_s, 2.9368);
  EXPECT_DOUBLE_EQ(*log.steps[4].step_time_s, 2.94791);
  EXPECT_DOUBLE_EQ(*log.steps[5].loss, 10.98449);
}

// Megatron-Bridge's golden values: one object per step, the step time in ms.
TEST(RealLogs, BridgeGoldenValuesAreOneObjectPerStep) {
  const RunLog log = read_real("megatron_bridge_golden_deepseek_fsdp_gb200.json");
  EXPECT_EQ(log.format, LogFormat::megatron_golden);
  ASSERT_EQ(log.steps.size(), 50u);  // steps 0-49; "alloc" and "max_alloc" are not steps
  EXPECT_EQ(log.steps[0].step, 0);
  EXPECT_EQ(log.steps[49].step, 49);
  EXPECT_DOUBLE_EQ(*log.steps[0].loss, 11.89415);
  EXPECT_DOUBLE_EQ(*log.steps[0].step_time_s, 53.0486);
  EXPECT_DOUBLE_EQ(*log.steps[1].step_time_s, 0.2842);
  EXPECT_DOUBLE_EQ(*log.steps[49].loss, 8.127562);
  EXPECT_FALSE(log.steps[10].samples.has_value());
  EXPECT_EQ(log.log_interval, 1);
}

TEST(RealLogs, GoldenValuesPrettyPrintedOverLines) {
  const RunLog log = read_real("megatron_golden_reruns_pretty.json");
  EXPECT_EQ(log.format, LogFormat::megatron_golden);
  ASSERT_EQ(log.steps.size(), 1u);
  EXPECT_EQ(log.steps[0].step, 1);
  EXPECT_DOUBLE_EQ(*log.steps[0].loss, 29.29548);
}

}  // namespace
}  // namespace ladle::runlog
