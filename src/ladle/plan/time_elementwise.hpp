#pragma once
// time_elementwise.hpp: the memory-bound term of a layer (norms, residual adds, rotary,
// activation, router, permutation, FP8 quantisation), in HBM bytes at the achieved rate.

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

/// Bytes per token the memory-bound work of one layer moves in the forward pass, fused or eager.
double stream_bytes_per_token(const ModelCosts& c, const Workload& w);

/// Extra forward HBM bytes per element of one half of a gated MLP's width when the activation runs
/// unfused (swiglu_fusion=off; the derivation is in time_elementwise.cpp): 0 when it is fused or
/// the MLP is not gated. The backward moves twice as much, which the time model's 3x applies.
double unfused_glu_bytes_per_element(const Layout& l, const ModelCosts& c);

/// The layer's memory-bound forward work: sets f.routed_bytes and f.elementwise (reads
/// f.cast_bytes, so after the GEMM terms).
void elementwise(const KindInputs& in, LayerForward& f);

/// The loss over the vocabulary (this GPU's TP slice) of one microbatch, FP32 logits read and
/// written twice.
double loss_time(const Rates& r, const ModelCosts& c, const Layout& l, double tokens);

}  // namespace ladle::plan::timing
