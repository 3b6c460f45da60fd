#include "ladle/model/flops.hpp"

#include <map>

#include "ladle/model/params.hpp"
#include "ladle/model/tensor_inventory.hpp"
#include "ladle/util/error.hpp"

namespace ladle::model {

// Gated DeltaNet per token and value head (Yang et al. 2024, "Gated Delta Networks", eq. 10:
// S_t = a_t S_{t-1} (I - b_t k_t k_t^T) + b_t v_t k_t^T, o_t = S_t q_t): reading S k, the
// rank-one update and S q are three products with the key x value state, 2 FLOPs per element
// each; the causal conv1d adds 2 x kernel FLOPs per q/k/v channel. Kimi Delta Attention (Kimi
// Linear, Kimi-K3) runs the same delta rule on the same key x value state per head, its decay a
// diagonal over the key channels instead of one scalar: priced by the same terms, which leave out
// the decay's elementwise work (approximate; the same order as the scalar's).
double linear_attention_forward(const ModelSpec& spec) {
  const double state = static_cast<double>(spec.linear_key_head_dim) *
                       static_cast<double>(spec.linear_value_head_dim);
  const double heads = static_cast<double>(spec.linear_num_value_heads);
  const double conv_channels =
      static_cast<double>(2 * spec.linear_num_key_heads * spec.linear_key_head_dim +
                          spec.linear_num_value_heads * spec.linear_value_head_dim);
  return 3.0 * 2.0 * heads * state + 2.0 * static_cast<double>(spec.linear_conv_kernel) * conv_channels;
}

// Mamba-2's SSD scan per token (Dao and Gu 2024, "Transformers are SSMs", sec. 6: the chunked
// algorithm Megatron-Core and mamba_ssm run, chunks of Q = chunk_size tokens): within a chunk,
// C B^T over the Q keys of the chunk per group (2 Q G N) and that score matrix applied to each
// head's x (2 Q H P); between chunks, each head's state B^T x and its output C state (2 H P N
// each). The kernels compute whole Q x Q blocks, so no causal halving. The conv1d is a weight
// in the inventory (counted with the matrices); the gated norm and D skip are elementwise.
double mamba_scan_forward(const ModelSpec& spec) {
  const auto d = [](int64_t v) { return static_cast<double>(v); };
  const double q = d(spec.mamba_chunk);
  const double heads = d(spec.mamba_heads);
  const double p = d(spec.mamba_head_dim);
  const double n = d(spec.mamba_state);
  const double groups = d(spec.mamba_groups);
  return 2.0 * q * (groups * n + heads * p) + 4.0 * heads * p * n;
}

double mixer_core_forward(const ModelSpec& spec, int layer) {
  switch (spec.mixer_of(layer)) {
    case MixerKind::linear:
      return linear_attention_forward(spec);
    case MixerKind::mamba:
      return mamba_scan_forward(spec);
    case MixerKind::none:
      return 0.0;
    case MixerKind::attention:
      break;
  }
  return -1.0;  // softmax attention: the caller prices it by its window
}

namespace {

// Forward FLOPs per token of the attention core of one layer (QK^T and PV), see flops.hpp.
// A GQA layer's heads and head sizes are its own (ModelSpec::heads_of etc.); layer -1: the
// model-wide fields (an MTP layer).
double attention_core_forward(const ModelSpec& spec, int64_t seq_len, int64_t window, int64_t chunk = 0,
                              int layer = -1) {
  int64_t qk_dim = spec.head_dim_of(layer);
  int64_t v_dim = spec.value_head_dim_of(layer);
  int64_t heads = spec.heads_of(layer);
  if (spec.attention == AttentionKind::mla) {
    qk_dim = spec.qk_nope_head_dim + spec.qk_rope_head_dim;
    v_dim = spec.v_head_dim;
  }
  // A DSA layer attends to at most index_topk of the causal keys: the same mean as a window. A
  // MiniMax-M3 sparse layer attends to its selected blocks, index_topk keys, priced the same way.
  int64_t limit = window;
  if (spec.sparse_of(layer) && (limit == 0 || spec.index_topk < limit)) limit = spec.index_topk;
  const double context = chunk > 0 ? mean_chunked_context(seq_len, chunk) : mean_causal_context(seq_len, limit);
  return 2.0 * static_cast<double>(heads) * static_cast<double>(qk_dim + v_dim) * context;
}

// The lightning indexer scores every causal key: index_n_heads dot products of index_head_dim,
// then a weighted sum over heads. MiniMax-M3's block index is priced the same way: its
// index_n_heads query heads score every causal key against the one index key head, and the
// reduction over heads and over each block's keys (sparse_score_type max) stands in for the
// weighted sum.
double indexer_forward(const ModelSpec& spec, int64_t seq_len) {
  const double context = mean_causal_context(seq_len, 0);
  const double heads = static_cast<double>(spec.index_n_heads);
  return (2.0 * heads * static_cast<double>(spec.index_head_dim) + 2.0 * heads) * context;
}

// deepseek_v4: "csa-c4+indexer+moe", "csa-c128+moe", "csa-window+moe"; hash-routed layers have
// the same matrices as the others, so share their kind.
std::string csa_layer_kind(const ModelSpec& spec, int layer) {
  const int64_t ratio = spec.compress_ratio_of(layer);
  std::string kind = ratio > 0 ? "csa-c" + std::to_string(ratio) : std::string("csa-window");
  if (layer < spec.num_layers && spec.has_indexer[layer]) kind += "+indexer";
  return kind + "+" + to_string(spec.mlp[layer]);
}

std::string layer_kind(const ModelSpec& spec, int layer) {
  if (spec.attention == AttentionKind::csa) return csa_layer_kind(spec, layer);  // deepseek_v4
  const MixerKind mixer = spec.mixer_of(layer);
  if (mixer == MixerKind::linear) return std::string("linear+") + to_string(spec.mlp[layer]);
  if (mixer == MixerKind::mamba) return spec.mlp[layer] == MlpKind::none ? "mamba" : std::string("mamba+") + to_string(spec.mlp[layer]);
  if (mixer == MixerKind::none) {
    std::string kind = to_string(spec.mlp[layer]);
    if (!spec.layer_ffn.empty()) kind += "-" + std::to_string(spec.ffn_of(layer));
    return kind;
  }
  std::string kind = to_string(spec.attention);
  if (!spec.layer_kv_heads.empty()) kind += "-kv" + std::to_string(spec.kv_heads_of(layer));
  // per-layer attention geometry (step3p7, gemma4)
  if (!spec.layer_heads.empty()) kind += "-q" + std::to_string(spec.heads_of(layer));
  if (!spec.layer_head_dim.empty()) kind += "-d" + std::to_string(spec.head_dim_of(layer));
  if (spec.kv_shared_of(layer)) kind += "-kvshared";
  if (layer < static_cast<int>(spec.attention_chunk.size()) && spec.attention_chunk[layer] > 0) {
    kind += "-chunked";
  }
  if (spec.sparse_of(layer)) kind += "-sparse";
  if (layer < spec.num_layers && spec.sliding_window[layer] > 0) kind += "-sliding";
  if (layer < spec.num_layers && spec.has_indexer[layer]) kind += "+indexer";
  if (spec.mlp[layer] == MlpKind::none) return kind;
  kind += "+";
  kind += to_string(spec.mlp[layer]);
  if (spec.mlp[layer] == MlpKind::dense && !spec.layer_ffn.empty()) kind += "-" + std::to_string(spec.ffn_of(layer));
  return kind;
}

}  // namespace

// ---- deepseek_v4 ----
double mean_pooled_context(int64_t seq_len, int64_t ratio, int64_t cap) {
  if (seq_len <= 0 || ratio <= 0) return 0.0;
  // Queries q*r .. q*r + r - 1 see q pooled keys: sum_{i=1..S} floor(i / r) is
  // r (0 + 1 + .. + (Q - 1)) + Q (S - Q r + 1) for Q = floor(S / r); with a cap K < Q the queries
  // from K r on see K.
  const double s = static_cast<double>(seq_len);
  const double r = static_cast<double>(ratio);
  const int64_t q_full = seq_len / ratio;
  double sum = 0;
  if (cap <= 0 || q_full <= cap) {
    const double q = static_cast<double>(q_full);
    sum = r * q * (q - 1.0) / 2.0 + q * (s - q * r + 1.0);
  } else {
    const double k = static_cast<double>(cap);
    sum = r * k * (k - 1.0) / 2.0 + k * (s - k * r + 1.0);
  }
  return sum / s;
}

double csa_attention_forward(const ModelSpec& spec, int layer, int64_t seq_len) {
  const int64_t ratio = spec.compress_ratio_of(layer);
  const int64_t window = layer < static_cast<int>(spec.sliding_window.size()) ? spec.sliding_window[layer]
                         : spec.sliding_window.empty()                        ? 0
                                                                              : spec.sliding_window.back();
  double context = mean_causal_context(seq_len, window);
  context += mean_pooled_context(seq_len, ratio, ratio == 4 ? spec.index_topk : 0);
  const double d = static_cast<double>(spec.head_dim);
  double flops = 2.0 * static_cast<double>(spec.num_heads) * (d + d) * context;
  if (ratio > 0) {
    const double coff = ratio == 4 ? 2.0 : 1.0;
    flops += 4.0 * coff * d;
    if (ratio == 4) flops += 4.0 * 2.0 * static_cast<double>(spec.index_head_dim);
  }
  return flops;
}

double csa_indexer_forward(const ModelSpec& spec, int layer, int64_t seq_len) {
  if (spec.compress_ratio_of(layer) != 4) return 0.0;
  const double keys = mean_pooled_context(seq_len, 4, 0);
  const double heads = static_cast<double>(spec.index_n_heads);
  return (2.0 * heads * static_cast<double>(spec.index_head_dim) + 2.0 * heads) * keys;
}

double hyper_connection_forward(const ModelSpec& spec) {
  if (spec.hc_mult <= 1) return 0.0;
  const double m = static_cast<double>(spec.hc_mult);
  const double h = static_cast<double>(spec.hidden_size);
  const double one = (3.0 * m + 2.0 * m + 2.0 * m + 2.0 * m * m) * h +
                     static_cast<double>(spec.hc_sinkhorn_iters) * 4.0 * m * m;
  return 2.0 * one;
}
// ---- end deepseek_v4 ----

double attention_residual_forward(const ModelSpec& spec) {
  const int64_t block = spec.attn_res_block_size;
  if (block <= 0 || spec.num_layers <= 0) return 0.0;
  double rows = 0;
  for (int64_t i = 0; i < spec.num_layers; ++i) rows += static_cast<double>((i + block - 1) / block + 1);
  rows /= static_cast<double>(spec.num_layers);
  return 2.0 * rows * 6.0 * static_cast<double>(spec.hidden_size);
}

double mean_causal_context(int64_t seq_len, int64_t window) {
  if (seq_len <= 0) return 0.0;
  const double s = static_cast<double>(seq_len);
  if (window <= 0 || window >= seq_len) return (s + 1.0) / 2.0;
  // sum_{i=1..W} i + (S - W) * W, over S.
  const double w = static_cast<double>(window);
  return (w * (w + 1.0) / 2.0 + (s - w) * w) / s;
}

double mean_chunked_context(int64_t seq_len, int64_t chunk) {
  if (seq_len <= 0) return 0.0;
  if (chunk <= 0 || chunk >= seq_len) return mean_causal_context(seq_len, 0);
  // Full chunks see (C + 1) / 2 keys on average; the last, partial chunk of R tokens (R + 1) / 2.
  const int64_t full = seq_len / chunk;
  const int64_t rest = seq_len % chunk;
  const double c = static_cast<double>(chunk);
  const double r = static_cast<double>(rest);
  const double sum = static_cast<double>(full) * c * (c + 1.0) / 2.0 + r * (r + 1.0) / 2.0;
  return sum / static_cast<double>(seq_len);
}

double six_n_flops_per_token(const ModelSpec& spec) {
  return 6.0 * static_cast<double>(active_params(spec));
}

double mfu(double flops_per_token, double tokens_per_s_per_gpu, double peak_tflops) {
  if (peak_tflops <= 0) return 0.0;
  return flops_per_token * tokens_per_s_per_gpu / (peak_tflops * 1e12);
}

FlopsPerToken flops_per_token(const ModelSpec& spec, int64_t seq_len) {
  if (seq_len < 1) throw_usage("sequence length must be at least 1, got {}", seq_len);
  FlopsPerToken f;
  f.seq_len = seq_len;
  f.n = active_params(spec);
  f.six_n = 6.0 * static_cast<double>(f.n);

  // Matrix parameters a token multiplies through, per decoder layer and in the MTP layers.
  std::vector<double> layer_matmul(spec.num_layers, 0.0);
  double head_matmul = 0;
  double mtp_matmul = 0;
  for (const TensorInfo& t : tensor_inventory(spec)) {
    if (!t.is_matrix()) continue;
    const double used = 2.0 * static_cast<double>(t.numel() * t.active_copies);
    switch (t.section) {
      case TensorSection::layer:
        layer_matmul[t.layer] += used;
        break;
      case TensorSection::head:
        head_matmul += used;
        break;
      case TensorSection::mtp:
        // The MTP layer reads its embedding copy (a lookup) and multiplies through the head,
        // stored or shared: counted below.
        if (t.role != TensorRole::embedding && t.role != TensorRole::head) mtp_matmul += used;
        break;
      case TensorSection::embedding:
      case TensorSection::final_norm:
        break;
    }
  }
  const double head_flops =
      2.0 * static_cast<double>(spec.vocab_size) * static_cast<double>(spec.hidden_size);
  if (spec.tie_word_embeddings) head_matmul = head_flops;

  std::map<std::string, std::size_t> index_of;
  for (int i = 0; i < spec.num_layers; ++i) {
    const std::string kind = layer_kind(spec, i);
    auto [it, inserted] = index_of.emplace(kind, f.by_kind.size());
    if (inserted) {
      LayerKindFlops k;
      k.kind = kind;
      k.matmul_forward = layer_matmul[i];
      const int64_t chunk = i < static_cast<int>(spec.attention_chunk.size()) ? spec.attention_chunk[i] : 0;
      const double mixer = mixer_core_forward(spec, i);
      k.attention_forward = mixer >= 0 ? mixer : attention_core_forward(spec, seq_len, spec.sliding_window[i], chunk, i);
      k.indexer_forward = spec.has_indexer[i] ? indexer_forward(spec, seq_len) : 0.0;
      k.mixing_forward = attention_residual_forward(spec);  // kimi_k3; 0 without them
      if (spec.attention == AttentionKind::csa) {  // deepseek_v4
        k.attention_forward = csa_attention_forward(spec, i, seq_len);
        k.indexer_forward = csa_indexer_forward(spec, i, seq_len);
        k.mixing_forward = hyper_connection_forward(spec);
      }
      f.by_kind.push_back(k);
    }
    LayerKindFlops& k = f.by_kind[it->second];
    LADLE_ASSERT(k.matmul_forward == layer_matmul[i], "layers of one kind have the same tensors");
    ++k.layers;
    f.matmul_forward += layer_matmul[i];
    f.attention_forward += k.attention_forward;
    f.indexer_forward += k.indexer_forward;
    f.mixing_forward += k.mixing_forward;
  }
  LayerKindFlops head;
  head.kind = "head";
  head.layers = 1;
  head.matmul_forward = head_matmul;
  f.by_kind.push_back(head);
  f.matmul_forward += head_matmul;

  if (spec.num_mtp_layers > 0) {
    LayerKindFlops mtp;
    mtp.kind = "mtp";
    mtp.layers = spec.num_mtp_layers;
    mtp.matmul_forward = mtp_matmul / spec.num_mtp_layers + head_flops;
    mtp.attention_forward = attention_core_forward(spec, seq_len, 0);
    mtp.indexer_forward = spec.count_indexers() > 0 ? indexer_forward(spec, seq_len) : 0.0;
    if (spec.attention == AttentionKind::csa) {  // deepseek_v4: the first MTP layer's ratio
      mtp.attention_forward = csa_attention_forward(spec, spec.num_layers, seq_len);
      mtp.indexer_forward = csa_indexer_forward(spec, spec.num_layers, seq_len);
      mtp.mixing_forward = hyper_connection_forward(spec);
    }
    f.mtp_forward = mtp.forward_total();
    f.by_kind.push_back(mtp);
  }
  // Backward costs twice the forward (gradients of activations and of weights).
  f.training = 3.0 * (f.matmul_forward + f.attention_forward + f.indexer_forward + f.mixing_forward);
  f.training_with_mtp = f.training + 3.0 * f.mtp_forward;
  return f;
}

}  // namespace ladle::model
