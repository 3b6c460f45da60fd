#pragma once
// model_spec.hpp: ModelSpec, the architecture of a decoder-only LLM as read from a Hugging Face
// config.json (see config_json.hpp for the field mapping of each model_type).

#include <cstdint>
#include <string>
#include <vector>

namespace ladle {

/// How a layer's self-attention projects queries, keys and values.
enum class AttentionKind {
  gqa,  ///< grouped-query (MHA when kv heads == heads): q/k/v/o projections (Llama, Qwen3, GLM-4.5)
  mla,  ///< multi-head latent attention (DeepSeek-V2/V3, GLM-4.7-Flash, GLM-5): low-rank q and kv
  /// DeepSeek-V4's compressed attention: low-rank q, one key head that is also the value head,
  /// keys pooled per layer by compress_ratio, a grouped low-rank output projection.
  csa,
};

/// What a decoder layer's feed-forward block is.
enum class MlpKind {
  dense,  ///< one MLP of `intermediate_size` (SwiGLU, or fc1-GELU-fc2 when !gated_mlp)
  moe,    ///< routed experts (+ shared experts) of `moe_intermediate_size`, with a router
  none,   ///< no feed-forward block (Nemotron-H's Mamba and attention layers, Nemotron-NAS no_op)
};

/// What mixes tokens in a decoder layer.
enum class MixerKind {
  attention,  ///< softmax attention of ModelSpec::attention (GQA/MHA or MLA)
  linear,     ///< linear attention: Gated DeltaNet (Qwen3-Next, Qwen3.5) or Kimi Delta Attention (ModelSpec::kda)
  mamba,      ///< a Mamba-2 mixer (Nemotron-H's 'M' layers)
  none,       ///< no token mixer (Nemotron-H's MLP layers, Nemotron-NAS's no_op attention)
};

/// A vision tower's shape (Qwen3-VL's vision_config): what its FLOPs per image token need.
struct VisionShape {
  int64_t depth = 0;          ///< encoder blocks
  int64_t hidden = 0;         ///< encoder width
  int64_t intermediate = 0;   ///< encoder MLP width
  int64_t patch = 0;          ///< patch side in pixels
  int64_t temporal_patch = 1; ///< frames per patch
  int64_t channels = 3;
  int64_t merge = 1;          ///< spatial merge: merge x merge patches make one image token
  int64_t out_hidden = 0;     ///< the projector's output (the text width)
  int64_t deepstack = 0;      ///< extra mergers (deepstack_visual_indexes)
  bool operator==(const VisionShape&) const = default;
};

/// Where a decoder layer's RMSNorms sit; counts and names of the norm tensors.
enum class NormPlacement {
  pre,           ///< before attention and before the MLP (input_/post_attention_layernorm; Llama)
  pre_and_post,  ///< before and after each of attention and the MLP, four norms (Gemma 2/3)
  post,          ///< after attention and after the MLP only (OLMo 2/3: post_attention_/post_feedforward_layernorm)
};

/// The architecture facts ladle needs. Per-layer vectors have `num_layers` entries (the decoder
/// layers without MTP); MTP layers repeat the last layer's kinds (DeepSeek-V3 report, sec. 2.2).
struct ModelSpec {
  std::string name;        ///< short catalog name ("glm-5.2") or the config file's stem
  std::string model_type;  ///< Hugging Face `model_type` as written in config.json
  std::string source;      ///< "embedded:data/models/glm-5.2.json" or the path read

  int num_layers = 0;      ///< decoder layers WITHOUT MTP (`num_hidden_layers`)
  int num_mtp_layers = 0;  ///< multi-token-prediction layers (`num_nextn_predict_layers`)
  /// Whether each MTP layer stores its own copies of the embedding and output head in the
  /// checkpoint (DeepSeek-V3 and GLM-4.7-Flash do; GLM-5 does not). Affects checkpoint counts only.
  bool mtp_stores_embedding_and_head = false;
  int64_t hidden_size = 0;
  int64_t vocab_size = 0;
  bool tie_word_embeddings = false;
  /// Rows of a learned absolute position-embedding table added to the token embedding (GPT-2's
  /// `wpe`, `n_positions` rows); 0 for models with rotary or no position embeddings.
  int64_t position_embeddings = 0;
  /// Norms are LayerNorms with a bias beside the weight (GPT-2's ln_1, ln_2, ln_f); RMSNorm otherwise.
  bool norm_bias = false;

  // Attention.
  AttentionKind attention = AttentionKind::gqa;
  int64_t num_heads = 0;     ///< query heads
  int64_t num_kv_heads = 0;  ///< key/value heads (GQA); equals num_heads for MLA
  int64_t head_dim = 0;      ///< GQA: per-head q/k/v size (`head_dim`, else hidden / heads)
  bool attention_bias = false;      ///< q/k/v projections carry biases
  bool attention_out_bias = false;  ///< the output projection carries a bias (gpt-oss)
  bool qk_norm = false;             ///< per-head RMSNorm of q and k (Qwen3)
  /// The q and k norms span the whole projection (weights of heads x head_dim and kv heads x
  /// head_dim: OLMo 2/3, MiniMax-M2's per_layer) rather than one head (head_dim).
  bool qk_norm_full_width = false;
  NormPlacement norms = NormPlacement::pre;
  bool attention_sinks = false;     ///< one learned sink logit per head (gpt-oss)
  /// Which layers have sink logits where only some do (MiMo-V2-Flash: its sliding layers); empty:
  /// attention_sinks says for every layer.
  std::vector<bool> layer_sinks;
  /// GQA value head size where it differs from head_dim (MiMo-V2-Flash: 128 beside 192); 0: head_dim.
  int64_t value_head_dim = 0;
  // MLA dimensions (attention == mla).
  int64_t q_lora_rank = 0;  ///< 0: q is projected directly from the hidden state (no q_a/q_b)
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;
  /// Sliding window per layer in tokens, 0 = full causal attention.
  std::vector<int64_t> sliding_window;
  /// Chunked attention per layer in tokens (Llama 4): a query sees only the earlier keys of its
  /// own chunk of this many tokens; 0 = not chunked.
  std::vector<int64_t> attention_chunk;
  /// The q projection also produces a sigmoid gate on the attention output, doubling q_proj
  /// (Qwen3-Next's gated attention, `attn_output_gate`).
  bool attention_output_gate = false;
  /// q, k and v come from one fused projection (Ling's `query_key_value`, `dense` for o).
  bool fused_qkv = false;

  // Linear attention (Gated DeltaNet, Qwen3-Next): layers with linear_attention[i] replace
  // softmax attention by a recurrent state of linear_num_value_heads x key dim x value dim.
  std::vector<bool> linear_attention;  ///< per layer; empty or all false without linear layers
  int64_t linear_num_key_heads = 0;
  int64_t linear_num_value_heads = 0;
  int64_t linear_key_head_dim = 0;
  int64_t linear_value_head_dim = 0;
  int64_t linear_conv_kernel = 0;  ///< depthwise causal conv1d width over q, k and v
  /// The linear layers are Kimi Delta Attention (Kimi Linear, Kimi-K3: linear_attn_config's
  /// kda_layers) rather than Gated DeltaNet: the same recurrent state per head, a per-channel decay
  /// from a low-rank projection (f_a, f_b) and separate q/k/v projections and convs; heads and head
  /// sizes in the linear_* fields above (key heads = value heads).
  bool kda = false;
  /// KDA's output gate is one full-rank projection g_proj [heads x head dim, hidden] (Kimi-K3's
  /// use_full_rank_gate) rather than the low-rank g_a, g_b pair (Kimi Linear).
  bool kda_full_rank_gate = false;

  // ---- latent experts, attention residuals (kimi_k3) ----
  /// Routed experts work in a narrower latent space (Kimi-K3's routed_expert_hidden_size): the
  /// hidden state is projected down to it before the experts and back up after them; 0: the
  /// experts take the hidden state itself.
  int64_t moe_latent_size = 0;
  bool moe_latent_norm = false;  ///< an RMSNorm of the latent after the experts (latent_moe_use_norm)
  /// Block attention residuals (Kimi-K3's attn_res_block_size): each layer's attention and MLP
  /// read a softmax mix of the block summaries so far, scored by a norm and a [1, hidden]
  /// projection each; 0: a plain residual stream.
  int64_t attn_res_block_size = 0;
  // ---- end kimi_k3 ----

  // DeepSeek Sparse Attention indexer (glm_moe_dsa).
  int64_t index_n_heads = 0;
  int64_t index_head_dim = 0;
  int64_t index_topk = 0;  ///< keys each query attends to on sparse layers; 0 = dense attention
  /// Whether layer i owns (computes) an indexer; layers without one reuse the previous top-k.
  std::vector<bool> has_indexer;

  // Feed-forward.
  std::vector<MlpKind> mlp;             ///< per layer
  int64_t intermediate_size = 0;        ///< dense MLP width
  /// The dense MLP is gated (SwiGLU: gate, up, down, three matrices); false for GPT-2's two-matrix
  /// MLP, fc1 -> GELU -> fc2 (`c_fc`, `c_proj`).
  bool gated_mlp = true;
  /// A gated MLP's activation is SiLU (SwiGLU). gpt-oss's is a clamped quick-GELU GLU with an
  /// offset (Megatron-Bridge's GPTOSSProvider: quick_gelu, glu_linear_offset 1, clamp 7); Gemma's
  /// is GeGLU (tanh-approximated GELU).
  bool silu_glu = true;
  int64_t moe_intermediate_size = 0;    ///< one routed expert's width
  int64_t num_experts = 0;              ///< routed experts per MoE layer
  int64_t experts_per_token = 0;        ///< top-k
  int64_t num_shared_experts = 0;       ///< DeepSeek style: one fused MLP of n * moe width
  int64_t shared_expert_intermediate_size = 0;  ///< width of the fused shared MLP (0: none)
  bool shared_expert_gate = false;      ///< a [1, hidden] sigmoid gate on the shared expert (Qwen)
  int first_k_dense = 0;                ///< leading dense layers (`first_k_dense_replace`)
  bool router_bias = false;             ///< router Linear has a bias (gpt-oss)
  bool router_correction_bias = false;  ///< `e_score_correction_bias` (noaux_tc routing)
  bool mlp_bias = false;                ///< expert/MLP projections carry biases (gpt-oss)

  /// Parameters of a vision encoder and its projector described by the config's `vision_config`
  /// (Llama 4); not part of the language model ladle plans, reported beside its counts.
  int64_t vision_params = 0;
  /// The vision tower's shape where ladle prices it (Qwen3-VL, Qwen3.5); depth 0 otherwise.
  VisionShape vision;

  /// Token mixer per layer; empty: attention, or linear where linear_attention says so.
  std::vector<MixerKind> mixer;
  /// Dense MLP width per layer (Nemotron-NAS's ffn_mult); empty: intermediate_size everywhere.
  std::vector<int64_t> layer_ffn;
  /// Key/value heads per layer (Nemotron-NAS's n_heads_in_group); empty: num_kv_heads.
  std::vector<int64_t> layer_kv_heads;
  /// The dense MLP's activation is squared ReLU (Nemotron-H's relu2) rather than GELU/SwiGLU.
  bool relu2_mlp = false;

  // ---- per-layer attention geometry (step3p7, gemma4) ----
  // A GQA layer may have its own query heads, q/k head size and value head size (Step-3.7-Flash's
  // sliding layers: 96 query heads beside the full layers' 64; Gemma 4's global layers:
  // global_head_dim and num_global_key_value_heads). Empty vectors: the model-wide fields. Every
  // consumer reads them through heads_of, kv_heads_of, head_dim_of and value_head_dim_of.
  std::vector<int64_t> layer_heads;           ///< query heads per layer; empty: num_heads
  std::vector<int64_t> layer_head_dim;        ///< q/k head size per layer; empty: head_dim
  std::vector<int64_t> layer_value_head_dim;  ///< value head size per layer; empty: gqa_value_head_dim()
  /// Layers that reuse an earlier layer's keys and values (Gemma 4's num_kv_shared_layers, which
  /// the reader still refuses: no verbatim E2B/E4B config checked): no k/v projections, no k-norm
  /// and no KV cache of their own. Empty: none.
  std::vector<bool> layer_kv_shared;
  /// Keys double as values on these layers (Gemma 4's attention_k_eq_v on full layers): no v_proj.
  std::vector<bool> layer_k_eq_v;
  /// A head-wise sigmoid gate on the attention output: g_proj [heads, hidden] (Step-3.7-Flash's
  /// use_head_wise_attn_gate), one gate value per query head.
  bool head_wise_attention_gate = false;
  /// A value the config did not hold that the type's row supplied from a published source.
  struct AssumedValue {
    std::string key;     ///< the config key ("attention_other_setting")
    std::string value;   ///< the value used, as JSON
    std::string source;  ///< where it is published
    bool operator==(const AssumedValue&) const = default;
  };
  /// The values the type's row supplied (data/models/types.yaml `published`); `ladle model`
  /// prints each, predict and plan list them with the scenario's value sources (never silent).
  std::vector<AssumedValue> assumed;
  /// Query heads of layer `layer`.
  int64_t heads_of(int layer) const;
  /// q/k head size of layer `layer`.
  int64_t head_dim_of(int layer) const;
  /// Value head size of layer `layer`.
  int64_t value_head_dim_of(int layer) const;
  /// Whether layer `layer` reuses an earlier layer's keys and values.
  bool kv_shared_of(int layer) const;
  /// Whether layer `layer`'s keys double as its values (no v_proj).
  bool k_eq_v_of(int layer) const;
  /// Whether any per-layer attention geometry differs from the model-wide fields.
  bool has_layer_geometry() const { return !layer_heads.empty() || !layer_head_dim.empty() || !layer_value_head_dim.empty(); }
  // ---- end per-layer attention geometry ----

  // ---- compressed attention, hyper-connections, hash routing (deepseek_v4) ----
  // DeepSeek-V4 (sgl-project/sglang python/sglang/srt/models/deepseek_v4.py @ f8101ac7): every
  // layer attends to the last `sliding_window` raw keys plus keys pooled `compress_ratio` to one
  // (0: the window only); ratio-4 layers pick index_topk pooled keys with their own indexer. The
  // residual stream is hc_mult copies wide, mixed before and after each sublayer.
  std::vector<int64_t> compress_ratio;  ///< per decoder layer, then one per MTP layer; empty: none
  int64_t o_groups = 0;                 ///< groups of the low-rank output projection (wo_a)
  int64_t o_lora_rank = 0;              ///< each group's rank
  int64_t hc_mult = 0;                  ///< residual copies (hyper-connections); 0: a plain residual
  int64_t hc_sinkhorn_iters = 0;        ///< Sinkhorn iterations normalising the mixing matrix
  int num_hash_layers = 0;              ///< leading MoE layers routed by a token-id table (tid2eid)
  /// The compress ratio of layer `layer` (MTP layers follow the decoder layers); 0 without one.
  int64_t compress_ratio_of(int layer) const {
    const auto i = static_cast<std::size_t>(layer);
    return layer >= 0 && i < compress_ratio.size() ? compress_ratio[i] : 0;
  }
  // ---- end deepseek_v4 ----

  // ---- block-sparse attention (minimax_m3) ----
  // MiniMax-M3's sparse layers (sgl-project/sglang python/sglang/srt/models/minimax_m3.py): an
  // index of index_n_heads query heads and one key head of index_head_dim scores the causal keys,
  // and each query attends to the index_topk / index_block_size best blocks of index_block_size
  // keys (the local block among them), so index_topk = sparse_topk_blocks x sparse_block_size.
  int64_t index_block_size = 0;         ///< keys per selected block; 0: DSA's token-level top-k
  /// Layers that attend only to the selected keys; empty: every layer when index_topk > 0 (DSA).
  std::vector<bool> sparse_attention;
  /// Whether layer `layer` attends to index_topk keys only (MTP layers, -1: any layer does).
  bool sparse_of(int layer) const {
    if (index_topk <= 0) return false;
    const auto i = static_cast<std::size_t>(layer);
    return sparse_attention.empty() || layer < 0 || i >= sparse_attention.size() || sparse_attention[i];
  }
  // ---- end minimax_m3 ----

  // Mamba-2 (Nemotron-H's mixer; Dao and Gu 2024, "Transformers are SSMs", sec. 7).
  int64_t mamba_heads = 0;      ///< `mamba_num_heads`
  int64_t mamba_head_dim = 0;   ///< `mamba_head_dim`; inner width = heads x head_dim
  int64_t mamba_groups = 0;     ///< `n_groups` of B and C
  int64_t mamba_state = 0;      ///< `ssm_state_size`
  int64_t mamba_conv_kernel = 0;///< `conv_kernel`
  int64_t mamba_chunk = 0;      ///< `chunk_size` of the SSD scan
  bool mamba_conv_bias = false; ///< `use_conv_bias`
  bool mamba_proj_bias = false; ///< `use_bias` of in_proj/out_proj

  /// Layers whose MLP is `kind`.
  int count_mlp(MlpKind kind) const;
  /// Layers that own an indexer.
  int count_indexers() const;
  /// Whether layer `layer` uses linear attention (Gated DeltaNet) instead of softmax attention.
  bool is_linear_attention(int layer) const;
  /// Layers with linear attention.
  int count_linear_attention() const;
  /// The token mixer of layer `layer`.
  MixerKind mixer_of(int layer) const;
  /// Layers whose mixer is `kind`.
  int count_mixer(MixerKind kind) const;
  /// The dense MLP width of layer `layer`.
  int64_t ffn_of(int layer) const;
  /// The key/value heads of layer `layer`.
  int64_t kv_heads_of(int layer) const;
  /// Whether layer `layer` has attention sink logits.
  bool sinks_of(int layer) const;
  /// GQA's value head size: value_head_dim where given, else head_dim.
  int64_t gqa_value_head_dim() const { return value_head_dim > 0 ? value_head_dim : head_dim; }
  /// Mamba-2's inner width: mamba_heads x mamba_head_dim.
  int64_t mamba_inner() const { return mamba_heads * mamba_head_dim; }
  /// Channels of Mamba-2's conv1d: x, B and C (inner + 2 x groups x state).
  int64_t mamba_conv_dim() const { return mamba_inner() + 2 * mamba_groups * mamba_state; }

  bool operator==(const ModelSpec&) const = default;
};

/// "gqa" / "mla".
const char* to_string(AttentionKind kind);
/// "dense" / "moe" / "none".
const char* to_string(MlpKind kind);
/// "attention" / "linear" / "mamba" / "none".
const char* to_string(MixerKind kind);

}  // namespace ladle
