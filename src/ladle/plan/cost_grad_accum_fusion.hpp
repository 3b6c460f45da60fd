#pragma once
// cost_grad_accum_fusion.hpp: what turning gradient-accumulation fusion off costs
// (Megatron-LM --no-gradient-accumulation-fusion; Megatron-Bridge
// model.gradient_accumulation_fusion=false).
//
// Fused (Megatron-LM's default), a linear layer's weight-gradient GEMM accumulates straight into the
// FP32 main gradient, inside the GEMM's epilogue and under its compute:
// megatron/core/tensor_parallel/layers.py, LinearWithGradAccumulationAndAsyncCommunication.backward
// (fused_weight_gradient_mlp_cuda.wgrad_gemm_accum_fp32), and Transformer Engine's
// fuse_wgrad_accumulation, which megatron/core/extensions/transformer_engine.py sets from
// config.gradient_accumulation_fusion (NVIDIA/Megatron-LM at d98e8a64).
// Unfused, the GEMM returns a 16-bit gradient (grad_output.t().matmul(total_input)), and the
// data-parallel wrapper's backward hook adds it into the main gradient and drops it
// (megatron/core/distributed/distributed_data_parallel.py, _make_backward_post_hook:
// param.main_grad.add_(param.grad.data); param.grad = None). That is one memory-bound pass per
// weight and microbatch, reading the 16-bit gradient (2 bytes) and the FP32 main gradient (4) and
// writing it back (4), and one 16-bit weight gradient alive between the GEMM and the hook.
// The input embedding is never fused (its gradient takes the hook's path either way), and frozen
// weights (LoRA's base) compute no weight gradient: callers pass the trainable linear weights.

#include "ladle/plan/model_costs.hpp"

namespace ladle::plan {

/// Seconds per microbatch of the separate add pass over `trainable_linear_params` weights of one
/// GPU at `hbm_bytes_per_s`; 0 when `fused`.
double unfused_grad_accum_seconds(bool fused, double trainable_linear_params, double hbm_bytes_per_s);

/// Elements of the largest weight shard one GPU holds (the output head on the last stage, else the
/// largest decoder-layer matrix; gate and up count as one, Megatron-Core's linear_fc1), the one
/// whose 16-bit gradient waits for the hook.
double largest_weight_shard(const ModelCosts& costs, const Layout& layout, bool last_stage);

/// Bytes of that 16-bit gradient (`grad_bytes_per_param` 2 for BF16 and FP16 weights) held in
/// backward; 0 when `fused`.
double unfused_grad_accum_bytes(bool fused, double largest_weight_params, double grad_bytes_per_param);

}  // namespace ladle::plan
