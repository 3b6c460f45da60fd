#pragma once
// time_tp.hpp: the tensor-parallel collectives of one layer's forward and backward passes.

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

/// Bytes per element a sequence-parallel all-gather moves for one quantized copy (row-wise or
/// column-wise) of a GEMM input under the layout's recipe, scales included; kBf16 where the
/// stack gathers in BF16 (no FP8/FP4 recipe, or one the stack does not gather quantized).
double tp_gather_bytes_per_element(const Layout& l, const Workload& w, bool fp8);

/// Seconds of the layer's forward TP collectives (a full recompute reruns them).
double tp_forward(const KindInputs& in);

/// Seconds of the layer's backward TP collectives.
double tp_backward(const KindInputs& in);

}  // namespace ladle::plan::timing
