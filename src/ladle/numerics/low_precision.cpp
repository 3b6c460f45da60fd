#include "ladle/numerics/low_precision.hpp"

#include <cmath>

namespace ladle::numerics {

namespace {
constexpr uint32_t kFloatSignMask = 0x80000000u;
constexpr uint32_t kFloatAbsMask = 0x7fffffffu;
constexpr uint32_t kFloatInfBits = 0x7f800000u;
constexpr uint16_t kFp16QuietBit = 0x0200;
constexpr uint16_t kFp16InfBits = 0x7c00;
}  // namespace

uint16_t bf16_from_double_rne(double value) {
  if (std::isnan(value)) return bf16_from_float_rne(static_cast<float>(value));
  // FP32 keeps 16 more bits than BF16, so rounding to FP32 first can only go wrong when it lands
  // exactly on a BF16 tie; there the double itself says which way to go.
  const float nearest = static_cast<float>(value);
  const uint32_t bits = std::bit_cast<uint32_t>(nearest);
  if ((bits & 0xffffu) != 0x8000u) return bf16_from_float_rne(nearest);
  const uint16_t down = static_cast<uint16_t>(bits >> 16);  // toward zero
  const uint16_t up = static_cast<uint16_t>(down + 1);      // away from zero
  const double tie = static_cast<double>(nearest);
  if (value == tie) return (down & 1u) ? up : down;
  const bool beyond = std::fabs(value) > std::fabs(tie);
  return beyond ? up : down;
}

float float_from_fp16(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) {  // infinity or NaN
    return std::bit_cast<float>(sign | kFloatInfBits | (mantissa << 13));
  }
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24, exact in FP32
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

uint16_t fp16_from_float_rne(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits & kFloatSignMask) >> 16);
  const uint32_t magnitude = bits & kFloatAbsMask;
  if (magnitude > kFloatInfBits) {
    return static_cast<uint16_t>(sign | kFp16InfBits | kFp16QuietBit | ((magnitude >> 13) & 0x3ffu));
  }
  if (magnitude >= 0x477ff000u) return sign | kFp16InfBits;  // 65520 and up round to infinity
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  if (exponent >= -14) {  // normal FP16: drop 13 mantissa bits, ties to even
    const uint32_t lowest_kept = (magnitude >> 13) & 1u;
    const uint32_t rounded = magnitude + 0xfffu + lowest_kept;
    return static_cast<uint16_t>(sign | ((rounded - (112u << 23)) >> 13));
  }
  if (exponent < -25) return sign;  // below half the smallest subnormal: rounds to zero
  // Subnormal FP16: the value in units of 2^-24, rounded to nearest, ties to even.
  const uint32_t full_mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  const int shift = -exponent - 14 + 13;  // 14..24 bits dropped
  const uint32_t kept = full_mantissa >> shift;
  const uint32_t dropped = full_mantissa & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  const bool round_up = dropped > half || (dropped == half && (kept & 1u));
  return static_cast<uint16_t>(sign | (kept + (round_up ? 1u : 0u)));
}

}  // namespace ladle::numerics
