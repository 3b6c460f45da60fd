// step_series_test.cpp: StepSeries gives back every record bit for bit, by index, in order and by
// step, across its blocks; and the JSONL reader, which appends to one as it reads, gives what the
// sorting path gives for logs out of order.
#include "ladle/runlog/step_series.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "ladle/runlog/run_log.hpp"
#include "ladle/util/error.hpp"

namespace ladle::runlog {
namespace {

uint64_t bits(const MaybeNumber<double>& v) { return v ? std::bit_cast<uint64_t>(*v) : 0; }

// Equal field by field, numbers by their bits (so NaN, -0.0 and payloads count).
void expect_same(const Step& a, const Step& b, size_t k) {
  EXPECT_EQ(a.step, b.step) << k;
  EXPECT_EQ(a.iterations, b.iterations) << k;
  EXPECT_EQ(a.step_time_s.has_value(), b.step_time_s.has_value()) << k;
  EXPECT_EQ(bits(a.step_time_s), bits(b.step_time_s)) << k;
  EXPECT_EQ(a.loss.has_value(), b.loss.has_value()) << k;
  EXPECT_EQ(bits(a.loss), bits(b.loss)) << k;
  EXPECT_EQ(bits(a.grad_norm), bits(b.grad_norm)) << k;
  EXPECT_EQ(a.grad_norm.has_value(), b.grad_norm.has_value()) << k;
  EXPECT_EQ(bits(a.learning_rate), bits(b.learning_rate)) << k;
  EXPECT_EQ(a.learning_rate.has_value(), b.learning_rate.has_value()) << k;
  EXPECT_TRUE(a.samples == b.samples) << k;
  EXPECT_TRUE(a.tokens == b.tokens) << k;
  EXPECT_TRUE(a.timestamp == b.timestamp) << k;
  EXPECT_EQ(a.skipped_iterations, b.skipped_iterations) << k;
  EXPECT_EQ(a.line, b.line) << k;
}

// Records with every kind of value a log can give, over several blocks and a partial last one.
std::vector<Step> varied(size_t n) {
  const double numbers[] = {2.31,
                            12.5,
                            1e-5,
                            0.0,
                            -0.0,
                            -3.75,
                            std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            0.1 + 0.2,
                            1.2345678901234567e300,
                            5e-324,
                            std::numeric_limits<double>::max(),
                            9007199254740993.0,
                            123456789012345678.0};
  const char* times[] = {"2026-10-12 11:00:12", "2026-10-12 11:00:22.5",
                         "2025-12-31 23:59:59.1234567890123456789", "1970-01-01 00:00:00",
                         "2026-10-12 11:00:22.000"};
  std::vector<Step> steps;
  uint64_t seed = 12345;
  const auto next = [&seed] {
    return seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  };
  for (size_t k = 0; k < n; ++k) {
    Step s;
    s.step = static_cast<int64_t>(k * 3) + (k % 7 == 0 ? 1000000 : 0);
    s.line = static_cast<int32_t>(k * 5 + 2);
    s.iterations = k % 11 == 0 ? 4 : 1;
    s.skipped_iterations = k % 13 == 0 ? 2 : 0;
    const uint64_t r = next();
    if (r & 1) s.step_time_s = numbers[(r >> 8) % std::size(numbers)];
    if (r & 2) s.loss = numbers[(r >> 16) % std::size(numbers)];
    if (r & 4)
      s.grad_norm = std::bit_cast<double>(r | 0x7ff0000000000001ULL);  // NaNs with payloads
    if (r & 8) s.learning_rate = std::bit_cast<double>(r >> 2);        // any bits
    if (r & 16) s.samples = static_cast<int64_t>(r >> 40);
    if (r & 32)
      s.tokens =
          k % 5 == 0 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(k * 1048576);
    if (r & 64) s.timestamp = times[(r >> 24) % std::size(times)];
    steps.push_back(s);
  }
  steps[1].step = std::numeric_limits<int64_t>::max();
  steps[2].iterations = std::numeric_limits<int64_t>::min() + 1;
  steps[3].line = std::numeric_limits<int32_t>::min();
  return steps;
}

TEST(StepSeries, GivesBackEveryRecordBitForBit) {
  const std::vector<Step> steps = varied(3 * StepSeries::kBlock + 17);
  const StepSeries series(steps);
  ASSERT_EQ(series.size(), steps.size());
  size_t k = 0;
  for (const Step& s : series) {
    ASSERT_LT(k, steps.size());
    expect_same(s, steps[k], k);
    ++k;
  }
  EXPECT_EQ(k, steps.size());
  for (size_t i = 0; i < steps.size(); i += 7) expect_same(series[i], steps[i], i);
  expect_same(series.front(), steps.front(), 0);
  expect_same(series.back(), steps.back(), steps.size() - 1);
}

TEST(StepSeries, SmallerThanSteps) {
  std::vector<Step> steps;
  for (int64_t k = 0; k < 10000; ++k) {
    Step s{.step = k, .line = static_cast<int32_t>(k + 2)};
    s.step_time_s = 10.25 + static_cast<double>(k % 100) / 100;
    s.loss = 2.31 - static_cast<double>(k % 1000) / 10000;
    s.learning_rate = 1e-5;
    s.tokens = 1048576;
    steps.push_back(s);
  }
  const StepSeries series(steps);
  EXPECT_LT(series.encoded_bytes(), steps.size() * 24);
  EXPECT_EQ(series.size(), steps.size());
  expect_same(series[9999], steps[9999], 9999);
}

TEST(StepSeries, FindsAStepInAnyBlock) {
  StepSeries series;
  for (int64_t k = 0; k < 200; ++k) series.push_back(Step{.step = 10 + 2 * k});
  EXPECT_EQ(series.find(10), 0u);
  EXPECT_EQ(series.find(10 + 2 * 64), 64u);
  EXPECT_EQ(series.find(10 + 2 * 63), 63u);
  EXPECT_EQ(series.find(10 + 2 * 199), 199u);  // in the tail
  EXPECT_EQ(series.find(10 + 2 * 190), 190u);
  EXPECT_FALSE(series.find(9));
  EXPECT_FALSE(series.find(11));
  EXPECT_FALSE(series.find(10 + 2 * 128 + 1));
  EXPECT_FALSE(series.find(10 + 2 * 200));
  EXPECT_FALSE(StepSeries().find(0));
}

TEST(StepSeries, EqualAsVectors) {
  const std::vector<Step> steps = varied(100);
  std::vector<Step> finite;
  for (Step s : steps) {
    s.step_time_s = 1.5;
    s.loss.reset();
    s.grad_norm = 0.25;
    s.learning_rate = 3e-4;
    finite.push_back(s);
  }
  EXPECT_TRUE(StepSeries(finite) == StepSeries(finite));
  std::vector<Step> other = finite;
  other[70].tokens = 3;
  EXPECT_FALSE(StepSeries(finite) == StepSeries(other));
  other.pop_back();
  EXPECT_FALSE(StepSeries(finite) == StepSeries(other));
}

// A JSONL log read in order (straight into a series) and the same records out of order (sorted on
// the way) give the same series, notes and errors.
TEST(StepSeries, JsonlInAndOutOfOrderAgree) {
  std::string in_order;
  std::string shuffled;
  std::vector<std::string> lines;
  for (int k = 0; k < 300; ++k) {
    if (k == 150) continue;  // a gap
    lines.push_back(fmt::format("{{\"step\": {}, \"step_time_s\": {}, \"loss\": {}}}\n", k,
                                1.5 + k % 3, 2.0 - k / 1000.0));
  }
  for (const std::string& line : lines) in_order += line;
  in_order += lines.back();  // printed twice, identical
  for (size_t k = lines.size(); k-- > 0;) shuffled += lines[k];
  shuffled += lines.front();
  const RunLog a = read_log(in_order, "a.jsonl");
  const RunLog b = read_log(shuffled, "b.jsonl");
  ASSERT_EQ(a.steps.size(), 299u);
  // The same records, each at its own line.
  const auto without_lines = [](const StepSeries& steps) {
    std::vector<Step> out;
    for (Step s : steps) {
      s.line = 0;
      out.push_back(s);
    }
    return out;
  };
  EXPECT_TRUE(without_lines(a.steps) == without_lines(b.steps));
  EXPECT_EQ(a.steps[0].line, 1);
  EXPECT_EQ(b.steps[0].line, 299);
  EXPECT_EQ(a.notes, b.notes);
  ASSERT_EQ(a.notes.size(), 2u);
  EXPECT_EQ(a.notes[0], "1 records printed more than once with identical values were kept once");
  EXPECT_EQ(a.notes[1], "1 record is missing: step 150");

  const std::string conflicting = in_order + "{\"step\": 299, \"loss\": 9}\n";
  try {
    (void)read_log(conflicting, "c.jsonl");
    ADD_FAILURE() << "a step printed twice with other values is an error";
  } catch (const Error& e) {
    EXPECT_NE(e.describe().find("step 299 is printed twice with different values"),
              std::string::npos)
        << e.describe();
  }
}

}  // namespace
}  // namespace ladle::runlog
