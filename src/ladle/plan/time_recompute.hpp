#pragma once
// time_recompute.hpp: what selective recompute (--recompute-modules, torchtitan's per-op
// checkpointing) runs again in the backward pass of one layer.

#include "ladle/plan/time_host.hpp"
#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

struct Recompute {
  double s = 0;          // GPU seconds recomputed
  double launches = 0;   // kernels the recompute launches
  bool moe_block = false;  // the whole MoE block is recomputed: its all-to-alls and sync run again
};

/// Selective recompute of one layer, given its forward terms and blocks.
Recompute selective_recompute(const KindInputs& in, const LayerForward& f, const Blocks& b);

}  // namespace ladle::plan::timing
