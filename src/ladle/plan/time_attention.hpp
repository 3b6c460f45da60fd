#pragma once
// time_attention.hpp: the core attention term (flash attention's FLOPs at the achieved attention
// rate, a sliding window's wasted key tiles, a DSA indexer's FLOPs).

#include <optional>
#include <string>

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

/// The layer's core attention, forward: seconds and launches.
Work core_attention(const KindInputs& in);

/// Causal attention over `tokens` per kernel call on the rates' GPU: its measured forward and
/// backward rates there over those at 8,192 tokens (hw::attention_length_ratio), combined with the
/// backward's weight, so that forward seconds divided by it price both passes.
double length_efficiency(const Rates& r, double tokens);

/// Whether some layer of `c` is full softmax attention under the fused kernel, priced at the
/// measured rate of the length each call attends over (length_efficiency).
bool attention_priced_by_length(const ModelCosts& c, const Workload& w);

/// Whether a workload's attention runs Transformer Engine's fused attention (cuDNN on NVIDIA GPUs)
/// rather than FlashAttention-2 (torchtitan, --attention-backend flash).
bool runs_fused_attention(const Workload& w);

/// A model's sliding windows priced by a measured row (kernels.yaml window_attention) on a GPU.
struct WindowPricing {
  int64_t window = 0;
  int64_t head_dim = 0;
  double forward = 1;   ///< the window's forward rate over the causal rate at heads of 128
  double backward = 1;
  std::string measured_on;  ///< the GPU the row was measured on (a sibling's row serves its GPU)
};
/// The measured row the windowed layers of `c` are priced by on `gpu`, or nullopt (none windowed,
/// none measured, or FlashAttention-2).
std::optional<WindowPricing> measured_window_pricing(const ModelCosts& c, const Workload& w, std::string_view gpu);

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
