#include "ladle/numerics/low_precision.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ladle::numerics {
namespace {

TEST(LowPrecision, EveryBf16PatternRoundTripsThroughFloat) {
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    const float value = float_from_bf16(static_cast<uint16_t>(h));
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(float_from_bf16(bf16_from_float_rne(value)))) << h;
    } else {
      ASSERT_EQ(bf16_from_float_rne(value), h) << h;
    }
  }
}

TEST(LowPrecision, Bf16TiesGoToEven) {
  // 1 + 2^-8 lies halfway between BF16 1.0 (0x3f80) and 1.0078125 (0x3f81): even wins.
  EXPECT_EQ(bf16_from_float_rne(std::bit_cast<float>(0x3f808000u)), 0x3f80);
  // Halfway between 0x3f81 and 0x3f82 goes up to the even 0x3f82.
  EXPECT_EQ(bf16_from_float_rne(std::bit_cast<float>(0x3f818000u)), 0x3f82);
  EXPECT_EQ(bf16_from_float_rne(std::bit_cast<float>(0x3f808001u)), 0x3f81);
  EXPECT_EQ(bf16_from_float_rne(std::bit_cast<float>(0x3f807fffu)), 0x3f80);
  // Negative values mirror.
  EXPECT_EQ(bf16_from_float_rne(std::bit_cast<float>(0xbf818000u)), 0xbf82);
}

TEST(LowPrecision, Bf16OverflowsToInfinityAndKeepsNan) {
  EXPECT_EQ(bf16_from_float_rne(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(bf16_from_float_rne(-std::numeric_limits<float>::infinity()), 0xff80);
  const uint16_t nan = bf16_from_float_rne(std::bit_cast<float>(0x7f800001u));  // signalling NaN
  EXPECT_TRUE(std::isnan(float_from_bf16(nan)));
  EXPECT_EQ(bf16_from_float_truncate(std::bit_cast<float>(0x3f80ffffu)), 0x3f80);
}

TEST(LowPrecision, Bf16FromDoubleAvoidsDoubleRounding) {
  // Just above the tie between 0x3f80 and 0x3f81, but close enough that FP32 rounds onto the tie.
  const double tie = 1.0 + std::ldexp(1.0, -8);
  const double above = tie + std::ldexp(1.0, -40);
  ASSERT_EQ(std::bit_cast<uint32_t>(static_cast<float>(above)), 0x3f808000u);
  EXPECT_EQ(bf16_from_float_rne(static_cast<float>(above)), 0x3f80);  // double rounding: wrong
  EXPECT_EQ(bf16_from_double_rne(above), 0x3f81);
  EXPECT_EQ(bf16_from_double_rne(tie - std::ldexp(1.0, -40)), 0x3f80);
  EXPECT_EQ(bf16_from_double_rne(tie), 0x3f80);
  EXPECT_EQ(bf16_from_double_rne(-above), 0xbf81);
}

TEST(LowPrecision, EveryFp16PatternRoundTripsThroughFloat) {
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    const float value = float_from_fp16(static_cast<uint16_t>(h));
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(float_from_fp16(fp16_from_float_rne(value)))) << h;
    } else {
      ASSERT_EQ(fp16_from_float_rne(value), h) << h;
    }
  }
}

TEST(LowPrecision, Fp16KnownValues) {
  EXPECT_EQ(float_from_fp16(0x3c00), 1.0f);
  EXPECT_EQ(float_from_fp16(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(float_from_fp16(0x7bff), 65504.0f);
  EXPECT_EQ(fp16_from_float_rne(65519.0f), 0x7bff);
  EXPECT_EQ(fp16_from_float_rne(65520.0f), 0x7c00);  // tie with 65536 goes to even: infinity
  EXPECT_EQ(fp16_from_float_rne(std::ldexp(1.0f, -25)), 0x0000);  // tie with zero: even
  EXPECT_EQ(fp16_from_float_rne(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(fp16_from_float_rne(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 units: tie, to even 2
  EXPECT_EQ(fp16_from_float_rne(-0.0f), 0x8000);
}

#if defined(__FLT16_MAX__)
// The compiler's own _Float16 conversion (IEEE, round to nearest even) as an independent oracle,
// over every FP32 pattern with a stride that visits every exponent and many mantissas.
TEST(LowPrecision, Fp16MatchesCompilerConversion) {
  constexpr uint32_t kStride = 4099;  // prime, so the low bits vary
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += kStride) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (std::isnan(x)) continue;
    const _Float16 h = static_cast<_Float16>(x);
    ASSERT_EQ(fp16_from_float_rne(x), std::bit_cast<uint16_t>(h)) << std::hex << bits;
  }
}
#endif

}  // namespace
}  // namespace ladle::numerics
