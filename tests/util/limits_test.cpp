#include "ladle/util/limits.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ladle/util/json.hpp"
#include "support/test_support.hpp"

namespace ladle::util {
namespace {

TEST(CheckedArithmetic, OverflowIsNulloptNotAWrap) {
  EXPECT_EQ(checked_mul(int64_t{1} << 62, 2), std::nullopt);
  EXPECT_EQ(checked_mul(4611686018427387904, 8192), std::nullopt);  // R14's product at 2^62 rows
  EXPECT_EQ(checked_mul(3, -4), -12);
  EXPECT_EQ(checked_add(INT64_MAX, 1), std::nullopt);
  EXPECT_EQ(checked_sub(INT64_MIN, 1), std::nullopt);
  EXPECT_EQ(checked_add(40, 2), 42);
}

TEST(ExactInt64, RefusesNaNInfinitiesFractionsAndOutOfRange) {
  EXPECT_EQ(exact_int64(std::nan("")), std::nullopt);  // slime's nan global_batch_size
  EXPECT_EQ(exact_int64(-1e308), std::nullopt);        // NeMo's global_step
  EXPECT_EQ(exact_int64(std::numeric_limits<double>::infinity()), std::nullopt);
  EXPECT_EQ(exact_int64(128.7), std::nullopt);  // not silently 128
  EXPECT_EQ(exact_int64(9223372036854775808.0), std::nullopt);
  EXPECT_EQ(exact_int64(128.0), 128);
  EXPECT_EQ(exact_int64(-9223372036854775808.0), INT64_MIN);
}

TEST(CalendarDate, KnowsMonthLengthsAndLeapYears) {
  EXPECT_TRUE(is_calendar_date("2026-02-28"));
  EXPECT_FALSE(is_calendar_date("2026-02-30"));
  EXPECT_FALSE(is_calendar_date("2026-02-29"));
  EXPECT_TRUE(is_calendar_date("2024-02-29"));
  EXPECT_FALSE(is_calendar_date("1900-02-29"));
  EXPECT_TRUE(is_calendar_date("2000-02-29"));
  EXPECT_FALSE(is_calendar_date("2026-04-31"));
  EXPECT_FALSE(is_calendar_date("2026-13-01"));
  EXPECT_FALSE(is_calendar_date("2026-00-10"));
  EXPECT_FALSE(is_calendar_date("2026-1-10"));
}

TEST(ThreadCount, RefusesBelowOneAndAboveTheLimitAndClampsToTheMachine) {
  EXPECT_LADLE_ERROR(thread_count(0, "--threads"), usage,
                     "--threads 0: expected 1 to 4096 threads");
  EXPECT_LADLE_ERROR(thread_count(-1, "--threads"), usage, "--threads -1");
  EXPECT_LADLE_ERROR(thread_count(100000, "--threads"), usage, "--threads 100000");
  const int all = thread_count(std::nullopt, "--threads");
  EXPECT_GE(all, 1);
  EXPECT_EQ(thread_count(4096, "--threads"), all);
  EXPECT_EQ(thread_count(1, "--threads"), 1);
}

TEST(ParseJson, SyntaxErrorsAndHugeNumbersAreLocatedInputErrors) {
  EXPECT_LADLE_ERROR(parse_json("{\n  \"a\": 1,\n  \"score\": 1e400\n}", SourceLocation{"c.json"}),
                     input, "c.json:3:12: error: a number outside the range of a double");
  EXPECT_LADLE_ERROR(parse_json(R"({"score": -1e400})", SourceLocation{"x.jsonl", 7}), input,
                     "x.jsonl:7:11:");
  EXPECT_LADLE_ERROR(parse_json("{\n  \"a\": ,\n}", SourceLocation{"c.json"}), input,
                     "c.json:2:8: error: invalid JSON");
  EXPECT_EQ(parse_json(R"({"a": 1e300})", SourceLocation{"c.json"})["a"].get<double>(), 1e300);
}

}  // namespace
}  // namespace ladle::util
