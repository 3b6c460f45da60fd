// memory_inputs.hpp: what every memory term reads: byte sizes, the state dtypes' widths and how
// a layer's tensors are stored for backward (Megatron-LM with Transformer Engine, or torchtitan),
// the layout-wide inputs of the weight, gradient and optimizer-state terms.
#pragma once

#include <cstdint>

#include "ladle/layout/layout.hpp"
#include "ladle/plan/cost_lora.hpp"
#include "ladle/plan/model_costs.hpp"

namespace ladle::plan::mem {

inline constexpr double kBf16 = 2;
inline constexpr double kFp32 = 4;
inline constexpr double kMiB = 1024.0 * 1024.0;

/// Bytes per element of a state kept in `dtype`.
inline double dtype_bytes(StateDtype dtype) {
  switch (dtype) {
    case StateDtype::fp32: return 4;
    case StateDtype::bf16:
    case StateDtype::fp16: return 2;
    case StateDtype::fp8: return 1;
  }
  return 4;
}

// How a layer's tensors are stored for backward: Megatron-LM with Transformer Engine, or the
// PyTorch-native stack of torchtitan (FSDP2, DTensor TP, PyTorch's autograd).
struct Storage {
  bool torch = false;  ///< fsdp=torch: torchtitan's activation checkpointing and loss
  /// Bytes per element of a linear layer's saved input: BF16, or under Transformer Engine's FP8
  /// recipes the quantized copy TE keeps for the weight gradient (1 byte, plus one FP32 scale per
  /// 1x128 tile for blockwise and one E8M0 scale per 32 elements for MXFP8).
  double linear_input = kBf16;
  bool fp8 = false;  ///< TE FP8
  /// A second, quantized copy of a BF16 tensor another module already saves: the attention
  /// projection's input beside flash attention's output, the shared expert's fc1 input beside the
  /// router's. Only TE's delayed scaling keeps one: for every other FP8 recipe Megatron-LM calls
  /// set_save_original_input on linear_proj (transformer/attention.py,
  /// multi_latent_attention.py) and on the shared expert's linear_fc1
  /// (transformer/moe/shared_experts.py), so they save the BF16 tensor they share (Megatron-LM
  /// commit 781e765, TE >= 2.6; "it actually saves 1.5 times the size", Megatron-LM's DeepSeek-V3
  /// GB200 write-up, section 2.2.2).
  bool fp8_second_copy = false;
  /// Transformer Engine's FP8 attention (fp8_dot_product_attention under an FP8 or FP4 recipe):
  /// the fused attention saves its q, k, v and output in FP8 (1 byte) for backward.
  bool fp8_attention = false;
  /// DeepSeek's own trainer: schedule=dualpipe, which only DeepSeek's trainer runs (knobs.hpp's
  /// schedule row), so the layout's Megatron-LM knobs state what it recomputes and the DeepSeek-V3
  /// report (arXiv 2412.19437) what it stores beyond them (memory_activations.cpp).
  bool deepseek = false;
};

/// Bytes per element of an activation DeepSeek's trainer caches in FP8 with its fine-grained
/// quantization: one E4M3 byte and an FP32 scale per 1x128 tile (DeepSeek-V3 report, sections
/// 3.3.2, "per token per 128 channels", and 3.3.3).
inline constexpr double kDeepSeekFp8Tile = 1.0 + kFp32 / 128.0;
/// Bytes per element of the attention output DeepSeek's trainer caches in its E5M6 format (1 sign,
/// 5 exponent and 6 mantissa bits: 12) with a scale per 1x128 tile, counted as FP32 as for its FP8
/// tiles (the report, section 3.3.3, "Inputs of the Linear after the attention operator").
inline constexpr double kDeepSeekE5m6Tile = 12.0 / 8.0 + kFp32 / 128.0;

/// How `l` stores a layer's tensors for backward.
Storage storage_of(const Layout& l);

/// What the weight, gradient and optimizer-state terms read of a layout (memory_inputs).
struct MemoryInputs {
  Storage st;
  double tp = 1;
  double dense_shards = 1;   ///< shards of the dense parameters' optimizer states
  double expert_shards = 1;  ///< shards of the experts' optimizer states
  double state_bytes = 0;    ///< master weight and the two Adam moments, per parameter
  double grad_bytes = 0;     ///< the gradient buffer, per parameter
  bool shard_grads = false;
  bool shard_weights = false;
  double weight_bytes = 0;     ///< a weight's element
  double fp8_copy_bytes = 0;   ///< Transformer Engine's cached FP8 / NVFP4 copies, per weight element
  double largest_layer_params = 0;  ///< the largest decoder layer's parameters on one GPU
};

/// The layout-wide inputs of the state terms for `l` and `c`.
MemoryInputs memory_inputs(const ModelCosts& c, const Layout& l);

/// The parameters one pipeline rank holds, elements.
struct StageParams {
  double dense = 0;      ///< non-expert parameters (embedding, head, norms included)
  double expert = 0;     ///< the local experts' parameters
  double head = 0;       ///< the output head's share (last stage)
  double embedding = 0;  ///< the embedding's share (first stage)
  int64_t layers = 0;    ///< decoder layers held
  LoraParams adapters;   ///< LoRA adapters (none at rank 0)
};

/// dense / dense shards + expert / expert shards: what one GPU keeps of the sharded states.
inline double sharded_params(const MemoryInputs& in, const StageParams& s) {
  return s.dense / in.dense_shards + s.expert / in.expert_shards;
}

}  // namespace ladle::plan::mem
