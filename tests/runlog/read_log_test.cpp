// Synthetic logs (tests/data/runlog/synthetic, built by make_fixtures.py from the cited formats)
// and inline cases for noise and bad input. Expected figures come from make_fixtures.py's own
// arithmetic or were worked out by hand from the text.
#include "ladle/runlog/run_log.hpp"

#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <string>

#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::runlog {
namespace {

RunLog read_synthetic(const std::string& name, std::optional<LogFormat> forced = std::nullopt) {
  return read_log_file(test::source_path("tests/data/runlog/synthetic/" + name), forced);
}

TEST(ReadLog, SlimeSeedLogThroughRayPrefixesAndColours) {
  const RunLog log = read_synthetic("slime_glm52_tp4_seed.log");
  EXPECT_EQ(log.format, LogFormat::slime);
  ASSERT_EQ(log.steps.size(), 14u);
  EXPECT_EQ(log.steps.front().step, 0);
  EXPECT_EQ(log.steps.back().step, 13);
  EXPECT_DOUBLE_EQ(*log.steps[0].step_time_s, 88.1);
  EXPECT_DOUBLE_EQ(*log.steps[0].loss, 1.2131);
  EXPECT_DOUBLE_EQ(*log.steps[0].grad_norm, 16.3);
  EXPECT_DOUBLE_EQ(*log.steps[0].learning_rate, 5e-6);
  EXPECT_EQ(log.steps[0].samples, 128);
  EXPECT_FALSE(log.steps[0].tokens.has_value());
  EXPECT_EQ(*log.steps[0].timestamp, "2026-10-11 10:08:08");
  EXPECT_EQ(*log.first_timestamp, "2026-10-11 10:00:00");
  EXPECT_EQ(*log.last_timestamp, "2026-10-11 10:21:03");
  EXPECT_DOUBLE_EQ(*log.span_s, 1263.0);
  EXPECT_TRUE(log.notes.empty());
}

TEST(ReadLog, MilesEchoedStepsAreKeptOnce) {
  const RunLog log = read_synthetic("miles_glm47flash_seed.log");
  EXPECT_EQ(log.format, LogFormat::miles);
  ASSERT_EQ(log.steps.size(), 20u);
  EXPECT_DOUBLE_EQ(*log.steps[3].loss, 1.082951);
  ASSERT_EQ(log.notes.size(), 1u);
  EXPECT_EQ(log.notes[0], "each step is printed twice, as miles does; identical copies were kept once");
  // Forced as slime it reads the same steps and says why the copies were folded.
  const RunLog as_slime = read_synthetic("miles_glm47flash_seed.log", LogFormat::slime);
  EXPECT_EQ(as_slime.steps, log.steps);
}

TEST(ReadLog, MegatronNoiseFixture) {
  const RunLog log = read_synthetic("megatron_noise.log");
  EXPECT_EQ(log.format, LogFormat::megatron);
  ASSERT_EQ(log.steps.size(), 5u);
  EXPECT_EQ(log.log_interval, 5);
  const int64_t steps[] = {1, 5, 10, 15, 20};
  const int64_t iterations[] = {1, 4, 5, 5, 5};
  const int64_t samples[] = {64, 256, 320, 320, 320};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(log.steps[i].step, steps[i]);
    EXPECT_EQ(log.steps[i].iterations, iterations[i]) << i;
    EXPECT_EQ(log.steps[i].samples, samples[i]) << i;
  }
  EXPECT_EQ(log.steps[1].skipped_iterations, 3);
  EXPECT_DOUBLE_EQ(*log.steps[3].learning_rate, 4e-5);  // the wrapped record
  EXPECT_DOUBLE_EQ(*log.steps[3].loss, 9.012345);
  EXPECT_DOUBLE_EQ(*log.steps[4].step_time_s, 1.1541);  // two ranks' output on one line
  EXPECT_FALSE(log.steps[4].timestamp.has_value());
  EXPECT_EQ(*log.steps[0].timestamp, "2026-10-12 09:00:41.512345");
  EXPECT_EQ(*log.last_timestamp, "2026-10-12 09:01:05");
}

TEST(ReadLog, BridgeStepTimeLines) {
  const RunLog log = read_synthetic("bridge_step_time.log");
  EXPECT_EQ(log.format, LogFormat::megatron_bridge);
  ASSERT_EQ(log.steps.size(), 6u);
  EXPECT_DOUBLE_EQ(*log.steps[0].step_time_s, 5.1204);  // the iteration line's ms, finer than "5.12s"
  EXPECT_DOUBLE_EQ(*log.steps[5].loss, 6.731002);
  EXPECT_EQ(log.steps[2].samples, 32);
  EXPECT_TRUE(log.notes.empty());
  // The same log forced as plain Megatron-LM reads the same steps.
  EXPECT_EQ(read_synthetic("bridge_step_time.log", LogFormat::megatron).steps, log.steps);
}

TEST(ReadLog, JsonlFixture) {
  const RunLog log = read_synthetic("ladle_steps.jsonl");
  EXPECT_EQ(log.format, LogFormat::jsonl);
  ASSERT_EQ(log.steps.size(), 4u);
  EXPECT_TRUE(std::isnan(*log.steps[1].grad_norm));
  EXPECT_FALSE(log.steps[3].grad_norm.has_value());
  EXPECT_EQ(log.steps[2].samples, 128);
  EXPECT_EQ(log.steps[2].tokens, 1048576);
  EXPECT_EQ(*log.steps[0].timestamp, "2026-10-12 11:00:12");
  EXPECT_DOUBLE_EQ(*log.span_s, 31.0);
}

TEST(ReadLog, ForcedFormatThatDoesNotFitSaysWhatTheLogLooksLike) {
  EXPECT_LADLE_ERROR(read_synthetic("megatron_noise.log", LogFormat::slime), input,
                     "no step records for format slime: expected 'step N: {...}' lines; it looks like a "
                     "megatron log");
  EXPECT_LADLE_ERROR(read_synthetic("slime_glm52_tp4_seed.log", LogFormat::megatron), input,
                     "no step records for format megatron: expected 'iteration N/ M | ... |' lines; it looks "
                     "like a slime log");
  EXPECT_LADLE_ERROR(read_synthetic("megatron_noise.log", LogFormat::jsonl), input,
                     "megatron_noise.log:2:2: error: not a JSON object");
}

TEST(ReadLog, EmptyAndNoiseOnlyLogsAreRejected) {
  EXPECT_LADLE_ERROR(read_log("", "empty.log"), input, "empty.log: error: the log is empty");
  EXPECT_LADLE_ERROR(read_log("\n  \n", "blank.log"), input, "the log is empty");
  EXPECT_LADLE_ERROR(read_log("loading model\nready\n", "x.log"), input,
                     "x.log: error: no training-step records: not a Megatron-LM");
}

TEST(ReadLog, GoldenValuesBadInputIsOneLocatedLine) {
  // Cut off: the JSON syntax error is reported at its line.
  EXPECT_LADLE_ERROR(read_log("{\"lm loss\": {\"start_step\": 1, \"end_step\": 5,\n\"step_interval\": 1, \"values\": {\"1\": 2.0",
                              "g.json"),
                     input, "g.json:2:");
  EXPECT_LADLE_ERROR(
      read_log(R"({"lm loss": {"start_step": 1, "end_step": 5, "step_interval": 1, "values": {"1": "high"}}})", "g.json"),
      input, "g.json: error: lm loss.values.\"1\": \"high\": expected a number or \"nan\"");
  EXPECT_LADLE_ERROR(
      read_log(R"({"lm loss": {"start_step": 1, "end_step": 5, "step_interval": 1, "values": {"9": 1.0}}})", "g.json"),
      input, "step 9 is outside start_step 1 to end_step 5");
  EXPECT_LADLE_ERROR(
      read_log(R"({"lm loss": {"start_step": 1, "end_step": 5, "step_interval": 0, "values": {"1": 1.0}}})", "g.json"),
      input, "expected start_step <= end_step and step_interval >= 1");
  EXPECT_LADLE_ERROR(
      read_log(R"({"lm loss": {"start_step": 1, "end_step": 5, "step_interval": 1, "values": {"-1": 1.0}}})", "g.json"),
      input, "expected a whole step number >= 0 as the key");
  EXPECT_LADLE_ERROR(
      read_log(R"({"num-zeros": {"start_step": 1, "end_step": 5, "step_interval": 1, "values": {"1": 1.0}}})", "g.json"),
      input, "no \"lm loss\" or \"iteration-time\" step series");
  EXPECT_LADLE_ERROR(
      read_log(R"({"lm loss": {"start_step": 1, "end_step": 5, "step_interval": 1, "values": {}}})", "g.json"),
      input, "no step records for format megatron_golden");
  EXPECT_LADLE_ERROR(read_log(R"j({"0": {"lm loss": 2.0, "elapsed time per iteration (ms)": "slow"}})j", "b.json"), input,
                     "b.json: error: 0.elapsed time per iteration (ms): \"slow\": expected a number or \"nan\"");
  EXPECT_LADLE_ERROR(read_log(R"j({"0": {"elapsed time per iteration (ms)": 5.0}, "1": 3})j", "b.json"), input,
                     "b.json: error: 1: 3: expected an object of the step's metrics");
}

// nemo_wrapped.log is the real NeMo 2.0 excerpt real/nemo2_awsome_k8s_ray_excerpt.log (lines 9-13)
// with each record folded at word boundaries to 90 columns, as an editor or a narrow terminal
// copies it: three lines a record, global_step on the second, "train_step_timing" cut from its
// "in s: 47.12".
TEST(ReadLog, NemoRecordWrappedOverThreeLinesIsRead) {
  const RunLog log = read_synthetic("nemo_wrapped.log");
  EXPECT_EQ(log.format, LogFormat::nemo);
  ASSERT_EQ(log.steps.size(), 3u);
  EXPECT_EQ(log.steps[0].step, 45);
  EXPECT_EQ(log.steps[0].line, 1);
  EXPECT_EQ(log.steps[2].step, 48);
  EXPECT_DOUBLE_EQ(*log.steps[0].step_time_s, 47.12);
  EXPECT_DOUBLE_EQ(*log.steps[2].step_time_s, 46.81);
  EXPECT_DOUBLE_EQ(*log.steps[1].loss, 11.02);
  EXPECT_DOUBLE_EQ(*log.steps[1].learning_rate, 7.046e-6);
  EXPECT_EQ(log.steps[1].samples, 512);
  // The same records as the unwrapped log.
  const RunLog real = read_log_file(test::source_path("tests/data/runlog/real/nemo2_awsome_k8s_ray_excerpt.log"));
  ASSERT_EQ(real.steps.size(), log.steps.size());
  for (size_t i = 0; i < log.steps.size(); ++i) {
    Step a = real.steps[i];
    Step b = log.steps[i];
    a.line = b.line = 0;
    EXPECT_EQ(a, b) << i;
  }
  EXPECT_EQ(log.notes, real.notes);
}

TEST(ReadLog, NemoRecordWrappedBeforeItsFirstBarIsRead) {
  const RunLog log = read_log(
      "Training epoch 0, iteration 3/9\n| lr: 6e-05 | global_batch_size: 1 | global_step: 3 | reduced_train_loss: 1.277\n",
      "n.log");
  ASSERT_EQ(log.steps.size(), 1u);
  EXPECT_EQ(log.steps[0].step, 3);
  EXPECT_DOUBLE_EQ(*log.steps[0].loss, 1.277);
}

TEST(ReadLog, NemoRecordCutBeforeGlobalStepIsStillAnError) {
  // The next line is a log line of its own, not the rest of the record.
  EXPECT_LADLE_ERROR(read_log("Training epoch 0, iteration 3/9 | lr: 6e-05 | global_batch_size: 1 |\n"
                              "[NeMo I 2025-06-18 21:57:04 nemo_logging:393] saving\n",
                              "n.log"),
                     input, "n.log:1:1: error: NeMo record without 'global_step'");
  EXPECT_LADLE_ERROR(read_log("Training epoch 0, iteration 3/9 | lr: 6e-05 | global_batch_size: 1 |\n", "n.log"), input,
                     "n.log:1:1: error: NeMo record without 'global_step'");
}

TEST(ReadLog, ArgumentDumpKeepsTheFirstPrintingOfTheComparedKeys) {
  const std::string text =
      "------------------------ arguments ------------------------\n"
      "  hidden_size ..................................... 4096\n"
      "  num_experts ..................................... None\n"
      "  lr .............................................. 0.0003\n"
      "  hidden_size ..................................... 8192\n"
      "  num_layers is 32 ...... not a dump line\n"
      " iteration        1/      10 | consumed samples:  8 | elapsed time per iteration (ms): 10.0 | lm loss: "
      "2.0E+00 |\n";
  const RunLog log = read_log(text, "a.log");
  ASSERT_EQ(log.settings.size(), 2u);
  EXPECT_EQ(log.settings[0], (LogSetting{"hidden_size", "4096", 2}));
  EXPECT_EQ(log.settings[1], (LogSetting{"num_experts", "None", 3}));
}

TEST(ReadLog, TruncatedMegatronRecordIsAnError) {
  const std::string text =
      " iteration        1/      10 | consumed samples:  8 | elapsed time per iteration (ms): 10.0 | lm loss: "
      "2.0E+00 |\n"
      " iteration        2/      10 | consumed samples:  16 | elapsed time per iteration (ms): 1";
  EXPECT_LADLE_ERROR(read_log(text, "cut.log"), input,
                     "cut.log:2:2: error: the record of 'iteration        2/      10' is cut off");
}

TEST(ReadLog, TruncatedSlimeDictIsAnError) {
  const std::string text = "step 0: {'train/loss': 1.0}\nstep 1: {'train/loss': 0.9, 'train/grad";
  EXPECT_LADLE_ERROR(read_log(text, "cut.log"), input, "cut.log:2:9: error: the dict of 'step 1' is cut off");
}

TEST(ReadLog, SlimeDictWrappedOverLinesIsJoined) {
  const std::string text =
      "[2026-01-01 00:00:00] model.py:642 - step 0: {'train/loss': 1.25, 'train/gr\n"
      "ad_norm': 3.5, 'train/lr-pg_0': np.float64(1e-05)}\n"
      "[2026-01-01 00:00:09] train_metric_utils.py:68 - perf 0: {'perf/train_time': 8.0, 'perf/train_wait_time': 1.0}\n";
  const RunLog log = read_log(text, "wrap.log");
  ASSERT_EQ(log.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(*log.steps[0].grad_norm, 3.5);
  EXPECT_DOUBLE_EQ(*log.steps[0].learning_rate, 1e-5);
  EXPECT_DOUBLE_EQ(*log.steps[0].step_time_s, 9.0);  // train + wait when step_time is absent
}

TEST(ReadLog, PythonLiteralsNanInfNoneAndCriticLinesIgnored) {
  const std::string text =
      "step 0: {'train/loss': nan, 'train/grad_norm': inf, 'train/lr-pg_0': None, 'train/ok': True}\n"
      "critic-step 0: {'train/critic-value_loss': 3.0}\n"
      "step 1: {'train/loss': 0.5, 'train/grad_norm': -inf, 'train/lr-pg_0': 1e-05}\n";
  const RunLog log = read_log(text, "py.log");
  ASSERT_EQ(log.steps.size(), 2u);
  EXPECT_TRUE(std::isnan(*log.steps[0].loss));
  EXPECT_TRUE(std::isinf(*log.steps[0].grad_norm));
  EXPECT_FALSE(log.steps[0].learning_rate.has_value());
  EXPECT_TRUE(std::isinf(*log.steps[1].grad_norm) && *log.steps[1].grad_norm < 0);
  EXPECT_EQ(log.notes[0], "no 'perf N:' lines: step times unknown");
}

TEST(ReadLog, BadPythonValueNamesTheColumn) {
  EXPECT_LADLE_ERROR(read_log("step 0: {'train/loss': 1.0.0}\n", "bad.log"), input,
                     "bad.log:1:24: error: in 'step 0': '1.0.0' is not a number");
}

TEST(ReadLog, ConflictingDuplicateStepsAreAnError) {
  const std::string text = "step 0: {'train/loss': 1.0}\nstep 1: {'train/loss': 0.9}\nstep 1: {'train/loss': 0.8}\n";
  EXPECT_LADLE_ERROR(read_log(text, "dup.log"), input,
                     "dup.log:3: error: step 1 is printed twice with different values (lines 2 and 3)");
}

TEST(ReadLog, SeveralStepsPerRolloutCannotBeTimed) {
  const std::string text =
      "step 0: {'train/loss': 1.0}\nstep 1: {'train/loss': 0.9}\nperf 0: {'perf/step_time': 20.0}\n";
  EXPECT_LADLE_ERROR(read_log(text, "k.log"), input, "2 training steps per rollout");
}

TEST(ReadLog, JsonlUnknownKeySuggestsTheRightOne) {
  EXPECT_LADLE_ERROR(read_log("{\"step\": 0, \"los\": 1.0}\n", "s.jsonl"), input,
                     "s.jsonl:1: error: los: unknown key (did you mean 'loss'?)");
  EXPECT_LADLE_ERROR(read_log("{\"step\": 0, \"loss\": \"high\"}\n", "s.jsonl"), input,
                     "s.jsonl:1: error: loss: '\"high\"' is not a number");
  EXPECT_LADLE_ERROR(read_log("{\"step\": -1}\n", "s.jsonl"), input, "step: '-1' is not a whole number >= 0");
}

TEST(ReadLog, CarriageReturnsAndWindowsLineEnds) {
  const std::string text =
      "progress 10%\rprogress 100%\r\n"
      "[rank0]: iteration        1/       2 | consumed samples: 4 | elapsed time per iteration (s): 1.5 | lm loss: "
      "3.0E+00 |\r\n";
  const RunLog log = read_log(text, "cr.log");
  ASSERT_EQ(log.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(*log.steps[0].step_time_s, 1.5);
}

TEST(ReadLog, UnknownFormatNameSuggests) {
  EXPECT_LADLE_ERROR(parse_log_format("megatorn"), usage, "unknown log format 'megatorn' (did you mean 'megatron'?)");
}

TEST(ReadLog, TimestampsAreSecondsSinceEpoch) {
  EXPECT_DOUBLE_EQ(*parse_timestamp_s("1970-01-02 00:00:01"), 86401.0);
  EXPECT_DOUBLE_EQ(*parse_timestamp_s("2024-03-01 00:00:00.5") - *parse_timestamp_s("2024-02-28 00:00:00"),
                   2 * 86400.0 + 0.5);  // a leap year
  EXPECT_FALSE(parse_timestamp_s("2024-13-01 00:00:00").has_value());
}

// Every field of a log as text, so two logs compare equal with NaN losses (NaN != NaN).
std::string dump(const RunLog& log) {
  const auto opt = [](const auto& v) { return v ? fmt::format("{}", *v) : std::string("-"); };
  std::string out = fmt::format("{} {} {} {} {} {}\n", to_string(log.format), log.log_interval, opt(log.first_timestamp),
                                opt(log.last_timestamp), opt(log.span_s), fmt::join(log.notes, "|"));
  for (const Step& s : log.steps) {
    out += fmt::format("{} {} {} {} {} {} {} {} {} {} {}\n", s.step, s.iterations, opt(s.step_time_s), opt(s.loss),
                       opt(s.grad_norm), opt(s.learning_rate), opt(s.samples), opt(s.tokens), opt(s.timestamp),
                       s.skipped_iterations, s.line);
  }
  return out;
}

TEST(ReadLog, StreamingAFileGivesWhatReadingItsTextGives) {
  size_t logs = 0;
  for (const char* folder : {"tests/data/runlog/synthetic", "tests/data/runlog/real"}) {
    for (const auto& entry : std::filesystem::directory_iterator(test::source_path(folder))) {
      const std::string path = entry.path().string();
      if (!path.ends_with(".log") && !path.ends_with(".jsonl")) continue;
      std::optional<RunLog> from_text;
      std::string text_error;
      try {
        from_text = read_log(util::read_file(path), path);
      } catch (const Error& e) {
        text_error = e.describe();
      }
      try {
        const RunLog streamed = read_log_file(path);
        ASSERT_TRUE(from_text.has_value()) << path << ": only the text reading failed: " << text_error;
        EXPECT_EQ(dump(streamed), dump(*from_text)) << path;
      } catch (const Error& e) {
        EXPECT_EQ(e.describe(), text_error) << path;
      }
      ++logs;
    }
  }
  EXPECT_GE(logs, 20u);
}

TEST(ReadLog, CountsPrintedAsFloatsMustBeWholeAndFinite) {
  const auto slime = [](const std::string& gbs) {
    return fmt::format("step 0: {{'train/loss': 2.0, 'train/global_batch_size': {}}}\n", gbs);
  };
  EXPECT_LADLE_ERROR(read_log(slime("nan"), "s.log"), input, "s.log:1: error: train/global_batch_size: nan is not a count");
  EXPECT_LADLE_ERROR(read_log(slime("128.7"), "s.log"), input, "128.7 is not a count of samples");
  EXPECT_LADLE_ERROR(read_log(slime("1e300"), "s.log"), input, "is not a count of samples");
  EXPECT_EQ(read_log(slime("128.0"), "s.log").steps[0].samples, 128);
  EXPECT_LADLE_ERROR(read_log("step 99999999999999999999999: {'train/loss': 2.0}\n", "s.log"), input,
                     "is not a step number");
  const std::string nemo =
      "Training epoch 0, iteration 1/9 | lr: 1e-05 | global_batch_size: 8 | global_step: {} | "
      "reduced_train_loss: 2.0 | train_step_timing in s: 1.0\n";
  EXPECT_LADLE_ERROR(read_log(fmt::format(fmt::runtime(nemo), "-1e308"), "n.log"), input,
                     "global_step: '-1e308' is not a step number");
  EXPECT_LADLE_ERROR(read_log(fmt::format(fmt::runtime(nemo), "3.5"), "n.log"), input, "is not a step number");
  EXPECT_EQ(read_log(fmt::format(fmt::runtime(nemo), "3"), "n.log").steps[0].step, 3);
}

TEST(ReadLog, ImpossibleDatesAreNotTimestamps) {
  EXPECT_FALSE(parse_timestamp_s("2026-02-30 00:00:00").has_value());
  EXPECT_FALSE(parse_timestamp_s("2026-02-28 24:00:00").has_value());
  EXPECT_TRUE(parse_timestamp_s("2024-02-29 23:59:59").has_value());
}

TEST(ReadLog, LogsThatAreNotRegularFilesAreRefused) {
  EXPECT_LADLE_ERROR(read_log_file("/dev/zero"), io, "/dev/zero: error: is a character device");
  EXPECT_LADLE_ERROR(read_log_file(test::source_path("tests/data/runlog")), io, "is a folder");
}

// A log with a gap after every record holds one short note: the first 100 gaps, and a count.
TEST(ReadLog, ManyGapsAreCountedNotAllListed) {
  std::string text;
  for (int i = 0; i < 151; ++i) text += fmt::format("{{\"step\": {}, \"loss\": 1.0}}\n", 3 * i);
  const RunLog log = read_log(text, "gaps.jsonl");
  ASSERT_EQ(log.steps.size(), 151u);
  ASSERT_EQ(log.notes.size(), 1u);
  const std::string& note = log.notes[0];
  EXPECT_EQ(note.find("300 records are missing: steps 1-2, 4-5, "), 0u) << note;
  EXPECT_NE(note.find(", 298-299 and 50 more gaps"), std::string::npos) << note;
  EXPECT_EQ(note.find("301-302"), std::string::npos) << note;
}

// A record printed twice in a row is folded as it arrives, counted in the note like any copy.
TEST(ReadLog, ConsecutiveCopiesAreFoldedAndCounted) {
  const std::string line = "{\"step\": 0, \"loss\": 1.5}\n";
  const RunLog log = read_log(line + line + line + "{\"step\": 1, \"loss\": 1.25}\n", "copies.jsonl");
  ASSERT_EQ(log.steps.size(), 2u);
  ASSERT_EQ(log.notes.size(), 1u);
  EXPECT_EQ(log.notes[0], "2 records printed more than once with identical values were kept once");
}

}  // namespace
}  // namespace ladle::runlog
