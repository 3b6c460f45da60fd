#pragma once
// flops.hpp: FLOPs per token, the 6N convention and the model's real training FLOPs.
//
// Conventions and formulas (sources in data/models/README.md):
// - 6N: 6 * N per token for forward + backward (Kaplan et al. 2020, "Scaling Laws for Neural
//   Language Models", sec. 2.1: C = 6N). MFU = 6 N * tokens/s / peak (Chowdhery et al. 2022,
//   PaLM, appendix B), N = ParamConvention::n.
// - Real training FLOPs = 3 x forward (backward is twice the forward: Narayanan et al. 2021,
//   "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", sec. 5.1).
//   Forward per token = 2 * (matrix parameters the token multiplies through) + attention, where
//   attention per layer = 2 * heads * (qk_dim + v_dim) * mean context (QK^T and PV). The mean
//   context of causal attention over a sequence of S tokens is (S + 1) / 2; with a sliding
//   window W it is the mean of min(i, W) for i = 1..S; on DSA layers a query attends to at most
//   index_topk keys, and a layer owning an indexer also scores every causal key with
//   2 * index_n_heads * index_head_dim (+ 2 * index_n_heads for the head weighting) FLOPs
//   (DeepSeek-V3.2-Exp report, sec. 2.1: the lightning indexer). MLA counts its non-absorbed
//   training shapes: qk_dim = qk_nope + qk_rope, v_dim = v_head_dim per head. Chunked attention
//   (Llama 4) averages (C + 1) / 2 keys per query over chunks of C tokens. A Gated DeltaNet layer
//   (Qwen3-Next) costs 6 x key dim x value dim per value head plus its conv1d, independent of S.

#include <cstdint>
#include <string>
#include <vector>

#include "ladle/model/model_spec.hpp"

namespace ladle::model {

/// Forward FLOPs per token of one kind of layer, and how many layers have that kind.
struct LayerKindFlops {
  std::string kind;        ///< e.g. "mla+indexer+moe", "gqa-sliding+moe", "mtp", "head"
  int layers = 0;          ///< layers of this kind
  double matmul_forward = 0;     ///< per layer: 2 * matrix parameters a token multiplies through
  double attention_forward = 0;  ///< per layer: QK^T + PV at the given sequence length
  double indexer_forward = 0;    ///< per layer: indexer scoring (DSA layers owning an indexer)
  /// per layer: elementwise hyper-connection mixing outside the matrices (deepseek_v4), or block
  /// attention residuals' scoring and mixing (kimi_k3)
  double mixing_forward = 0;

  /// Forward FLOPs per token of all layers of this kind.
  double forward_total() const {
    return layers * (matmul_forward + attention_forward + indexer_forward + mixing_forward);
  }
  bool operator==(const LayerKindFlops&) const = default;
};

/// FLOPs per token for a sequence length, decomposed by layer kind. All figures are FLOPs per
/// token (a multiply-add is 2 FLOPs).
struct FlopsPerToken {
  int64_t seq_len = 0;
  int64_t n = 0;             ///< the N of the 6N convention
  double six_n = 0;          ///< 6 * N
  double matmul_forward = 0;     ///< 2 * matrices a token multiplies through (no MTP)
  double attention_forward = 0;  ///< attention scores and context, all layers (no MTP)
  double indexer_forward = 0;    ///< DSA indexer scoring, all layers (no MTP)
  double mixing_forward = 0;     ///< hyper-connection mixing (deepseek_v4) and attention residuals (kimi_k3), all layers (no MTP)
  double mtp_forward = 0;        ///< the MTP layers, matrices and attention
  double training = 0;           ///< 3 * (matmul + attention + indexer + mixing), no MTP
  double training_with_mtp = 0;  ///< training + 3 * mtp_forward
  std::vector<LayerKindFlops> by_kind;  ///< decoder layer kinds in first-seen order, then "head"

  bool operator==(const FlopsPerToken&) const = default;
};

/// 6 * N per token (the recipes' MFU convention).
double six_n_flops_per_token(const ModelSpec& spec);

/// The full decomposition for sequences of `seq_len` tokens; throws Error(usage) if seq_len < 1.
FlopsPerToken flops_per_token(const ModelSpec& spec, int64_t seq_len);

/// Mean number of keys a query attends to in a causal sequence of `seq_len` tokens when each
/// query sees at most `window` keys (0 = unlimited): (1/S) * sum_{i=1..S} min(i, window).
double mean_causal_context(int64_t seq_len, int64_t window);

/// Mean number of keys a query attends to under chunked attention (Llama 4): a query sees the
/// earlier keys of its own chunk of `chunk` tokens (0 = unchunked, as mean_causal_context).
double mean_chunked_context(int64_t seq_len, int64_t chunk);

/// Forward FLOPs per token of one Gated DeltaNet layer's recurrence and conv1d (see above).
double linear_attention_forward(const ModelSpec& spec);

/// Forward FLOPs per token of one Mamba-2 layer's SSD scan (chunked: Dao and Gu 2024, sec. 6):
/// 2 Q (G N + H P) + 4 H P N for chunk Q, groups G, state N, heads H, head dim P. in_proj,
/// conv1d and out_proj are matrices of the inventory, counted apart.
double mamba_scan_forward(const ModelSpec& spec);

/// Forward FLOPs per token of layer `layer`'s token mixer core when it is not softmax attention
/// (Gated DeltaNet, Mamba-2; 0 for no mixer); -1 for softmax attention, which depends on the
/// window and sequence.
double mixer_core_forward(const ModelSpec& spec, int layer);

// ---- deepseek_v4: compressed attention and hyper-connections ----
/// The mean over a causal sequence of `seq_len` tokens of the pooled keys a query sees when keys
/// are pooled `ratio` to one: floor(i / ratio) for query i, at most `cap` (0: no cap).
double mean_pooled_context(int64_t seq_len, int64_t ratio, int64_t cap);

/// Forward FLOPs per token of layer `layer`'s compressed attention (DeepSeek-V4; MTP layers
/// follow the decoder layers): QK^T and PV over the window's raw keys plus the pooled keys
/// (ratio 4: at most index_topk of them), 2 heads (d + d) per key, and the compressors' pooling
/// (a softmax-gated sum over the ratio's window of 2 coff d scores: 4 coff d per token per
/// compressor, the indexer's own included).
double csa_attention_forward(const ModelSpec& spec, int layer, int64_t seq_len);

/// Forward FLOPs per token of layer `layer`'s indexer scoring (ratio-4 layers): index_n_heads dot
/// products of index_head_dim with every pooled key, then a weighted sum over heads.
double csa_indexer_forward(const ModelSpec& spec, int layer, int64_t seq_len);

/// Forward FLOPs per token of one layer's hyper-connection mixing outside its matrices
/// (DeepseekV4DecoderLayer.hc_pre/hc_post, twice per layer): the RMS of the m h copies (3 m h),
/// the weighted sum into the sublayer's input (2 m h), post x output (2 m h), the m x m mixing of
/// the copies (2 m^2 h) and the Sinkhorn iterations (iters x 4 m^2).
double hyper_connection_forward(const ModelSpec& spec);

/// Forward FLOPs per token and decoder layer of block attention residuals (Kimi-K3's
/// attn_res_block_size; 0 without them): before its attention and before its MLP a layer scores
/// every block summary so far and the running block (an RMS and a dot product with the [1,
/// hidden] projection, 2 x hidden FLOPs each) and mixes them (2 x hidden per row): 6 x hidden per
/// row, two aggregations per layer, over the mean rows of the model's layers (layer i reads
/// ceil(i / block) summaries and its running block), so every layer of a kind has the same figure.
/// The output side's one aggregation before the final norm is left out (one layer's in 93).
double attention_residual_forward(const ModelSpec& spec);
// ---- end deepseek_v4 ----

/// MFU as the recipes compute it: flops_per_token * tokens_per_s_per_gpu / (peak_tflops * 1e12).
double mfu(double flops_per_token, double tokens_per_s_per_gpu, double peak_tflops);

}  // namespace ladle::model
