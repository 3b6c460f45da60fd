#pragma once
// cost_lora.hpp: what LoRA adapters (miles --lora-rank, --lora-alpha, --target-modules;
// Megatron-Bridge's LoRA, which miles builds: miles/backends/megatron_utils/lora_utils.py,
// create_lora_instance, at 31f1ca96) cost the memory and time models.
//
// Memory: the base weights stay (BF16, frozen: requires_grad False), so Megatron-LM's
// distributed data-parallel buffers hold no gradient for them and the optimizer no master weight
// or moment (megatron/core/distributed/param_and_grad_buffer.py buckets only the parameters that
// require a gradient). The adapters are trained: their BF16 weights, gradients in the reduce
// dtype and optimizer states in the knobs' dtypes, sharded as the base's would be.
//
// Adapter size: each targeted linear y = W x of W [out, in] gets A [rank, in] and B [out, rank]
// (Megatron-Bridge src/megatron/bridge/peft/utils.py, ParallelLinearAdapter: linear_in and
// linear_out are both tensor-parallel layers, so a GPU holds rank x (in + out) / TP of them; a
// routed expert's adapter is per expert, split by ETP, the EP rank holding its local experts').
// Megatron-Core fuses q, k, v into linear_qkv and gate, up into linear_fc1: one adapter each,
// whose out is the sum of the fused matrices' outputs.
//
// Time: a frozen linear's backward computes its input gradient only (no weight-gradient GEMM):
// 2x its forward instead of 3x. Each adapter runs forward, input and weight gradients (3x its
// 2 x rank x (in + out) FLOPs per token).
//
// Not priced: the adapters' own saved activations (the rank-wide intermediate, tokens x rank per
// linear, under 1% of a layer's activations for rank <= hidden / 64), canonical LoRA's split q, k,
// v adapters (--lora-type canonical_lora), and --experts-shared-outer-loras.

#include <array>
#include <cstdint>
#include <string_view>

#include "ladle/layout/lora_targets.hpp"
#include "ladle/plan/model_costs.hpp"

namespace ladle::plan {

using layout::LoraTarget;

/// The targets `text` (--target-modules) names, as bits of LoraTarget. "all-linear" (also "all",
/// "all_linear") and "" are the four standard modules, plus MLA's projections for an MLA model
/// (miles/utils/arguments.py at 31f1ca96 adds kv_a_proj_with_mqa, kv_b_proj, q_a_proj, q_b_proj
/// when the config has kv_lora_rank). Throws Error(input) naming an unknown module.
uint32_t lora_target_bits(std::string_view text, const ModelCosts& costs);

/// One layer kind's adapters on one GPU.
struct LoraLayer {
  double dense_params = 0;       ///< non-expert adapters, per GPU (rank x (in + out) / TP)
  double expert_params_one = 0;  ///< one routed expert's adapters, per GPU (over ETP)
  double expert_params = 0;      ///< the EP rank's local experts' adapters, per GPU
};

/// The adapters of layer kind `kind` for `layout` (lora_rank > 0), targets from lora_target_bits.
LoraLayer lora_layer(const ModelCosts& costs, const LayerKind& kind, const Layout& layout, uint32_t targets);

/// Every layer kind's adapters (index as costs.kinds), and the MTP layer's.
struct LoraKinds {
  std::array<LoraLayer, 16> kinds{};
  LoraLayer mtp;
};
/// lora_layer for every kind of `costs` (at most 16 kinds; more are priced as the 16th).
LoraKinds lora_kinds(const ModelCosts& costs, const Layout& layout);

/// The adapters on one GPU of decoder layers [begin, end) of `costs`, plus `mtp_layers` MTP
/// layers: non-expert (`dense`) and the local experts' (`expert`), elements.
struct LoraParams {
  double dense = 0;
  double expert = 0;
};
LoraParams lora_params(const ModelCosts& costs, const LoraKinds& kinds, int64_t begin, int64_t end,
                       double mtp_layers);

/// The memory parts LoRA changes, bytes: the adapters' BF16 weights (added to the frozen base's),
/// their gradients in the reduce dtype (`grad_bytes` each; the base has none) and their optimizer
/// states (`state_bytes` each: master weight and moments), the unoffloaded fraction, sharded over
/// `dense_shards` (non-expert) and `expert_shards` (expert) ranks.
struct LoraMemory {
  double adapter_weights = 0;
  double gradients = 0;
  double optimizer_states = 0;
};
LoraMemory lora_memory(const LoraParams& adapters, double grad_bytes, double state_bytes, double offload,
                       double dense_shards, double expert_shards);

/// A layer's GEMM seconds (forward + backward) with frozen base weights: `base_forward_s` of the
/// base's forward GEMMs (2x: forward and input gradient) and the adapters' forward FLOPs
/// `adapter_flops` at `gemm_flops` (3x).
double lora_gemm_seconds(double base_forward_s, double adapter_flops, double gemm_flops);

/// How many passes a frozen matrix's GEMM makes in a step: 2 under LoRA (forward, input
/// gradient), else 3.
double gemm_passes(const Layout& layout);

}  // namespace ladle::plan
