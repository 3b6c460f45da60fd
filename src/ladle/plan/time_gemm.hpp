#pragma once
// time_gemm.hpp: the GEMM terms of the time model: a roofline-additive GEMM, the tile loss of
// partial tiles (cost_gemm_shape), a layer's dense GEMMs by module and its grouped expert GEMMs,
// and the bytes FP8 / NVFP4 quantisation moves outside them.

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

/// One m x k by k x n GEMM: compute at the achieved rate plus the HBM traffic of A, B and C.
double gemm_time(const Rates& r, double m, double k, double n);

/// Bytes Transformer Engine's FP8 GEMMs move outside the GEMM for one m x k by k x n product,
/// forward and backward together.
double fp8_cast_bytes(double m, double k, double n);

/// Bytes per element of the GEMM inputs the layout's recipe quantizes (5 for FP8 delayed scaling).
double quantize_bytes_per_element(const Layout& l);

/// The layer's dense GEMMs (every TP rank multiplies the whole gathered microbatch by its slice):
/// fills f.dense_by_module, f.dense and adds their quantisation bytes to f.cast_bytes.
void dense_gemms(const KindInputs& in, LayerForward& f);

/// The layer's routed experts as grouped GEMMs over the rank's local experts: fills f.expert and
/// adds their quantisation bytes to f.cast_bytes.
void expert_gemms(const KindInputs& in, LayerForward& f);

/// The output layer's GEMM of one microbatch on the last stage (its passes by gemm_passes),
/// at the head's rate.
double head_gemm_time(const Rates& r, const ModelCosts& c, const Layout& l, double tokens);

}  // namespace ladle::plan::timing
