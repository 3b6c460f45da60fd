#pragma once
// time_attention.hpp: the core attention term (flash attention's FLOPs at the achieved attention
// rate, a sliding window's wasted key tiles, a DSA indexer's FLOPs).

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

/// The layer's core attention, forward: seconds and launches.
Work core_attention(const KindInputs& in);

}  // namespace ladle::plan::timing
