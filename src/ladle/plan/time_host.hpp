#pragma once
// time_host.hpp: host work of one layer: the kernels its forward launches by block, which of them
// the layout's CUDA graphs capture, and the time a host-bound layer loses to launching.

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

/// A layer's forward by block, as CUDA graph scopes and recompute modules see it.
struct Blocks {
  Work attention;   // attention GEMMs, MLA up-projections, indexer, core attention, 10 kernels
  Work mlp;         // the dense MLP and its 10 kernels
  Work shared;      // the shared expert
  Work router;      // router GEMM and routing kernels
  Work experts;     // grouped GEMMs, combine side, activation
  Work preprocess;  // the dispatcher's preprocess
};

Blocks forward_blocks(const KindInputs& in, const LayerForward& f);

/// Launches of the forward pass the host still issues (what no CUDA graph captures).
double host_launches(const KindInputs& in, const Blocks& b);

/// Host seconds beyond the GPU's `gpu_s` for `launches_fwd` forward launches (the backward
/// launches twice as many) and `launches_recompute` recompute launches.
double host_time(const KindInputs& in, double launches_fwd, double launches_recompute, double gpu_s);

}  // namespace ladle::plan::timing
