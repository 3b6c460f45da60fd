#pragma once
// The FP32 master weight held as a BF16 weight plus a 16-bit remainder, as Transformer Engine's
// FusedAdam does with `store_param_remainders=True` (transformer_engine/common/multi_tensor/adam.cu,
// AdamFunctorMasterParamRemainder; the remainders start at zero, fused_adam.py _initialize_state).
//
// Split: the high 16 bits of the FP32 master become the BF16 weight and the low 16 bits the int16
// remainder; when the remainder is negative (its top bit set, i.e. the low half is 0x8000 or more)
// the BF16 bits are incremented. That rounds to nearest with ties away from zero in magnitude (a
// low half of exactly 0x8000 always rounds up), not ties to even. Join: a negative remainder
// decrements the BF16 bits again, then the two halves are glued back. Both are modular 16-bit
// operations, so join(split(x)) == x for every one of the 2^32 FP32 bit patterns.

#include <bit>
#include <cstdint>

namespace ladle::numerics {

/// A BF16 weight and its int16 remainder: together one FP32 master weight.
struct SplitMaster {
  uint16_t bf16 = 0;
  int16_t remainder = 0;

  bool operator==(const SplitMaster&) const = default;
};

/// How the master is split into the weight and the remainder.
enum class RemainderSplit {
  te_rounding,  ///< Transformer Engine: round half away from zero, undone by join
  truncating,   ///< the weight takes the top 16 bits as they are (negative control)
};

/// Splits an FP32 master into a BF16 weight and a remainder (see the file comment). Inline: it runs
/// once per element and step.
inline SplitMaster split_master(float master, RemainderSplit mode = RemainderSplit::te_rounding) {
  const uint32_t bits = std::bit_cast<uint32_t>(master);
  SplitMaster out;
  out.bf16 = static_cast<uint16_t>(bits >> 16);
  out.remainder = static_cast<int16_t>(static_cast<uint16_t>(bits & 0xffffu));
  if (mode == RemainderSplit::te_rounding && out.remainder < 0) {
    out.bf16 = static_cast<uint16_t>(out.bf16 + 1u);  // modular, as TE's int16 increment
  }
  return out;
}

/// Rebuilds the FP32 master from a weight and its remainder; exact inverse of split_master.
inline float join_master(SplitMaster split, RemainderSplit mode = RemainderSplit::te_rounding) {
  uint16_t high = split.bf16;
  if (mode == RemainderSplit::te_rounding && split.remainder < 0) {
    high = static_cast<uint16_t>(high - 1u);  // undo the rounding
  }
  const uint32_t bits =
      (static_cast<uint32_t>(high) << 16) | static_cast<uint16_t>(split.remainder);
  return std::bit_cast<float>(bits);
}

/// What the remainder round trip over the patterns near each exponent found.
struct RemainderSelfTest {
  uint64_t patterns = 0;        ///< FP32 patterns split and joined
  uint64_t round_trip_failures = 0;  ///< join(split(x)) != x, bitwise
  uint64_t rounding_failures = 0;    ///< weight not the nearest BF16 (ties away from zero)
  uint64_t ties = 0;                 ///< patterns exactly halfway between two BF16 values
  uint64_t ties_unlike_rne = 0;      ///< ties where TE's weight differs from ties-to-even
  uint64_t bf16_patterns = 0;        ///< BF16 patterns converted to FP32 and back
  uint64_t bf16_failures = 0;        ///< BF16 round trip or RNE rounding wrong
  uint64_t fp16_patterns = 0;        ///< FP16 patterns and midpoints checked
  uint64_t fp16_failures = 0;        ///< FP16 round trip or RNE rounding wrong

  bool passed() const {
    return round_trip_failures == 0 && rounding_failures == 0 && bf16_failures == 0 &&
           fp16_failures == 0 && patterns > 0;
  }
  bool operator==(const RemainderSelfTest&) const = default;
};

/// Checks split/join and the BF16/FP16 conversions. For each sign and each finite exponent
/// (0..254): every low half (65,536 patterns) under the smallest and the largest BF16 mantissa of
/// that exponent, and the patterns around zero, the tie and the top of the low half under every
/// other BF16 mantissa. The rounding is checked against the nearest BF16 found in double
/// arithmetic. Also every BF16 and FP16 pattern round trip, and FP16 rounding at midpoints.
RemainderSelfTest run_remainder_self_test();

}  // namespace ladle::numerics
