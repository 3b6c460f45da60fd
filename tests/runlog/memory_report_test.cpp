#include "ladle/runlog/memory_report.hpp"

#include <gtest/gtest.h>

#include "ladle/runlog/run_log.hpp"
#include "support/test_support.hpp"

namespace ladle::runlog {
namespace {

constexpr const char* kLog =
    " [2026-01-01 10:00:00] iteration        1/     100 | consumed samples:          128 | elapsed "
    "time per "
    "iteration (ms): 5000.0 | learning rate: 1.000000E-05 | global batch size:   128 | lm loss: "
    "9.000000E+00 | "
    "loss scale: 1.0 | grad norm: 2.000 | number of skipped iterations:   0 | number of nan "
    "iterations:   0 |\n"
    "[Rank 0] (after 1 iterations) memory (MB) | allocated: 1024.0 | max allocated: 2048.0 | "
    "reserved: 3072.0 | "
    "max reserved: 4096.0\n"
    "[Rank 3] (after 1 iterations) memory (MB) | allocated: 1024.0 | max allocated: 2560.5 | "
    "reserved: 3072.0 | "
    "max reserved: 5120.0\n";

TEST(MemoryReport, ReadsEveryRankAndThePeaks) {
  const RunLog log = read_log(kLog, "train.log");
  ASSERT_EQ(log.memory.size(), 2u);
  EXPECT_EQ(log.memory[0].rank, 0);
  EXPECT_EQ(log.memory[1].rank, 3);
  EXPECT_EQ(log.memory[1].after_iterations, 1);
  EXPECT_DOUBLE_EQ(log.memory[0].allocated_mib, 1024.0);
  EXPECT_DOUBLE_EQ(log.memory[1].max_allocated_mib, 2560.5);
  EXPECT_DOUBLE_EQ(log.memory[0].reserved_mib, 3072.0);
  EXPECT_DOUBLE_EQ(log.memory[1].max_reserved_mib, 5120.0);
  EXPECT_EQ(log.memory[1].line, 3);
  EXPECT_DOUBLE_EQ(peak_reserved_gib(log.memory), 5.0);
  EXPECT_DOUBLE_EQ(peak_allocated_gib(log.memory), 2560.5 / 1024.0);
}

TEST(MemoryReport, RejectsALineWithAMissingFigure) {
  std::string log = kLog;
  log.replace(log.find("max reserved: 5120.0"), 20, "max reserved: lots");
  EXPECT_LADLE_ERROR(read_log(log, "train.log"), input, "train.log:3:");
  EXPECT_LADLE_ERROR(read_log(log, "train.log"), input,
                     "expected a number after 'max reserved:' in the memory line");
}

}  // namespace
}  // namespace ladle::runlog
