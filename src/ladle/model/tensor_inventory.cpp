#include "ladle/model/tensor_inventory.hpp"

#include <fmt/format.h>

// Tensor names and shapes follow the Hugging Face checkpoints (modeling_<model_type>.py of
// transformers; DeepSeek-V3's modeling_deepseek.py for the MTP layer's enorm/hnorm/eh_proj/
// shared_head). Splits follow Megatron-Core: ColumnParallelLinear for q/k/v, MLA's q_b/kv_b,
// gate/up; RowParallelLinear for o and down; MLA's q_a/kv_a down-projections, norms and routers
// are replicated across TP ranks; experts are distributed over EP ranks.

namespace ladle::model {
namespace {

using Shape = std::vector<int64_t>;

// Appends the tensors of one decoder block with a shared name prefix.
class InventoryBuilder {
 public:
  InventoryBuilder(const ModelSpec& spec, std::vector<TensorInfo>& out) : spec_(spec), out_(out) {}

  void add(std::string name, Shape shape, TensorSection section, int layer, TensorRole role,
           TensorSplit split, int64_t copies = 1, int64_t active = 1,
           TensorSplit expert_split = TensorSplit::replicated) {
    TensorInfo t;
    t.name = std::move(name);
    t.shape = std::move(shape);
    t.copies = copies;
    t.active_copies = active;
    t.section = section;
    t.layer = layer;
    t.role = role;
    t.split = split;
    t.expert_split = expert_split;
    out_.push_back(std::move(t));
  }

  // One decoder layer (also the body of an MTP layer): norms, attention, indexer, MLP.
  void add_block(const std::string& p, TensorSection section, int layer, MlpKind mlp_kind,
                 bool with_indexer) {
    const int64_t h = spec_.hidden_size;
    const TensorSplit rep = TensorSplit::replicated;
    const NormPlacement norms = spec_.norms;
    // A layer without a mixer (Nemotron-NAS's no_op attention) has no norm before it either.
    const MixerKind mixer = section == TensorSection::layer ? spec_.mixer_of(layer) : MixerKind::attention;
    if (norms != NormPlacement::post && mixer != MixerKind::none) {
      add(p + "input_layernorm.weight", {h}, section, layer, TensorRole::norm, rep);
    }
    if (mixer == MixerKind::none) {
    } else if (mixer == MixerKind::linear && spec_.kda) {
      add_kda(p + "self_attn.", section, layer);
    } else if (mixer == MixerKind::linear) {
      add_gated_deltanet(p + "linear_attn.", section, layer);
    } else if (mixer == MixerKind::mamba) {
      add_mamba(p + "mixer.", section, layer);
    } else if (spec_.attention == AttentionKind::mla) {
      add_mla(p + "self_attn.", section, layer);
    } else if (spec_.fused_qkv) {
      add_fused_qkv(p + "attention.", section, layer);
    } else {
      add_gqa(p + "self_attn.", section, layer);
    }
    if (with_indexer && spec_.index_block_size > 0) {
      add_block_index(p + "self_attn.", section, layer);  // minimax_m3
    } else if (with_indexer) {
      add_indexer(p + "self_attn.indexer.", section, layer);
    }
    if (spec_.attn_res_block_size > 0) add_attention_residuals(p, section, layer);
    if (mlp_kind == MlpKind::none) return;  // Nemotron-NAS's no_op MLP: no norm, no MLP
    add(p + "post_attention_layernorm.weight", {h}, section, layer, TensorRole::norm, rep);
    if (norms == NormPlacement::pre_and_post) {
      add(p + "pre_feedforward_layernorm.weight", {h}, section, layer, TensorRole::norm, rep);
    }
    if (mlp_kind == MlpKind::dense) {
      const int64_t width = section == TensorSection::layer ? spec_.ffn_of(layer) : spec_.intermediate_size;
      add_swiglu(p + mlp_name(), width, section, layer, TensorRole::dense_mlp, spec_.mlp_bias);
    } else {
      add_moe(p, section, layer);
    }
    if (norms != NormPlacement::pre) {
      add(p + "post_feedforward_layernorm.weight", {h}, section, layer, TensorRole::norm, rep);
    }
  }

  // One Nemotron-H block (modeling_nemotron_h.py, NemotronHBlock): a norm and one mixer, the
  // Mamba-2 mixer, GQA attention or the two-matrix relu2 MLP (up_proj, down_proj).
  void add_nemotron_h_block(const std::string& p, int layer) {
    const int64_t h = spec_.hidden_size;
    const TensorSection s = TensorSection::layer;
    add(p + "norm.weight", {h}, s, layer, TensorRole::norm, TensorSplit::replicated);
    switch (spec_.mixer_of(layer)) {
      case MixerKind::mamba:
        add_mamba(p + "mixer.", s, layer);
        return;
      case MixerKind::attention:
        add_gqa(p + "mixer.", s, layer);
        return;
      case MixerKind::linear:
      case MixerKind::none:
        break;
    }
    const int64_t w = spec_.ffn_of(layer);
    const TensorRole m = TensorRole::dense_mlp;
    add(p + "mixer.up_proj.weight", {w, h}, s, layer, m, TensorSplit::tp_column);
    if (spec_.mlp_bias) add(p + "mixer.up_proj.bias", {w}, s, layer, m, TensorSplit::tp_column);
    add(p + "mixer.down_proj.weight", {h, w}, s, layer, m, TensorSplit::tp_row);
    if (spec_.mlp_bias) add(p + "mixer.down_proj.bias", {h}, s, layer, m, TensorSplit::replicated);
  }

 private:
  // Mamba-2 (NVIDIA's modeling_nemotron_h.py, NemotronHMamba2Mixer; Megatron-Core's MambaMixer
  // splits in_proj by columns and out_proj by rows over TP): in_proj [inner + conv + heads, h]
  // (z, then x B C, then dt), a depthwise conv1d of conv = inner + 2 groups x state channels,
  // dt_bias, A_log and D per head, a gated RMSNorm over inner, out_proj [h, inner].
  void add_mamba(const std::string& p, TensorSection s, int layer) {
    const int64_t h = spec_.hidden_size;
    const int64_t inner = spec_.mamba_inner();
    const int64_t conv = spec_.mamba_conv_dim();
    const int64_t heads = spec_.mamba_heads;
    const TensorRole a = TensorRole::attention;
    const TensorSplit col = TensorSplit::tp_column;
    add(p + "in_proj.weight", {inner + conv + heads, h}, s, layer, a, col);
    if (spec_.mamba_proj_bias) add(p + "in_proj.bias", {inner + conv + heads}, s, layer, a, col);
    add(p + "conv1d.weight", {conv, 1, spec_.mamba_conv_kernel}, s, layer, a, col);
    if (spec_.mamba_conv_bias) add(p + "conv1d.bias", {conv}, s, layer, a, col);
    add(p + "dt_bias", {heads}, s, layer, a, col);
    add(p + "A_log", {heads}, s, layer, a, col);
    add(p + "D", {heads}, s, layer, a, col);
    add(p + "norm.weight", {inner}, s, layer, TensorRole::norm, col);
    add(p + "out_proj.weight", {h, inner}, s, layer, a, TensorSplit::tp_row);
    if (spec_.mamba_proj_bias) add(p + "out_proj.bias", {h}, s, layer, a, TensorSplit::replicated);
  }

  // The feed-forward block's module name: Llama 4 calls it feed_forward.
  std::string mlp_name() const { return spec_.model_type.starts_with("llama4") ? "feed_forward." : "mlp."; }

  // Ling's attention: one fused q/k/v projection and an output projection named `dense`.
  void add_fused_qkv(const std::string& p, TensorSection s, int layer) {
    const int64_t h = spec_.hidden_size;
    const int64_t q = spec_.num_heads * spec_.head_dim;
    const int64_t qkv = q + 2 * spec_.num_kv_heads * spec_.head_dim;
    const TensorRole a = TensorRole::attention;
    add(p + "query_key_value.weight", {qkv, h}, s, layer, a, TensorSplit::tp_column);
    if (spec_.attention_bias) add(p + "query_key_value.bias", {qkv}, s, layer, a, TensorSplit::tp_column);
    add(p + "dense.weight", {h, q}, s, layer, a, TensorSplit::tp_row);
    if (spec_.attention_out_bias) add(p + "dense.bias", {h}, s, layer, a, TensorSplit::replicated);
  }

  // Gated DeltaNet (Qwen3-Next's linear_attn): in_proj_qkvz [2 key + 2 value, h] (q, k, v and the
  // output gate z), in_proj_ba [2 value heads, h] (beta and the decay), a depthwise causal conv1d
  // over q, k, v without bias, per-head dt_bias and A_log, a gated RMSNorm of one value head,
  // out_proj [h, value]. Key = key heads x key dim, value = value heads x value dim.
  void add_gated_deltanet(const std::string& p, TensorSection s, int layer) {
    const int64_t h = spec_.hidden_size;
    const int64_t key = spec_.linear_num_key_heads * spec_.linear_key_head_dim;
    const int64_t value = spec_.linear_num_value_heads * spec_.linear_value_head_dim;
    const int64_t heads = spec_.linear_num_value_heads;
    const TensorRole a = TensorRole::attention;
    if (spec_.model_type == "qwen3_5_moe") {
      // Qwen3.5 keeps four projections of the same total shape (modeling_qwen3_5_moe.py).
      add(p + "in_proj_qkv.weight", {2 * key + value, h}, s, layer, a, TensorSplit::tp_column);
      add(p + "in_proj_z.weight", {value, h}, s, layer, a, TensorSplit::tp_column);
      add(p + "in_proj_b.weight", {heads, h}, s, layer, a, TensorSplit::tp_column);
      add(p + "in_proj_a.weight", {heads, h}, s, layer, a, TensorSplit::tp_column);
    } else {
      add(p + "in_proj_qkvz.weight", {2 * key + 2 * value, h}, s, layer, a, TensorSplit::tp_column);
      add(p + "in_proj_ba.weight", {2 * heads, h}, s, layer, a, TensorSplit::tp_column);
    }
    add(p + "conv1d.weight", {2 * key + value, 1, spec_.linear_conv_kernel}, s, layer, a,
        TensorSplit::tp_column);
    add(p + "dt_bias", {heads}, s, layer, a, TensorSplit::tp_column);
    add(p + "A_log", {heads}, s, layer, a, TensorSplit::tp_column);
    add(p + "norm.weight", {spec_.linear_value_head_dim}, s, layer, TensorRole::norm,
        TensorSplit::replicated);
    add(p + "out_proj.weight", {h, value}, s, layer, a, TensorSplit::tp_row);
  }

  // ---- kimi_linear, kimi_k3 ----
  // Kimi Delta Attention (sgl-project/sglang python/sglang/srt/models/kimi_k3.py @ 0000e9b4,
  // KimiK3DeltaAttention, and its load_weights' checkpoint names): q_proj, k_proj, v_proj
  // [heads x head dim, h]; the output gate g_proj [same, h] (use_full_rank_gate) or g_a_proj
  // [head dim, h] and g_b_proj [heads x head dim, head dim]; beta b_proj [heads, h]; the
  // per-channel decay f_a_proj [head dim, h] and f_b_proj [heads x head dim, head dim]; one causal
  // conv per q, k and v ([heads x head dim, 1, kernel], no bias); dt_bias [heads x head dim]; A_log
  // (Kimi-K3's checkpoint stores it as [head dim], the engine reading the first num_heads; Kimi
  // Linear's as one per head); the gated output norm o_norm [head dim]; o_proj [h, heads x head
  // dim]. q, k, v, g, b, f_b and o split by TP like attention heads; f_a and g_a are replicated.
  void add_kda(const std::string& p, TensorSection s, int layer) {
    const int64_t h = spec_.hidden_size;
    const int64_t d = spec_.linear_key_head_dim;
    const int64_t heads = spec_.linear_num_key_heads;
    const int64_t proj = heads * d;
    const TensorRole a = TensorRole::attention;
    const TensorSplit col = TensorSplit::tp_column;
    const TensorSplit rep = TensorSplit::replicated;
    add(p + "q_proj.weight", {proj, h}, s, layer, a, col);
    add(p + "k_proj.weight", {proj, h}, s, layer, a, col);
    add(p + "v_proj.weight", {proj, h}, s, layer, a, col);
    if (spec_.kda_full_rank_gate) {
      add(p + "g_proj.weight", {proj, h}, s, layer, a, col);
    } else {
      add(p + "g_a_proj.weight", {d, h}, s, layer, a, rep);
      add(p + "g_b_proj.weight", {proj, d}, s, layer, a, col);
    }
    add(p + "b_proj.weight", {heads, h}, s, layer, a, col);
    add(p + "f_a_proj.weight", {d, h}, s, layer, a, rep);
    add(p + "f_b_proj.weight", {proj, d}, s, layer, a, col);
    for (const char* conv : {"q_conv1d.weight", "k_conv1d.weight", "v_conv1d.weight"}) {
      add(p + conv, {proj, 1, spec_.linear_conv_kernel}, s, layer, a, col);
    }
    add(p + "dt_bias", {proj}, s, layer, a, col);
    add(p + "A_log", {spec_.kda_full_rank_gate ? d : heads}, s, layer, a, col);
    add(p + "o_norm.weight", {d}, s, layer, TensorRole::norm, rep);
    add(p + "o_proj.weight", {h, proj}, s, layer, a, TensorSplit::tp_row);
  }

  // Block attention residuals (KimiK3DecoderLayer): before the attention and before the MLP, a
  // norm and a [1, h] projection score the block summaries; replicated.
  void add_attention_residuals(const std::string& p, TensorSection s, int layer) {
    const int64_t h = spec_.hidden_size;
    const TensorSplit rep = TensorSplit::replicated;
    for (const char* side : {"self_attention", "mlp"}) {
      add(p + side + "_res_norm.weight", {h}, s, layer, TensorRole::norm, rep);
      add(p + side + "_res_proj.weight", {1, h}, s, layer, TensorRole::attention_residual, rep);
    }
  }

  // Kimi's MoE (KimiK3MoE; the checkpoint's block_sparse_moe.* names, experts' w1 gate, w3 up
  // and w2 down): the router gate [E, h] on the full hidden state with its correction bias, the
  // routed experts of width w over the latent width (the hidden size without
  // routed_expert_hidden_size), routed_expert_down_proj [latent, h], routed_expert_norm [latent],
  // routed_expert_up_proj [h, latent] (replicated), and the shared experts, one SwiGLU of their
  // total width on the hidden state.
  void add_kimi_moe(const std::string& p, TensorSection s, int layer) {
    const int64_t h = spec_.hidden_size;
    const int64_t latent = spec_.moe_latent_size > 0 ? spec_.moe_latent_size : h;
    const int64_t e = spec_.num_experts;
    const int64_t k = spec_.experts_per_token;
    const int64_t w = spec_.moe_intermediate_size;
    const TensorSplit ep = TensorSplit::ep;
    const TensorSplit rep = TensorSplit::replicated;
    const TensorRole x = TensorRole::expert;
    const std::string m = p + "block_sparse_moe.";
    add(m + "gate.weight", {e, h}, s, layer, TensorRole::router, rep);
    if (spec_.router_correction_bias) {
      add(m + "gate.e_score_correction_bias", {e}, s, layer, TensorRole::correction_bias, rep);
    }
    if (spec_.moe_latent_size > 0) {
      add(m + "routed_expert_down_proj.weight", {latent, h}, s, layer, TensorRole::latent_projection, rep);
      if (spec_.moe_latent_norm) add(m + "routed_expert_norm.weight", {latent}, s, layer, TensorRole::norm, rep);
      add(m + "routed_expert_up_proj.weight", {h, latent}, s, layer, TensorRole::latent_projection, rep);
    }
    add(m + "experts.{e}.w1.weight", {w, latent}, s, layer, x, ep, e, k, TensorSplit::tp_column);
    add(m + "experts.{e}.w2.weight", {latent, w}, s, layer, x, ep, e, k, TensorSplit::tp_row);
    add(m + "experts.{e}.w3.weight", {w, latent}, s, layer, x, ep, e, k, TensorSplit::tp_column);
    if (spec_.shared_expert_intermediate_size > 0) {
      add_swiglu(m + "shared_experts.", spec_.shared_expert_intermediate_size, s, layer, TensorRole::shared_expert,
                 false);
    }
  }
  // ---- end kimi_linear, kimi_k3 ----

  // GQA with the layer's own geometry (ModelSpec's heads_of, kv_heads_of, head_dim_of,
  // value_head_dim_of: Step-3.7-Flash's sliding layers, Gemma 4's global layers, MiMo-V2-Flash's
  // narrower values); an MTP layer takes the model-wide fields. A layer that shares an earlier
  // layer's keys and values (Gemma 4) has no k/v projections or k-norm; one whose keys are its
  // values (attention_k_eq_v) no v_proj; a head-wise gate adds g_proj [heads, hidden].
  void add_gqa(const std::string& p, TensorSection s, int layer) {
    const int64_t h = spec_.hidden_size;
    const bool own = s == TensorSection::layer;
    const int64_t heads = own ? spec_.heads_of(layer) : spec_.num_heads;
    const int64_t head_dim = own ? spec_.head_dim_of(layer) : spec_.head_dim;
    const int64_t value_dim = own ? spec_.value_head_dim_of(layer) : spec_.gqa_value_head_dim();
    const int64_t kv_heads = own ? spec_.kv_heads_of(layer) : spec_.num_kv_heads;
    const bool kv_shared = own && spec_.kv_shared_of(layer);
    const bool k_eq_v = own && spec_.k_eq_v_of(layer);
    const int64_t q = heads * head_dim;
    const int64_t kv = kv_shared ? 0 : kv_heads * head_dim;
    const int64_t v = kv_shared || k_eq_v ? 0 : kv_heads * value_dim;  // values may be narrower (MiMo-V2-Flash)
    const int64_t out = heads * value_dim;
    const TensorRole a = TensorRole::attention;
    // Gated attention: the projection also produces one gate value per q channel.
    const int64_t q_out = spec_.attention_output_gate ? 2 * q : q;
    if (spec_.model_type == "phi3") {
      // Phi-3/Phi-4 store q, k and v as one qkv_proj of the same total shape.
      add(p + "qkv_proj.weight", {q + kv + v, h}, s, layer, a, TensorSplit::tp_column);
    } else {
      add(p + "q_proj.weight", {q_out, h}, s, layer, a, TensorSplit::tp_column);
      if (kv > 0) add(p + "k_proj.weight", {kv, h}, s, layer, a, TensorSplit::tp_column);
      if (v > 0) add(p + "v_proj.weight", {v, h}, s, layer, a, TensorSplit::tp_column);
    }
    if (spec_.attention_bias) {
      add(p + "q_proj.bias", {q}, s, layer, a, TensorSplit::tp_column);
      if (kv > 0) add(p + "k_proj.bias", {kv}, s, layer, a, TensorSplit::tp_column);
      if (v > 0) add(p + "v_proj.bias", {v}, s, layer, a, TensorSplit::tp_column);
    }
    if (spec_.head_wise_attention_gate) add(p + "g_proj.weight", {heads, h}, s, layer, a, TensorSplit::tp_column);
    add(p + "o_proj.weight", {h, out}, s, layer, a, TensorSplit::tp_row);
    if (spec_.attention_out_bias) add(p + "o_proj.bias", {h}, s, layer, a, TensorSplit::replicated);
    if (spec_.qk_norm) {
      const int64_t q_norm = spec_.qk_norm_full_width ? q : head_dim;
      const int64_t k_norm = spec_.qk_norm_full_width ? kv : head_dim;
      add(p + "q_norm.weight", {q_norm}, s, layer, TensorRole::norm, TensorSplit::replicated);
      if (!kv_shared) add(p + "k_norm.weight", {k_norm}, s, layer, TensorRole::norm, TensorSplit::replicated);
    }
    if (own ? spec_.sinks_of(layer) : spec_.attention_sinks) {
      add(p + "sinks", {heads}, s, layer, a, TensorSplit::tp_column);
    }
  }

  // MLA (DeepSeek-V2 report, sec. 2.1): q = W_qb norm(W_qa x); [c_kv, k_rope] = W_kva x;
  // [k_nope, v] = W_kvb norm(c_kv); out = W_o [heads x v_head_dim].
  void add_mla(const std::string& p, TensorSection s, int layer) {
    const int64_t h = spec_.hidden_size;
    const int64_t heads = spec_.num_heads;
    const int64_t qk = spec_.qk_nope_head_dim + spec_.qk_rope_head_dim;
    const TensorRole a = TensorRole::attention;
    if (spec_.q_lora_rank > 0) {
      add(p + "q_a_proj.weight", {spec_.q_lora_rank, h}, s, layer, a, TensorSplit::replicated);
      add(p + "q_a_layernorm.weight", {spec_.q_lora_rank}, s, layer, TensorRole::norm,
          TensorSplit::replicated);
      add(p + "q_b_proj.weight", {heads * qk, spec_.q_lora_rank}, s, layer, a,
          TensorSplit::tp_column);
    } else {
      add(p + "q_proj.weight", {heads * qk, h}, s, layer, a, TensorSplit::tp_column);
    }
    add(p + "kv_a_proj_with_mqa.weight", {spec_.kv_lora_rank + spec_.qk_rope_head_dim, h}, s, layer,
        a, TensorSplit::replicated);
    add(p + "kv_a_layernorm.weight", {spec_.kv_lora_rank}, s, layer, TensorRole::norm,
        TensorSplit::replicated);
    add(p + "kv_b_proj.weight", {heads * (spec_.qk_nope_head_dim + spec_.v_head_dim),
                                 spec_.kv_lora_rank},
        s, layer, a, TensorSplit::tp_column);
    // Kimi's gated MLA (mla_use_output_gate; KimiK3MLAAttention @ 0000e9b4): a sigmoid gate of
    // heads x v_head_dim from the hidden state on the attention output, g_proj.
    if (spec_.attention_output_gate) {
      add(p + "g_proj.weight", {heads * spec_.v_head_dim, h}, s, layer, a, TensorSplit::tp_column);
    }
    add(p + "o_proj.weight", {h, heads * spec_.v_head_dim}, s, layer, a, TensorSplit::tp_row);
  }

  // DSA lightning indexer (DeepSeek-V3.2-Exp, sec. 2.1): queries from the q latent, one shared
  // key head with a LayerNorm, per-head weights from the hidden state.
  void add_indexer(const std::string& p, TensorSection s, int layer) {
    const int64_t h = spec_.hidden_size;
    const int64_t q_in = spec_.q_lora_rank > 0 ? spec_.q_lora_rank : h;
    const TensorRole r = TensorRole::indexer;
    const TensorSplit rep = TensorSplit::replicated;
    add(p + "wq_b.weight", {spec_.index_n_heads * spec_.index_head_dim, q_in}, s, layer, r, rep);
    add(p + "wk.weight", {spec_.index_head_dim, h}, s, layer, r, rep);
    add(p + "k_norm.weight", {spec_.index_head_dim}, s, layer, r, rep);
    add(p + "k_norm.bias", {spec_.index_head_dim}, s, layer, r, rep);
    add(p + "weights_proj.weight", {spec_.index_n_heads, h}, s, layer, r, rep);
  }

  // MiniMax-M3's block index (sglang minimax_m3.py, index_qkv_proj with sparse_disable_index_value
  // set): index_n_heads query heads and one key head of index_head_dim projected from the hidden
  // state, each with a per-head norm; no value head and no output projection. Replicated like the
  // DSA indexer above. Named as the checkpoint stores them (index_q_proj, index_k_proj: the
  // quantization_config of nvidia/MiniMax-M3-NVFP4's config.json, as xiaowanCN/aiconfigurator
  // aic-core/src/aiconfigurator_core/model_configs/nvidia--MiniMax-M3-NVFP4_config.json @ 2e6dde3c
  // keeps it).
  void add_block_index(const std::string& p, TensorSection s, int layer) {
    const int64_t h = spec_.hidden_size;
    const int64_t d = spec_.index_head_dim;
    const TensorSplit rep = TensorSplit::replicated;
    add(p + "index_q_proj.weight", {spec_.index_n_heads * d, h}, s, layer, TensorRole::indexer, rep);
    add(p + "index_k_proj.weight", {d, h}, s, layer, TensorRole::indexer, rep);
    add(p + "index_q_norm.weight", {d}, s, layer, TensorRole::indexer, rep);
    add(p + "index_k_norm.weight", {d}, s, layer, TensorRole::indexer, rep);
  }

  void add_swiglu(const std::string& p, int64_t width, TensorSection s, int layer, TensorRole role,
                  bool bias) {
    const int64_t h = spec_.hidden_size;
    if (spec_.model_type == "phi3") {
      // Phi-3/Phi-4 store gate and up as one gate_up_proj.
      add(p + "gate_up_proj.weight", {2 * width, h}, s, layer, role, TensorSplit::tp_column);
    } else {
      add(p + "gate_proj.weight", {width, h}, s, layer, role, TensorSplit::tp_column);
      add(p + "up_proj.weight", {width, h}, s, layer, role, TensorSplit::tp_column);
    }
    add(p + "down_proj.weight", {h, width}, s, layer, role, TensorSplit::tp_row);
    if (bias) {
      add(p + "gate_proj.bias", {width}, s, layer, role, TensorSplit::tp_column);
      add(p + "up_proj.bias", {width}, s, layer, role, TensorSplit::tp_column);
      add(p + "down_proj.bias", {h}, s, layer, role, TensorSplit::replicated);
    }
  }

  void add_moe(const std::string& p, TensorSection s, int layer) {
    const int64_t h = spec_.hidden_size;
    const int64_t e = spec_.num_experts;
    const int64_t k = spec_.experts_per_token;
    const int64_t w = spec_.moe_intermediate_size;
    const TensorSplit ep = TensorSplit::ep;
    const TensorRole x = TensorRole::expert;
    const TensorSplit col = TensorSplit::tp_column;
    const TensorSplit row = TensorSplit::tp_row;
    if (spec_.model_type == "kimi_linear" || spec_.model_type == "kimi_k3") {
      add_kimi_moe(p, s, layer);
      return;
    }
    if (spec_.model_type == "mixtral" || spec_.model_type == "minimax_m2" ||
        spec_.model_type.starts_with("minimax_m3")) {
      const std::string m = p + "block_sparse_moe.";
      add(m + "gate.weight", {e, h}, s, layer, TensorRole::router, TensorSplit::replicated);
      if (spec_.router_correction_bias) {  // MiniMax-M2's use_routing_bias
        add(m + "e_score_correction_bias", {e}, s, layer, TensorRole::correction_bias,
            TensorSplit::replicated);
      }
      add(m + "experts.{e}.w1.weight", {w, h}, s, layer, x, ep, e, k, col);
      add(m + "experts.{e}.w2.weight", {h, w}, s, layer, x, ep, e, k, row);
      add(m + "experts.{e}.w3.weight", {w, h}, s, layer, x, ep, e, k, col);
      if (spec_.model_type.starts_with("minimax_m3") && spec_.shared_expert_intermediate_size > 0) {
        // MiniMax-M3's shared experts: one SwiGLU of n_shared_experts x intermediate_size.
        add_swiglu(m + "shared_experts.", spec_.shared_expert_intermediate_size, s, layer,
                   TensorRole::shared_expert, false);
      }
      return;
    }
    if (spec_.model_type.starts_with("llama4")) {
      // Llama4TextMoe: experts stacked as gate_up_proj [E, hidden, 2 * width] and down_proj
      // [E, width, hidden]; one shared expert of the same width; a router without bias.
      const std::string m = p + "feed_forward.";
      add(m + "router.weight", {e, h}, s, layer, TensorRole::router, TensorSplit::replicated);
      add(m + "experts.gate_up_proj", {h, 2 * w}, s, layer, x, ep, e, k, col);
      add(m + "experts.down_proj", {w, h}, s, layer, x, ep, e, k, row);
      add_swiglu(m + "shared_expert.", spec_.shared_expert_intermediate_size, s, layer,
                 TensorRole::shared_expert, false);
      return;
    }
    if (spec_.model_type.starts_with("gemma4")) {
      // Gemma4TextDecoderLayer (transformers modeling_gemma4.py @ c308a309): the dense GeGLU
      // MLP (mlp.*, always on: read as the shared expert) and its post-norm, the router
      // (proj [E, hidden], a scale of hidden and a per-expert scale), the experts stacked as
      // gate_up_proj [E, 2 x width, hidden] and down_proj [E, hidden, width], and the routed
      // branch's pre- and post-norms.
      const TensorSplit rep = TensorSplit::replicated;
      add_swiglu(p + "mlp.", spec_.shared_expert_intermediate_size, s, layer, TensorRole::shared_expert, false);
      add(p + "post_feedforward_layernorm_1.weight", {h}, s, layer, TensorRole::norm, rep);
      add(p + "router.proj.weight", {e, h}, s, layer, TensorRole::router, rep);
      add(p + "router.scale", {h}, s, layer, TensorRole::router, rep);
      add(p + "router.per_expert_scale", {e}, s, layer, TensorRole::router, rep);
      add(p + "pre_feedforward_layernorm_2.weight", {h}, s, layer, TensorRole::norm, rep);
      add(p + "experts.gate_up_proj", {2 * w, h}, s, layer, x, ep, e, k, col);
      add(p + "experts.down_proj", {h, w}, s, layer, x, ep, e, k, row);
      add(p + "post_feedforward_layernorm_2.weight", {h}, s, layer, TensorRole::norm, rep);
      return;
    }
    if (spec_.model_type == "gpt_oss") {
      // Experts are stored stacked: gate_up_proj [E, hidden, 2 * width], down_proj [E, width, hidden].
      const std::string m = p + "mlp.";
      add(m + "router.weight", {e, h}, s, layer, TensorRole::router, TensorSplit::replicated);
      add(m + "router.bias", {e}, s, layer, TensorRole::router, TensorSplit::replicated);
      add(m + "experts.gate_up_proj", {h, 2 * w}, s, layer, x, ep, e, k, col);
      add(m + "experts.gate_up_proj_bias", {2 * w}, s, layer, x, ep, e, k, col);
      add(m + "experts.down_proj", {w, h}, s, layer, x, ep, e, k, row);
      add(m + "experts.down_proj_bias", {h}, s, layer, x, ep, e, k, TensorSplit::replicated);
      return;
    }
    const std::string m = p + "mlp.";
    add(m + "gate.weight", {e, h}, s, layer, TensorRole::router, TensorSplit::replicated);
    if (spec_.router_correction_bias) {
      add(m + "gate.e_score_correction_bias", {e}, s, layer, TensorRole::correction_bias,
          TensorSplit::replicated);
    }
    add(m + "experts.{e}.gate_proj.weight", {w, h}, s, layer, x, ep, e, k, col);
    add(m + "experts.{e}.up_proj.weight", {w, h}, s, layer, x, ep, e, k, col);
    add(m + "experts.{e}.down_proj.weight", {h, w}, s, layer, x, ep, e, k, row);
    if (spec_.shared_expert_intermediate_size > 0) {
      // Qwen names its one shared expert in the singular, behind a sigmoid gate.
      const std::string shared = spec_.shared_expert_gate ? "shared_expert." : "shared_experts.";
      add_swiglu(m + shared, spec_.shared_expert_intermediate_size, s, layer,
                 TensorRole::shared_expert, false);
      if (spec_.shared_expert_gate) {
        add(m + "shared_expert_gate.weight", {1, h}, s, layer, TensorRole::shared_expert,
            TensorSplit::replicated);
      }
    }
  }

  const ModelSpec& spec_;
  std::vector<TensorInfo>& out_;
};

// GPT-2 (transformers modeling_gpt2.py; Megatron-LM's GPT model is the same network): token and
// learned position embeddings (wte, wpe), per block ln_1 -> c_attn (fused q/k/v) -> c_proj ->
// ln_2 -> c_fc -> activation -> c_proj, every Linear and LayerNorm with a bias, ln_f, and the
// head tied to wte. GPT-2's checkpoint stores its Conv1D weights as [in, out]; they are listed
// [out, in] here, as every other model's Linear, so the planner reads their TP splits alike.
// The position table is replicated over TP ranks (Megatron-LM's LanguageModelEmbedding keeps
// it whole).
std::vector<TensorInfo> gpt2_inventory(const ModelSpec& spec) {
  std::vector<TensorInfo> out;
  InventoryBuilder b(spec, out);
  const int64_t h = spec.hidden_size;
  const int64_t ffn = spec.intermediate_size;
  const TensorSplit col = TensorSplit::tp_column;
  const TensorSplit row = TensorSplit::tp_row;
  const TensorSplit rep = TensorSplit::replicated;
  const TensorSection emb = TensorSection::embedding;
  b.add("transformer.wte.weight", {spec.vocab_size, h}, emb, -1, TensorRole::embedding,
        TensorSplit::vocab);
  b.add("transformer.wpe.weight", {spec.position_embeddings, h}, emb, -1, TensorRole::embedding,
        rep);
  const TensorSection s = TensorSection::layer;
  for (int i = 0; i < spec.num_layers; ++i) {
    const std::string p = fmt::format("transformer.h.{}.", i);
    const TensorRole a = TensorRole::attention;
    const TensorRole m = TensorRole::dense_mlp;
    b.add(p + "ln_1.weight", {h}, s, i, TensorRole::norm, rep);
    b.add(p + "ln_1.bias", {h}, s, i, TensorRole::norm, rep);
    b.add(p + "attn.c_attn.weight", {3 * h, h}, s, i, a, col);
    b.add(p + "attn.c_attn.bias", {3 * h}, s, i, a, col);
    b.add(p + "attn.c_proj.weight", {h, h}, s, i, a, row);
    b.add(p + "attn.c_proj.bias", {h}, s, i, a, rep);
    b.add(p + "ln_2.weight", {h}, s, i, TensorRole::norm, rep);
    b.add(p + "ln_2.bias", {h}, s, i, TensorRole::norm, rep);
    b.add(p + "mlp.c_fc.weight", {ffn, h}, s, i, m, col);
    b.add(p + "mlp.c_fc.bias", {ffn}, s, i, m, col);
    b.add(p + "mlp.c_proj.weight", {h, ffn}, s, i, m, row);
    b.add(p + "mlp.c_proj.bias", {h}, s, i, m, rep);
  }
  b.add("transformer.ln_f.weight", {h}, TensorSection::final_norm, -1, TensorRole::norm, rep);
  b.add("transformer.ln_f.bias", {h}, TensorSection::final_norm, -1, TensorRole::norm, rep);
  if (!spec.tie_word_embeddings) {
    b.add("lm_head.weight", {spec.vocab_size, h}, TensorSection::head, -1, TensorRole::head,
          TensorSplit::vocab);
  }
  return out;
}

// MiMo's MTP layer (XiaomiMiMo's modeling_mimo.py, MiMoMTPLayers): the same tensors as
// DeepSeek-V3's under its own names (token_layernorm, hidden_layernorm, input_proj [h, 2h], a
// dense Qwen2 block, final_layernorm), sharing the model's embedding and head.
void add_mimo_mtp_layer(InventoryBuilder& b, const ModelSpec& spec, int k, int layer) {
  const int64_t h = spec.hidden_size;
  const std::string p = fmt::format("model.mtp_layers.{}.", k);
  const TensorSection s = TensorSection::mtp;
  b.add(p + "token_layernorm.weight", {h}, s, layer, TensorRole::norm, TensorSplit::replicated);
  b.add(p + "hidden_layernorm.weight", {h}, s, layer, TensorRole::norm, TensorSplit::replicated);
  b.add(p + "input_proj.weight", {h, 2 * h}, s, layer, TensorRole::mtp_projection, TensorSplit::tp_column);
  b.add_block(p, s, layer, MlpKind::dense, false);
  b.add(p + "final_layernorm.weight", {h}, s, layer, TensorRole::norm, TensorSplit::replicated);
}

// Nemotron-H (modeling_nemotron_h.py): backbone.embeddings, one NemotronHBlock per layer,
// backbone.norm_f, lm_head.
std::vector<TensorInfo> nemotron_h_inventory(const ModelSpec& spec) {
  std::vector<TensorInfo> out;
  InventoryBuilder b(spec, out);
  const int64_t h = spec.hidden_size;
  b.add("backbone.embeddings.weight", {spec.vocab_size, h}, TensorSection::embedding, -1, TensorRole::embedding,
        TensorSplit::vocab);
  for (int i = 0; i < spec.num_layers; ++i) b.add_nemotron_h_block(fmt::format("backbone.layers.{}.", i), i);
  b.add("backbone.norm_f.weight", {h}, TensorSection::final_norm, -1, TensorRole::norm, TensorSplit::replicated);
  if (!spec.tie_word_embeddings) {
    b.add("lm_head.weight", {spec.vocab_size, h}, TensorSection::head, -1, TensorRole::head, TensorSplit::vocab);
  }
  return out;
}

// ---- deepseek_v4 ----
// DeepSeek-V4 (sgl-project/sglang python/sglang/srt/models/deepseek_v4.py @ f8101ac7; names as
// its loader maps the checkpoint's: attn -> self_attn, ffn -> mlp, attn_norm -> input_layernorm,
// ffn_norm -> post_attention_layernorm). Splits as the engine's layers: wq_a, wkv, the compressors
// and the indexer are replicated; wq_b and wo_a are column-parallel (wo_a over its groups), wo_b
// row-parallel; the sinks follow the heads.
class DeepseekV4Builder {
 public:
  DeepseekV4Builder(const ModelSpec& spec, InventoryBuilder& b) : spec_(spec), b_(b) {}

  // Hyper-connection mixing of one sublayer (DeepseekV4DecoderLayer: hc_{attn,ffn}_fn
  // [(2 + m) m, m h] in FP32, a base of (2 + m) m and 3 scales).
  void hyper_connection(const std::string& p, TensorSection s, int layer) {
    const int64_t m = spec_.hc_mult;
    const int64_t mix = (2 + m) * m;
    const TensorRole r = TensorRole::hyper_connection;
    const TensorSplit rep = TensorSplit::replicated;
    b_.add(p + "_fn", {mix, m * spec_.hidden_size}, s, layer, r, rep);
    b_.add(p + "_base", {mix}, s, layer, r, rep);
    b_.add(p + "_scale", {3}, s, layer, r, rep);
  }

  // The head's mixing of the m copies into one (hc_head_fn [m, m h], base m, one scale).
  void head_mixing(const std::string& p, TensorSection s, int layer) {
    const int64_t m = spec_.hc_mult;
    const TensorRole r = TensorRole::hyper_connection;
    const TensorSplit rep = TensorSplit::replicated;
    b_.add(p + "hc_head_fn", {m, m * spec_.hidden_size}, s, layer, r, rep);
    b_.add(p + "hc_head_base", {m}, s, layer, r, rep);
    b_.add(p + "hc_head_scale", {1}, s, layer, r, rep);
  }

  // Compressor(ratio, head size d): wkv and wgate [coff d, h] (coff 2 at ratio 4, whose windows
  // overlap, else 1), the position bias ape [ratio, coff d] (an additive bias, listed flat so it
  // is not taken for a matrix a token multiplies) and an RMSNorm of d.
  void compressor(const std::string& p, int64_t ratio, int64_t d, TensorSection s, int layer, TensorRole role) {
    const int64_t coff = ratio == 4 ? 2 : 1;
    const TensorSplit rep = TensorSplit::replicated;
    b_.add(p + "wkv.weight", {coff * d, spec_.hidden_size}, s, layer, role, rep);
    b_.add(p + "wgate.weight", {coff * d, spec_.hidden_size}, s, layer, role, rep);
    b_.add(p + "ape", {ratio * coff * d}, s, layer, role, rep);
    b_.add(p + "norm.weight", {d}, s, layer, TensorRole::norm, rep);
  }

  void block(const std::string& p, TensorSection s, int layer, int64_t ratio, bool hash) {
    const int64_t h = spec_.hidden_size;
    const int64_t heads = spec_.num_heads;
    const int64_t d = spec_.head_dim;
    const int64_t q = spec_.q_lora_rank;
    const int64_t groups = spec_.o_groups;
    const int64_t rank = spec_.o_lora_rank;
    const TensorRole a = TensorRole::attention;
    const TensorSplit rep = TensorSplit::replicated;
    hyper_connection(p + "hc_attn", s, layer);
    b_.add(p + "input_layernorm.weight", {h}, s, layer, TensorRole::norm, rep);
    const std::string at = p + "self_attn.";
    b_.add(at + "attn_sink", {heads}, s, layer, a, TensorSplit::tp_column);
    b_.add(at + "wq_a.weight", {q, h}, s, layer, a, rep);
    b_.add(at + "q_norm.weight", {q}, s, layer, TensorRole::norm, rep);
    b_.add(at + "wq_b.weight", {heads * d, q}, s, layer, a, TensorSplit::tp_column);
    b_.add(at + "wkv.weight", {d, h}, s, layer, a, rep);
    b_.add(at + "kv_norm.weight", {d}, s, layer, TensorRole::norm, rep);
    b_.add(at + "wo_a.weight", {groups * rank, heads * d / groups}, s, layer, a, TensorSplit::tp_column);
    b_.add(at + "wo_b.weight", {h, groups * rank}, s, layer, a, TensorSplit::tp_row);
    if (ratio > 0) compressor(at + "compressor.", ratio, d, s, layer, a);
    if (ratio == 4) {
      // C4Indexer: queries from the q latent, per-head weights from the hidden state, and a
      // ratio-4 compressor of its own keys.
      const std::string ix = at + "indexer.";
      const TensorRole r = TensorRole::indexer;
      b_.add(ix + "wq_b.weight", {spec_.index_n_heads * spec_.index_head_dim, q}, s, layer, r, rep);
      b_.add(ix + "weights_proj.weight", {spec_.index_n_heads, h}, s, layer, r, rep);
      compressor(ix + "compressor.", 4, spec_.index_head_dim, s, layer, r);
    }
    hyper_connection(p + "hc_ffn", s, layer);
    b_.add(p + "post_attention_layernorm.weight", {h}, s, layer, TensorRole::norm, rep);
    // The MoE: a router weight on every layer (hash layers still weight their experts by its
    // scores); hash layers look their experts up in tid2eid [vocab, top-k] (an int32 table the
    // loader does not train, requires_grad False; not counted), the others keep the noaux_tc
    // correction bias.
    const std::string m = p + "mlp.";
    const int64_t e = spec_.num_experts;
    const int64_t k = spec_.experts_per_token;
    const int64_t w = spec_.moe_intermediate_size;
    b_.add(m + "gate.weight", {e, h}, s, layer, TensorRole::router, rep);
    if (!hash && spec_.router_correction_bias) {
      b_.add(m + "gate.e_score_correction_bias", {e}, s, layer, TensorRole::correction_bias, rep);
    }
    const TensorRole x = TensorRole::expert;
    const TensorSplit ep = TensorSplit::ep;
    b_.add(m + "experts.{e}.gate_proj.weight", {w, h}, s, layer, x, ep, e, k, TensorSplit::tp_column);
    b_.add(m + "experts.{e}.up_proj.weight", {w, h}, s, layer, x, ep, e, k, TensorSplit::tp_column);
    b_.add(m + "experts.{e}.down_proj.weight", {h, w}, s, layer, x, ep, e, k, TensorSplit::tp_row);
    const int64_t sw = spec_.shared_expert_intermediate_size;
    if (sw > 0) {
      const TensorRole se = TensorRole::shared_expert;
      b_.add(m + "shared_experts.gate_proj.weight", {sw, h}, s, layer, se, TensorSplit::tp_column);
      b_.add(m + "shared_experts.up_proj.weight", {sw, h}, s, layer, se, TensorSplit::tp_column);
      b_.add(m + "shared_experts.down_proj.weight", {h, sw}, s, layer, se, TensorSplit::tp_row);
    }
  }

 private:
  const ModelSpec& spec_;
  InventoryBuilder& b_;
};

// Embedding, the layers, the head's mixing and final norm, the head, then each MTP layer
// (DeepSeek-V4's nextn layer: e_proj and h_proj [h, h] on the normed embedding and hidden state
// (the split form of eh_proj), a block of its own compress ratio, its own head mixing and norm;
// the embedding and head shared with the model).
std::vector<TensorInfo> deepseek_v4_inventory(const ModelSpec& spec) {
  std::vector<TensorInfo> out;
  InventoryBuilder b(spec, out);
  DeepseekV4Builder v4(spec, b);
  const int64_t h = spec.hidden_size;
  const int64_t v = spec.vocab_size;
  const TensorSplit rep = TensorSplit::replicated;
  b.add("model.embed_tokens.weight", {v, h}, TensorSection::embedding, -1, TensorRole::embedding, TensorSplit::vocab);
  for (int i = 0; i < spec.num_layers; ++i) {
    v4.block(fmt::format("model.layers.{}.", i), TensorSection::layer, i, spec.compress_ratio_of(i),
             i < spec.num_hash_layers);
  }
  v4.head_mixing("model.", TensorSection::final_norm, -1);
  b.add("model.norm.weight", {h}, TensorSection::final_norm, -1, TensorRole::norm, rep);
  if (!spec.tie_word_embeddings) {
    b.add("lm_head.weight", {v, h}, TensorSection::head, -1, TensorRole::head, TensorSplit::vocab);
  }
  for (int k = 0; k < spec.num_mtp_layers; ++k) {
    const int layer = spec.num_layers + k;
    const TensorSection s = TensorSection::mtp;
    const std::string p = fmt::format("model.layers.{}.", layer);
    b.add(p + "enorm.weight", {h}, s, layer, TensorRole::norm, rep);
    b.add(p + "hnorm.weight", {h}, s, layer, TensorRole::norm, rep);
    b.add(p + "e_proj.weight", {h, h}, s, layer, TensorRole::mtp_projection, TensorSplit::tp_column);
    b.add(p + "h_proj.weight", {h, h}, s, layer, TensorRole::mtp_projection, TensorSplit::tp_column);
    v4.block(p, s, layer, spec.compress_ratio_of(layer), false);
    v4.head_mixing(p, s, layer);
    b.add(p + "shared_head.norm.weight", {h}, s, layer, TensorRole::norm, rep);
  }
  return out;
}
// ---- end deepseek_v4 ----

}  // namespace

int64_t TensorInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t TensorInfo::total_numel() const { return numel() * copies; }

std::vector<TensorInfo> tensor_inventory(const ModelSpec& spec) {
  if (spec.model_type == "gpt2") return gpt2_inventory(spec);
  if (spec.model_type == "nemotron_h") return nemotron_h_inventory(spec);
  if (spec.attention == AttentionKind::csa) return deepseek_v4_inventory(spec);
  std::vector<TensorInfo> out;
  InventoryBuilder b(spec, out);
  const int64_t h = spec.hidden_size;
  const int64_t v = spec.vocab_size;
  // Ling names its embedding word_embeddings.
  const char* embedding = spec.fused_qkv ? "model.word_embeddings.weight" : "model.embed_tokens.weight";
  b.add(embedding, {v, h}, TensorSection::embedding, -1, TensorRole::embedding,
        TensorSplit::vocab);
  for (int i = 0; i < spec.num_layers; ++i) {
    b.add_block(fmt::format("model.layers.{}.", i), TensorSection::layer, i, spec.mlp[i],
                spec.has_indexer[i]);
  }
  b.add("model.norm.weight", {h}, TensorSection::final_norm, -1, TensorRole::norm,
        TensorSplit::replicated);
  if (spec.attn_res_block_size > 0) {
    // The output side's mix of the block summaries (KimiK3LinearModel's output_attn_res_*).
    b.add("model.output_attn_res_norm.weight", {h}, TensorSection::final_norm, -1, TensorRole::norm,
          TensorSplit::replicated);
    b.add("model.output_attn_res_proj.weight", {1, h}, TensorSection::final_norm, -1,
          TensorRole::attention_residual, TensorSplit::replicated);
  }
  if (!spec.tie_word_embeddings) {
    b.add("lm_head.weight", {v, h}, TensorSection::head, -1, TensorRole::head, TensorSplit::vocab);
  }
  // MTP layers (DeepSeek-V3 report, sec. 2.2): norm the embedding and the hidden state, project
  // their concatenation [2h -> h], run one decoder block (MoE, with an indexer on DSA models),
  // then the shared output head.
  const MlpKind mtp_mlp = spec.count_mlp(MlpKind::moe) > 0 ? MlpKind::moe : MlpKind::dense;
  const bool mtp_indexer = spec.count_indexers() > 0;
  for (int k = 0; k < spec.num_mtp_layers; ++k) {
    const int layer = spec.num_layers + k;
    const TensorSection s = TensorSection::mtp;
    if (spec.model_type == "mimo") {
      add_mimo_mtp_layer(b, spec, k, layer);
      continue;
    }
    if (spec.model_type.starts_with("minimax_m3")) {  // minimax_m3, minimax_m3_vl
      // MiniMax-M3 keeps its MTP modules under model.mtp.layers.{k} (sglang minimax_m3.py
      // get_spec_layer_idx_from_weight_name @ 01b5f572), each one block named transformer_layer
      // and closed by final_layernorm (NVIDIA-NeMo/Automodel minimax_m3_vl/mtp.py @ 59195bf8); the
      // embedding and head are the model's.
      const std::string m = fmt::format("model.mtp.layers.{}.", k);
      b.add(m + "enorm.weight", {h}, s, layer, TensorRole::norm, TensorSplit::replicated);
      b.add(m + "hnorm.weight", {h}, s, layer, TensorRole::norm, TensorSplit::replicated);
      b.add(m + "eh_proj.weight", {h, 2 * h}, s, layer, TensorRole::mtp_projection, TensorSplit::tp_column);
      b.add_block(m + "transformer_layer.", s, layer, mtp_mlp, mtp_indexer);
      b.add(m + "final_layernorm.weight", {h}, s, layer, TensorRole::norm, TensorSplit::replicated);
      continue;
    }
    const std::string p = fmt::format("model.layers.{}.", layer);
    if (spec.mtp_stores_embedding_and_head) {
      b.add(p + "embed_tokens.weight", {v, h}, s, layer, TensorRole::embedding, TensorSplit::vocab);
    }
    b.add(p + "enorm.weight", {h}, s, layer, TensorRole::norm, TensorSplit::replicated);
    b.add(p + "hnorm.weight", {h}, s, layer, TensorRole::norm, TensorSplit::replicated);
    b.add(p + "eh_proj.weight", {h, 2 * h}, s, layer, TensorRole::mtp_projection,
          TensorSplit::tp_column);
    b.add_block(p, s, layer, mtp_mlp, mtp_indexer);
    b.add(p + "shared_head.norm.weight", {h}, s, layer, TensorRole::norm, TensorSplit::replicated);
    if (spec.mtp_stores_embedding_and_head) {
      b.add(p + "shared_head.head.weight", {v, h}, s, layer, TensorRole::head, TensorSplit::vocab);
    }
  }
  return out;
}

const char* to_string(TensorSection section) {
  switch (section) {
    case TensorSection::embedding:
      return "embedding";
    case TensorSection::layer:
      return "layer";
    case TensorSection::final_norm:
      return "final_norm";
    case TensorSection::head:
      return "head";
    case TensorSection::mtp:
      return "mtp";
  }
  return "?";
}

const char* to_string(TensorRole role) {
  switch (role) {
    case TensorRole::attention:
      return "attention";
    case TensorRole::indexer:
      return "indexer";
    case TensorRole::dense_mlp:
      return "dense_mlp";
    case TensorRole::expert:
      return "expert";
    case TensorRole::shared_expert:
      return "shared_expert";
    case TensorRole::router:
      return "router";
    case TensorRole::correction_bias:
      return "correction_bias";
    case TensorRole::norm:
      return "norm";
    case TensorRole::embedding:
      return "embedding";
    case TensorRole::head:
      return "head";
    case TensorRole::mtp_projection:
      return "mtp_projection";
    case TensorRole::hyper_connection:
      return "hyper_connection";
    case TensorRole::latent_projection:
      return "latent_projection";
    case TensorRole::attention_residual:
      return "attention_residual";
  }
  return "?";
}

const char* to_string(TensorSplit split) {
  switch (split) {
    case TensorSplit::tp_column:
      return "tp_column";
    case TensorSplit::tp_row:
      return "tp_row";
    case TensorSplit::ep:
      return "ep";
    case TensorSplit::replicated:
      return "replicated";
    case TensorSplit::vocab:
      return "vocab";
  }
  return "?";
}

}  // namespace ladle::model
