#pragma once
// time_ep.hpp: the expert-parallel all-to-all (dispatch and combine) of one MoE layer, its
// overlap with compute, and the host sync on token counts.

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

/// One all-to-all of `bytes_per_gpu` (what each GPU sends) over a group of `group` contiguous GPUs.
double all_to_all_time(const Rates& r, double bytes_per_gpu, double group, MoeDispatcher dispatcher, double top_k);

/// Seconds of the layer's forward dispatch and combine on the busiest expert rank.
double ep_forward(const KindInputs& in);

/// The host sync on token counts of one forward pass (0 without experts over several GPUs).
double ep_sync(const KindInputs& in);

/// `ep_comm` (a layer's forward and backward all-to-alls and its host syncs) less what a2a overlap
/// or DualPipe hides behind `fwd_compute` x 3 of compute.
double ep_exposed(const KindInputs& in, double ep_comm, double fwd_compute);

}  // namespace ladle::plan::timing
