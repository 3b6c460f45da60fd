#pragma once
// The seeded permutation of source conversations: SplitMix64 driving a Fisher-Yates shuffle, so the
// order depends only on (count, seed), on every platform and for any thread count.

#include <cstdint>
#include <vector>

namespace ladle::pack {

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
/// state += 0x9E3779B97F4A7C15; z = state; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
/// z = (z ^ (z >> 27)) * 0x94D049BB133111EB; return z ^ (z >> 31). All arithmetic is modulo 2^64.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  /// The next 64-bit output.
  uint64_t next();
  /// A uniform integer in [0, bound) for bound >= 1, by rejection: outputs below
  /// (2^64 - bound) mod bound are discarded, the rest are reduced modulo bound (no modulo bias).
  uint64_t below(uint64_t bound);

 private:
  uint64_t state_;
};

/// The permutation of 0..count-1 for `seed`: start from the identity and, for i = count-1 down to
/// 1, swap element i with element j = below(i + 1) of a SplitMix64 seeded with `seed`.
std::vector<uint32_t> seeded_permutation(uint32_t count, uint64_t seed);

}  // namespace ladle::pack
