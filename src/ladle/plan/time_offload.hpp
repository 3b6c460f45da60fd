#pragma once
// time_offload.hpp: offload terms: a layer's activation copies to and from the host that compute
// does not hide (fine-grained and layer-level activation offloading), and the optimizer step
// split between the GPU and the host (apply_offload, declared in predictor.hpp).

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

/// Seconds of the layer's activation offload copies not hidden behind its forward and backward
/// compute (`fwd_compute` the forward's).
double activation_offload(const KindInputs& in, double fwd_compute);

}  // namespace ladle::plan::timing
