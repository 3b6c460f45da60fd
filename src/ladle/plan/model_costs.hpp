#pragma once
// model_costs.hpp: what the memory and time models need to know about a model, computed once per
// (model, row length) from its tensor inventory, so that evaluating a layout is a few hundred
// arithmetic operations. Decoder layers are grouped into kinds (same tensors, same attention), and
// per-stage sums come from prefix counts of each kind.

#include <cstdint>
#include <string>
#include <vector>

#include "ladle/hw/gpu_spec.hpp"
#include "ladle/layout/layout.hpp"
#include "ladle/model/model_spec.hpp"

namespace ladle::plan {

/// How a weight matrix is split, for the time model's GEMM shapes.
enum class GemmSplit {
  tp_out,      ///< output dimension split by TP (column parallel)
  tp_in,       ///< input dimension split by TP (row parallel)
  replicated,  ///< whole on every TP rank (MLA down-projections, routers, indexer)
  expert_out,  ///< a routed expert's output split by ETP
  expert_in,   ///< a routed expert's input split by ETP
};

/// One weight matrix a token multiplies through: y[out] = W[out, in] x[in].
/// What module a matrix belongs to: the time model prices recompute modules and CUDA-graph
/// scopes by it.
enum class GemmModule { attention, mla_up, indexer, dense_mlp, shared_expert, router, other };

struct Gemm {
  int64_t out = 0;
  int64_t in = 0;
  GemmSplit split = GemmSplit::replicated;
  GemmModule module = GemmModule::other;
  bool operator==(const Gemm&) const = default;
};

/// A kind of decoder layer and its costs (all figures for the whole layer, before any split).
struct LayerKind {
  std::string name;               ///< "mla+moe", "mla+indexer+dense", ...
  bool moe = false;
  bool indexer = false;
  std::vector<Gemm> gemms;        ///< non-expert matrices (attention, indexer, dense MLP, shared, router)
  std::vector<Gemm> expert_gemms; ///< one routed expert's matrices (gate, up, down)
  double tp_params = 0;           ///< elements split by TP (column/row/vocab)
  double replicated_params = 0;   ///< elements every TP rank holds (norms, router, MLA down-projections)
  double expert_params = 0;       ///< elements of all routed experts (split by EP * ETP)
  double dense_matmul_params = 0; ///< matrix elements a token multiplies through, experts excluded
  double attention_flops = 0;     ///< forward QK^T + PV FLOPs per token at the row length, all heads
                                  ///< (a linear or Mamba-2 mixer: its recurrence or scan instead)
  double indexer_flops = 0;       ///< forward indexer scoring FLOPs per token
  MixerKind mixer = MixerKind::attention;  ///< the layer's token mixer
  bool has_mlp = true;            ///< false: no feed-forward block (Nemotron-H, Nemotron-NAS no_op)
  int64_t ffn = 0;                ///< the dense MLP's width in this layer (Nemotron-NAS differs per layer)
  int64_t kv_heads = 0;           ///< GQA key/value heads in this layer
  // per-layer attention geometry (step3p7, gemma4): this layer's query heads and head sizes
  // (MLA: the model's q/k and v head sizes).
  int64_t heads = 0;              ///< query heads
  int64_t head_dim = 0;           ///< q/k head size
  int64_t v_head_dim = 0;         ///< value head size (MiMo-V2-Flash: 128 beside 192)
  bool kv_cache = true;           ///< false: the layer reuses an earlier layer's keys and values (Gemma 4)
  int64_t window = 0;             ///< causal sliding window in tokens (0: full attention)
  int64_t compress_ratio = 0;     ///< keys pooled to one (deepseek_v4's compressed attention; 0: none)
  bool operator==(const LayerKind&) const = default;
};

/// A model reduced to what the planner needs.
struct ModelCosts {
  std::string model;  ///< ModelSpec::name
  int64_t row_tokens = 0;
  int64_t num_layers = 0;
  int64_t num_mtp_layers = 0;
  int64_t hidden = 0;
  int64_t vocab = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;
  bool mla = false;
  bool qk_norm = false;     ///< per-head RMSNorm of q and k (its inputs are kept for backward)
  int64_t head_dim = 0;     ///< GQA per-head size
  int64_t q_lora_rank = 0;  ///< MLA
  int64_t kv_lora_rank = 0;
  int64_t qk_head_dim = 0;  ///< MLA: nope + rope; GQA: head_dim
  int64_t rope_dim = 0;
  int64_t v_head_dim = 0;
  int64_t index_heads = 0;
  int64_t index_head_dim = 0;
  int64_t ffn = 0;          ///< dense MLP width
  bool gated_mlp = true;    ///< the dense MLP's fc1 is gate + up (SwiGLU); false: GPT's one fc1 -> GELU
  int64_t moe_ffn = 0;      ///< one expert's width
  int64_t shared_ffn = 0;   ///< fused shared expert width (0: none)
  int64_t experts = 0;
  int64_t top_k = 0;
  int64_t mamba_inner = 0;  ///< Mamba-2: heads x head dim
  int64_t mamba_conv = 0;   ///< Mamba-2: conv1d channels (inner + 2 groups x state)
  int64_t mamba_heads = 0;
  int64_t linear_key = 0;    ///< Gated DeltaNet: key heads x key dim
  int64_t linear_value = 0;  ///< Gated DeltaNet: value heads x value dim
  int64_t linear_heads = 0;  ///< Gated DeltaNet: value heads
  /// The linear layers are Kimi Delta Attention (kimi_linear, kimi_k3): its in-projections give
  /// a per-channel decay (key wide) where Gated DeltaNet's give one per head (cost_linear_attention).
  bool linear_kda = false;
  /// Latent experts (kimi_k3): the width a routed token travels and is computed at, after the
  /// shared down-projection from the hidden width; 0 when the experts take hidden-wide rows.
  int64_t moe_latent = 0;
  // ---- deepseek_v4 (cost_compressed_attention) ----
  bool csa = false;           ///< compressed attention: one key/value head of head_dim
  int64_t o_groups = 0;       ///< the grouped low-rank output projection's groups
  int64_t o_lora_rank = 0;    ///< and each group's rank
  int64_t hc_mult = 0;        ///< residual copies of the hyper-connections (0: a plain residual)
  // ---- end deepseek_v4 ----

  std::vector<LayerKind> kinds;
  std::vector<int> layer_kind;  ///< kind index of each decoder layer
  /// prefix[k][i]: layers of kind k among layers 0..i-1 (size num_layers + 1 each).
  std::vector<std::vector<int32_t>> prefix;
  LayerKind mtp;               ///< one MTP layer (its eh_proj included); empty when none
  double embedding_params = 0; ///< input embedding (first stage, split by TP over the vocabulary)
  double head_params = 0;      ///< output head (last stage, split by TP); 0 when tied
  double final_norm_params = 0;
  /// A VL workload's vision tower (image_tokens > 0; cost_vision): its parameters (on the first
  /// stage, split by TP), forward FLOPs and activation bytes per row of `image_tokens` image tokens.
  int64_t image_tokens = 0;
  double vision_params = 0;
  double vision_flops_per_row = 0;
  double vision_activation_bytes_per_row = 0;
  double n_params = 0;         ///< the recipes' N (models/README convention)
  double total_params = 0;     ///< every tensor without MTP

  /// Layers of kind `k` among decoder layers [begin, end).
  int32_t count(size_t k, int64_t begin, int64_t end) const {
    return prefix[k][static_cast<size_t>(end)] - prefix[k][static_cast<size_t>(begin)];
  }
};

/// The costs of `spec` for rows of `row_tokens` tokens, from model::tensor_inventory and
/// model::mean_causal_context; `image_tokens` of each row come from one image through the vision
/// tower (VL models, --image-tokens; 0: text only, the tower not planned). Throws Error(usage)
/// when row_tokens < 1, image_tokens is outside 0..row_tokens, or image tokens are given for a
/// model without a vision tower ladle prices.
ModelCosts model_costs(const ModelSpec& spec, int64_t row_tokens, int64_t image_tokens = 0);

/// Bytes per element of a tensor an FP4 recipe quantizes: a 4-bit E2M1 value and its block's
/// scale, an E4M3 per 16 for NVFP4 (Transformer Engine docs/features/low_precision_training/nvfp4),
/// an E8M0 per 32 for MXFP4 (OCP Microscaling Formats (MX) v1.0, MXFP4: k = 32, E8M0 scale).
inline double fp4_bytes_per_element(Fp4Recipe recipe) {
  return recipe == Fp4Recipe::mxfp4 ? 0.5 + 1.0 / 32.0 : 0.5 + 1.0 / 16.0;
}

/// Throws Error(input) when `gpu` cannot run the layout's GEMM precision (the layout rules'
/// precision_violation: FP8 needs FP8 tensor cores, MXFP8, NVFP4 and MXFP4 the GPU's block-scaled
/// format). The memory and time models both call it, so every command that prices a layout
/// refuses it.
void require_runs_precision(const Layout& layout, const GpuSpec& gpu);

}  // namespace ladle::plan
