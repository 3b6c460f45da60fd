#pragma once
// cost_fp8_amax_history.hpp: what FP8 delayed scaling's amax history (--fp8-amax-history-len;
// Megatron-Bridge mixed_precision.fp8_amax_history_len) costs the memory and time models.
//
// Transformer Engine keeps, for each of its modules under the delayed recipe, an FP32 amax history
// of [amax_history_len, num_quantizers] and one FP32 scale per quantizer
// (transformer_engine/pytorch/quantization.py, DelayedScalingRecipeState.__init__), with 3
// quantizers per GEMM for the forward (input, weight, output) and 2 for the backward (output
// gradient, input gradient) (transformer_engine/pytorch/module/base.py, set_meta_tensor;
// NVIDIA/TransformerEngine at d0067d0da6cb01811b8072a7d304f0e00344ce2b). After each forward (the
// outermost fp8_autocast's exit: Megatron-LM wraps the whole decoder block in one under the delayed
// recipe, megatron/core/transformer/transformer_block.py at d98e8a64) and each backward,
// reduce_and_update_fp8_tensors all-reduces the newest amax row (whatever the length) and
// fused_amax_and_scale_update_after_reduction rolls every history and takes its maximum
// (transformer_engine/common/recipe/delayed_scaling.cu): each history is read and written once.
// The current-scaling, blockwise and MXFP8 recipes keep no history.
//
// The GEMMs are Megatron-Core's Transformer Engine modules of a layer: linear_qkv and linear_proj
// (MLA: linear_q_down_proj, linear_q_up_proj (linear_q_proj without q LoRA), linear_kv_down_proj,
// linear_kv_up_proj, linear_proj), a Mamba-2 or Gated DeltaNet mixer's in_proj and out_proj, the
// MLP's linear_fc1 and linear_fc2, and for MoE one GEMM per local expert in each of the grouped
// fc1 and fc2 (TEGroupedMLP) plus the shared expert's two. The router and the output layer run
// outside FP8; a DSA indexer's linears and the BF16 first and last layers of
// --first-last-layers-bf16 are counted as FP8 (at most a few percent more quantizers).

#include <cstdint>

#include "ladle/plan/model_costs.hpp"

namespace ladle::plan {

/// Whether `layout` scales FP8 with the delayed recipe (FP8 GEMMs, --fp8-recipe delayed).
bool fp8_delayed(const Layout& layout);

/// FP8 GEMMs of one layer of `kind` on one GPU (local experts: experts / EP).
double fp8_layer_gemms(const LayerKind& kind, const ModelCosts& costs, const Layout& layout);

/// Bytes of the histories and scales of `gemms` FP8 GEMMs: 5 quantizers each, 4 bytes for each of
/// the history's `history_len` rows and the scale. 0 unless `delayed`.
double amax_history_bytes(bool delayed, int64_t history_len, double gemms);

/// Seconds per microbatch of rolling and reducing the histories of `gemms` FP8 GEMMs (each element
/// read and written once) at `hbm_bytes_per_s`. 0 unless `delayed`.
double amax_history_seconds(bool delayed, int64_t history_len, double gemms, double hbm_bytes_per_s);

}  // namespace ladle::plan
