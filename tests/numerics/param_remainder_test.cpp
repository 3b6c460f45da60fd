#include "ladle/numerics/param_remainder.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>

#include "ladle/numerics/low_precision.hpp"

namespace ladle::numerics {
namespace {

float from_bits(uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(ParamRemainder, SplitRoundsHalfAwayFromZero) {
  // Low half below 0x8000: the weight is the top half as it is.
  EXPECT_EQ(split_master(from_bits(0x3f807fffu)), (SplitMaster{0x3f80, 0x7fff}));
  // Exactly 0x8000 (a tie): TE rounds up in magnitude even though 0x3f80 is even.
  const SplitMaster tie = split_master(from_bits(0x3f808000u));
  EXPECT_EQ(tie.bf16, 0x3f81);
  EXPECT_EQ(tie.remainder, static_cast<int16_t>(-32768));
  EXPECT_NE(tie.bf16, bf16_from_float_rne(from_bits(0x3f808000u)));
  // Negative numbers: rounding up the pattern is away from zero too.
  EXPECT_EQ(split_master(from_bits(0xbf80c000u)).bf16, 0xbf81);
}

TEST(ParamRemainder, JoinUndoesSplitIncludingCarriesAndNan) {
  for (const uint32_t bits : {0x00000000u, 0x80000000u, 0x3f808000u, 0x3fffffffu, 0x7f7fffffu,
                              0x7f7f8000u, 0xff7fffffu, 0x7f800000u, 0x7fffffffu, 0xffffffffu,
                              0x0000ffffu, 0x807f8000u}) {
    const SplitMaster s = split_master(from_bits(bits));
    EXPECT_EQ(std::bit_cast<uint32_t>(join_master(s)), bits) << std::hex << bits;
  }
  // The largest finite FP32 rounds its BF16 weight to infinity; the master survives.
  EXPECT_EQ(split_master(from_bits(0x7f7fffffu)).bf16, 0x7f80);
}

TEST(ParamRemainder, TruncatingSplitReadByTeJoinIsWrong) {
  const float master = from_bits(0x3f80c000u);
  const SplitMaster truncated = split_master(master, RemainderSplit::truncating);
  EXPECT_EQ(truncated.bf16, 0x3f80);
  EXPECT_EQ(std::bit_cast<uint32_t>(join_master(truncated, RemainderSplit::truncating)), 0x3f80c000u);
  EXPECT_NE(std::bit_cast<uint32_t>(join_master(truncated)), 0x3f80c000u);
}

TEST(ParamRemainder, SelfTestPassesAndCountsTies) {
  const RemainderSelfTest t = run_remainder_self_test();
  EXPECT_TRUE(t.passed());
  EXPECT_EQ(t.round_trip_failures, 0u);
  EXPECT_EQ(t.rounding_failures, 0u);
  EXPECT_EQ(t.bf16_failures, 0u);
  EXPECT_EQ(t.fp16_failures, 0u);
  // Every exponent and sign: 2 x 255 x (2 x 65,536 + 126 x 10) patterns.
  EXPECT_EQ(t.patterns, 2u * 255u * (2u * 65536u + 126u * 10u));
  EXPECT_EQ(t.ties, 2u * 255u * 128u);
  // Half of the ties sit on an even weight, where TE's rule differs from ties-to-even.
  EXPECT_EQ(t.ties_unlike_rne, t.ties / 2);
}

}  // namespace
}  // namespace ladle::numerics
