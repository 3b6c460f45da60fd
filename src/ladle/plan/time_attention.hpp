#pragma once
// time_attention.hpp: the core attention term (flash attention's FLOPs at the achieved attention
// rate, a sliding window's wasted key tiles, a DSA indexer's FLOPs).

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

/// The layer's core attention, forward: seconds and launches.
Work core_attention(const KindInputs& in);

/// The flash kernel's rate by head size that a workload's attention runs at on `gpu`:
/// FlashAttention-2 under torchtitan or --use-flash-attn, else Transformer Engine's fused
/// attention, the GPU's own (kernels.yaml attention_gpus) where it is measured at a narrower head,
/// else cuDNN's on the H100, FP8 attention included (kernels.yaml head_dim_from).
const hw::KernelFacts::HeadDimCurve& attention_head_dim_curve(const Workload& w, std::string_view gpu);

/// The head size the narrowest softmax-attention layer of `c` is priced at (the mean of its q/k
/// and v head sizes) and that size's rate over the kernel's rate at 128; {0, 1} when every
/// layer's heads are 128 or wider.
struct HeadDimPricing {
  double head_dim = 0;
  double efficiency = 1;
  std::string measured_on;  ///< the GPU the ratio was measured on
};
HeadDimPricing narrowest_head_dim(const ModelCosts& c, const Workload& w, std::string_view gpu);

}  // namespace ladle::plan::timing
