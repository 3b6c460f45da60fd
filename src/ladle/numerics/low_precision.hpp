#pragma once
// BF16 and FP16 conversions written out bit by bit, so the optimizer paths round exactly as the
// frameworks they stand for (PyTorch's c10::BFloat16 and c10::Half, CUDA's __float2bfloat16 and
// __float2half: round to nearest, ties to even).

#include <bit>
#include <cstdint>

namespace ladle::numerics {

/// The FP32 value of a BF16 bit pattern (exact: BF16 is the top half of an FP32).
inline float float_from_bf16(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

/// BF16 bits of `value`, rounded to nearest with ties to even. NaN stays NaN (quiet, same sign);
/// values past the largest finite BF16 become infinity. Inline: it runs once per element.
inline uint16_t bf16_from_float_rne(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep the sign, set the quiet bit
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  }
  // Adding 0x7fff plus the lowest kept bit rounds to nearest, and a tie up only when that bit is
  // odd; a carry out of the mantissa moves to the next binade (or to infinity), which is right.
  const uint32_t lowest_kept = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7fffu + lowest_kept) >> 16);
}

/// BF16 bits of `value` by dropping the low 16 bits (rounding toward zero). Used only by the
/// negative control that truncates instead of rounding.
inline uint16_t bf16_from_float_truncate(float value) {
  return static_cast<uint16_t>(std::bit_cast<uint32_t>(value) >> 16);
}

/// BF16 bits nearest to a double, ties to even, in one rounding (no double rounding through FP32).
uint16_t bf16_from_double_rne(double value);

/// The FP32 value of an IEEE binary16 bit pattern (exact, subnormals included).
float float_from_fp16(uint16_t bits);

/// IEEE binary16 bits of `value`, rounded to nearest with ties to even; subnormals are rounded the
/// same way, overflow gives infinity, NaN stays NaN (quiet, same sign).
uint16_t fp16_from_float_rne(float value);

}  // namespace ladle::numerics
