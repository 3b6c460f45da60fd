// The JSON form of a log as read: absent figures null, non-finite ones as strings, memory in GiB.
#include "ladle/runlog/run_log_json.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "ladle/runlog/run_log.hpp"

namespace ladle::runlog {
namespace {

constexpr const char* kLog =
    " [2026-01-01 10:00:00] iteration        1/     100 | consumed samples:          128 | elapsed "
    "time per iteration (ms): 5000.0 | learning rate: 1.000000E-05 | global batch size:   128 | lm loss: "
    "9.000000E+00 | loss scale: 1.0 | grad norm: 2.000 | number of skipped iterations:   0 | number of nan "
    "iterations:   0 |\n"
    "[Rank 3] (after 1 iterations) memory (MB) | allocated: 1024.0 | max allocated: 2560.5 | reserved: 3072.0 | "
    "max reserved: 5120.0\n";

TEST(RunLogJson, AbsentFiguresAreNullAndNonFiniteOnesStrings) {
  Step step;
  step.step = 7;
  step.loss = std::numeric_limits<double>::quiet_NaN();
  step.grad_norm = -std::numeric_limits<double>::infinity();
  step.step_time_s = 1.5;
  const nlohmann::ordered_json j = to_json(step);
  EXPECT_EQ(j["step"], 7);
  EXPECT_EQ(j["loss"], "nan");
  EXPECT_EQ(j["grad_norm"], "-inf");
  EXPECT_EQ(j["step_time_s"], 1.5);
  EXPECT_TRUE(j["learning_rate"].is_null());
  EXPECT_TRUE(j["samples"].is_null());
  EXPECT_TRUE(j["timestamp"].is_null());
}

TEST(RunLogJson, LogCarriesItsRecordsAndMemoryInGib) {
  const RunLog log = read_log(kLog, "train.log");
  const nlohmann::ordered_json j = to_json(log);
  EXPECT_EQ(j["path"], "train.log");
  EXPECT_EQ(j["records"], log.steps.size());
  ASSERT_EQ(j["steps"].size(), log.steps.size());
  EXPECT_EQ(j["steps"][0]["samples"], 128);
  EXPECT_EQ(j["steps"][0]["timestamp"], "2026-01-01 10:00:00");
  ASSERT_TRUE(j.contains("memory"));
  EXPECT_DOUBLE_EQ(j["memory"]["peak_max_reserved_gib"].get<double>(), 5.0);
  EXPECT_EQ(j["memory"]["ranks"][0]["rank"], 3);
  EXPECT_DOUBLE_EQ(j["memory"]["ranks"][0]["max_allocated_gib"].get<double>(), 2560.5 / 1024.0);
}

TEST(RunLogJson, NoMemoryKeyWithoutMemoryLines) {
  RunLog log;
  log.path = "empty.log";
  const nlohmann::ordered_json j = to_json(log);
  EXPECT_FALSE(j.contains("memory"));
  EXPECT_TRUE(j["steps"].empty());
  EXPECT_TRUE(j["span_s"].is_null());
}

}  // namespace
}  // namespace ladle::runlog
