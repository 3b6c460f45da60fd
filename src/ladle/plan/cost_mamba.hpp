#pragma once
// cost_mamba.hpp: what one Mamba-2 layer (Nemotron-H's 'M') costs the memory and time models,
// beside its matrices (in_proj, conv1d, out_proj), which the tensor inventory prices as GEMMs.
//
// FLOPs: model::mamba_scan_forward (the chunked SSD scan, Dao and Gu 2024, sec. 6), priced by
// kind_time at the attention kernels' rate as the layer's core, like flash attention's.

#include "ladle/plan/model_costs.hpp"

namespace ladle::plan {

/// Activation elements (BF16) one Mamba-2 layer keeps per token for backward, split over `tp`
/// ranks (Megatron-Core's MambaMixer splits heads and groups over TP): the in_proj input (the
/// norm's output, `input_elements`: the caller scales it for sequence parallel and FP8), in_proj's
/// output z x B C dt (inner + conv + heads, what the fused conv1d and scan take), the conv1d output
/// x B C (conv, the scan's saved input), the scan output y (inner) and the gated norm's output,
/// out_proj's input (inner, `linear_scale` times BF16 under FP8). The SSD kernels recompute the
/// chunk states in backward (mamba_ssm's ssd_combined saves x, dt, B, C and the output only).
double mamba_activation_elements(const ModelCosts& c, double tp, double input_elements, double linear_scale);

}  // namespace ladle::plan
