#include "ladle/pack/permutation.hpp"

#include <numeric>
#include <utility>

namespace ladle::pack {

uint64_t SplitMix64::next() {
  state_ += 0x9E3779B97F4A7C15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t SplitMix64::below(uint64_t bound) {
  const uint64_t threshold = (0 - bound) % bound;  // (2^64 - bound) mod bound
  for (;;) {
    const uint64_t r = next();
    if (r >= threshold) return r % bound;
  }
}

std::vector<uint32_t> seeded_permutation(uint32_t count, uint64_t seed) {
  std::vector<uint32_t> order(count);
  std::iota(order.begin(), order.end(), 0U);
  SplitMix64 rng(seed);
  for (uint32_t i = count; i-- > 1;) {
    const auto j = static_cast<uint32_t>(rng.below(static_cast<uint64_t>(i) + 1));
    std::swap(order[i], order[j]);
  }
  return order;
}

}  // namespace ladle::pack
