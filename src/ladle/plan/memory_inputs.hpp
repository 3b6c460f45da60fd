// memory_inputs.hpp: what every memory term reads: byte sizes, the state dtypes' widths and how
// a layer's tensors are stored for backward (Megatron-LM with Transformer Engine, or torchtitan).
#pragma once

#include "ladle/layout/layout.hpp"

namespace ladle::plan::mem {

inline constexpr double kBf16 = 2;
inline constexpr double kFp32 = 4;
inline constexpr double kMiB = 1024.0 * 1024.0;
/// Bytes per element of an NVFP4 tensor: a 4-bit E2M1 value and an 8-bit E4M3 scale per 16.
inline constexpr double kNvfp4Bytes = 0.5 + 1.0 / 16.0;

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
};

/// How `l` stores a layer's tensors for backward.
Storage storage_of(const Layout& l);

}  // namespace ladle::plan::mem
