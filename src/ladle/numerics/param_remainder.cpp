#include "ladle/numerics/param_remainder.hpp"

#include <bit>
#include <cmath>
#include <initializer_list>

#include "ladle/numerics/low_precision.hpp"

namespace ladle::numerics {

namespace {

constexpr uint16_t kBf16MantissaMax = 0x7f;

// The BF16 that TE's rule should give, found without bit tricks: the two BF16 neighbours of x by
// truncation, the nearer one by distance in double, a tie going away from zero.
uint16_t nearest_bf16_ties_away(float x) {
  const uint16_t down = static_cast<uint16_t>(std::bit_cast<uint32_t>(x) >> 16);
  const uint16_t up = static_cast<uint16_t>(down + 1u);
  const double lo = std::fabs(static_cast<double>(float_from_bf16(down)));
  const double ax = std::fabs(static_cast<double>(x));
  if ((up & 0x7f80u) == 0x7f80u && (down & 0x7fffu) == 0x7f7fu) {
    // Above the largest finite BF16 the next pattern is infinity: measure against 2^128.
    const double hi = std::ldexp(1.0, 128);
    return (ax - lo < hi - ax) ? down : up;
  }
  const double hi = std::fabs(static_cast<double>(float_from_bf16(up)));
  return (ax - lo < hi - ax) ? down : up;
}

// The FP16 nearest to x, ties to even, by search in double (independent of the bit version).
uint16_t nearest_fp16_rne(float x) {
  const double ax = std::fabs(static_cast<double>(x));
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (ax >= 65520.0) return sign | 0x7c00;
  // Step through FP16 magnitudes by binary search on the (monotonic) positive patterns.
  uint16_t lo = 0;
  uint16_t hi = 0x7bff;
  while (lo < hi) {
    const uint16_t mid = static_cast<uint16_t>((lo + hi + 1) / 2);
    if (static_cast<double>(float_from_fp16(mid)) <= ax) {
      lo = mid;
    } else {
      hi = static_cast<uint16_t>(mid - 1);
    }
  }
  if (lo == 0x7bff) return sign | lo;
  const double below = float_from_fp16(lo);
  const double above = float_from_fp16(static_cast<uint16_t>(lo + 1));
  if (ax - below < above - ax) return sign | lo;
  if (ax - below > above - ax) return sign | static_cast<uint16_t>(lo + 1);
  return sign | ((lo & 1u) ? static_cast<uint16_t>(lo + 1) : lo);
}

void check_pattern(uint32_t bits, RemainderSelfTest& out) {
  const float x = std::bit_cast<float>(bits);
  const SplitMaster split = split_master(x);
  ++out.patterns;
  if (std::bit_cast<uint32_t>(join_master(split)) != bits) ++out.round_trip_failures;
  if (split.bf16 != nearest_bf16_ties_away(x)) ++out.rounding_failures;
  if ((bits & 0xffffu) == 0x8000u) {
    ++out.ties;
    if (split.bf16 != bf16_from_float_rne(x)) ++out.ties_unlike_rne;
  }
}

// Low halves next to zero, to the tie and to the top, where rounding changes direction.
constexpr uint32_t kLowHalfEdges[] = {0x0000, 0x0001, 0x0002, 0x7ffe, 0x7fff, 0x8000,
                                      0x8001, 0x8002, 0xfffe, 0xffff};

void check_bf16_patterns(RemainderSelfTest& out) {
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    const uint16_t bf16 = static_cast<uint16_t>(h);
    const float value = float_from_bf16(bf16);
    ++out.bf16_patterns;
    if (std::isnan(value)) {
      if (!std::isnan(float_from_bf16(bf16_from_float_rne(value)))) ++out.bf16_failures;
      continue;
    }
    if (bf16_from_float_rne(value) != bf16) ++out.bf16_failures;
    if (bf16_from_double_rne(static_cast<double>(value)) != bf16) ++out.bf16_failures;
    if ((h & 0x7f80u) == 0x7f80u) continue;  // infinity: no patterns between it and the next
    // Ties round to the even neighbour; one FP32 step either side goes to the nearer one.
    const uint32_t tie = (h << 16) | 0x8000u;
    const uint16_t even = (h & 1u) ? static_cast<uint16_t>(h + 1u) : bf16;
    const uint16_t up = static_cast<uint16_t>(h + 1u);
    if (bf16_from_float_rne(std::bit_cast<float>(tie)) != even) ++out.bf16_failures;
    if (bf16_from_float_rne(std::bit_cast<float>(tie - 1u)) != bf16) ++out.bf16_failures;
    if (bf16_from_float_rne(std::bit_cast<float>(tie + 1u)) != up) ++out.bf16_failures;
    const double tie_value = std::bit_cast<float>(tie);
    if (bf16_from_double_rne(tie_value) != even) ++out.bf16_failures;
    if (bf16_from_double_rne(std::nextafter(tie_value, 0.0)) != bf16) ++out.bf16_failures;
    if (bf16_from_double_rne(std::nextafter(tie_value, 2.0 * tie_value)) != up) {
      ++out.bf16_failures;
    }
  }
}

void check_fp16_patterns(RemainderSelfTest& out) {
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    const uint16_t fp16 = static_cast<uint16_t>(h);
    const float value = float_from_fp16(fp16);
    ++out.fp16_patterns;
    if (std::isnan(value)) {
      if (!std::isnan(float_from_fp16(fp16_from_float_rne(value)))) ++out.fp16_failures;
      continue;
    }
    if (fp16_from_float_rne(value) != fp16) ++out.fp16_failures;
    if ((h & 0x7fffu) >= 0x7bffu) continue;  // largest finite and infinity: no next pattern
    // The midpoint to the next pattern is exact in FP32; it and its FP32 neighbours must round
    // as the independent search says.
    const float next = float_from_fp16(static_cast<uint16_t>(h + 1u));
    const float mid = static_cast<float>((static_cast<double>(value) + next) / 2.0);
    for (const float probe : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 2.0f * mid)}) {
      ++out.fp16_patterns;
      if (fp16_from_float_rne(probe) != nearest_fp16_rne(probe)) ++out.fp16_failures;
    }
  }
  // Overflow edge: 65504 stays, the midpoint to 65536 and beyond go to infinity.
  for (const float probe : {65504.0f, 65519.99f, 65520.0f, 1e30f, -65520.0f}) {
    ++out.fp16_patterns;
    if (fp16_from_float_rne(probe) != nearest_fp16_rne(probe)) ++out.fp16_failures;
  }
}

}  // namespace

RemainderSelfTest run_remainder_self_test() {
  RemainderSelfTest out;
  for (uint32_t sign = 0; sign <= 1; ++sign) {
    for (uint32_t exponent = 0; exponent <= 254; ++exponent) {
      for (uint32_t mantissa = 0; mantissa <= kBf16MantissaMax; ++mantissa) {
        const uint32_t high = (sign << 15) | (exponent << 7) | mantissa;
        if (mantissa == 0 || mantissa == kBf16MantissaMax) {
          for (uint32_t low = 0; low <= 0xffffu; ++low) check_pattern((high << 16) | low, out);
        } else {
          for (const uint32_t low : kLowHalfEdges) check_pattern((high << 16) | low, out);
        }
      }
    }
  }
  check_bf16_patterns(out);
  check_fp16_patterns(out);
  return out;
}

}  // namespace ladle::numerics
