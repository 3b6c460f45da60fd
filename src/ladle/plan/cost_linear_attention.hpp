#pragma once
// cost_linear_attention.hpp: what one Gated DeltaNet layer (Qwen3-Next's and Qwen3.5's linear
// attention) or Kimi Delta Attention layer (Kimi Linear's, Kimi-K3's) costs the memory and time
// models beside its projections (in the tensor inventory).
//
// FLOPs: model::linear_attention_forward (three key x value products per value head and token,
// and the conv1d), priced by kind_time at the attention kernels' rate as the layer's core.

#include "ladle/plan/model_costs.hpp"

namespace ladle::plan {

/// Activation elements (BF16) one Gated DeltaNet layer keeps per token, split over `tp` ranks
/// (heads split by TP): the in-projection input (`input_elements`, scaled by the caller), its
/// outputs q k v z b a (2 key + 2 value + 2 heads), the conv1d output q k v (2 key + value, the
/// chunked delta rule's saved input; flash-linear-attention's chunk kernels recompute the chunk
/// states in backward), the recurrence output o (value) and the gated norm's output, out_proj's
/// input (value, `linear_scale` times BF16 under FP8). key = key heads x key dim, value = value
/// heads x value dim. Kimi Delta Attention keeps the same, its in-projections' outputs q k v g
/// (2 key + 2 value), beta (heads) and the per-channel decay (key) in place of Gated DeltaNet's b
/// and a (ModelCosts::linear_kda); its low-rank f_a output (head dim) is left out.
double linear_attention_activation_elements(const ModelCosts& c, double tp, double input_elements,
                                            double linear_scale);

}  // namespace ladle::plan
