#include "ladle/plan/model_costs.hpp"

#include <algorithm>
#include <map>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/model/flops.hpp"
#include "ladle/model/params.hpp"
#include "ladle/model/tensor_inventory.hpp"
#include "ladle/plan/cost_compressed_attention.hpp"
#include "ladle/plan/cost_vision.hpp"
#include "ladle/util/error.hpp"

namespace ladle::plan {

namespace {

using model::TensorInfo;
using model::TensorRole;
using model::TensorSection;
using model::TensorSplit;

GemmSplit gemm_split(const TensorInfo& t) {
  if (t.is_expert()) return t.expert_split == TensorSplit::tp_row ? GemmSplit::expert_in : GemmSplit::expert_out;
  switch (t.split) {
    case TensorSplit::tp_column:
    case TensorSplit::vocab: return GemmSplit::tp_out;
    case TensorSplit::tp_row: return GemmSplit::tp_in;
    default: return GemmSplit::replicated;
  }
}

GemmModule gemm_module(const TensorInfo& t) {
  switch (t.role) {
    case TensorRole::attention:
      // MLA's up-projections (q_b, kv_b): what --recompute-modules mla_up_proj recomputes.
      return t.name.find("q_b_proj") != std::string::npos || t.name.find("kv_b_proj") != std::string::npos
                 ? GemmModule::mla_up
                 : GemmModule::attention;
    case TensorRole::indexer: return GemmModule::indexer;
    case TensorRole::dense_mlp: return GemmModule::dense_mlp;
    case TensorRole::shared_expert: return GemmModule::shared_expert;
    case TensorRole::router: return GemmModule::router;
    default: return GemmModule::other;
  }
}

void add_tensor(const TensorInfo& t, LayerKind& kind) {
  const double elements = static_cast<double>(t.total_numel());
  if (t.role == TensorRole::correction_bias) {
    kind.replicated_params += elements;
    return;
  }
  if (t.is_expert()) {
    kind.expert_params += elements;
    if (t.is_matrix()) kind.expert_gemms.push_back(Gemm{t.shape[0], t.shape[1], gemm_split(t)});
    return;
  }
  if (t.split == TensorSplit::replicated) {
    kind.replicated_params += elements;
  } else {
    kind.tp_params += elements;
  }
  if (t.is_matrix()) {
    kind.gemms.push_back(Gemm{t.shape[0], t.shape[1], gemm_split(t), gemm_module(t)});
    kind.dense_matmul_params += static_cast<double>(t.numel()) * static_cast<double>(t.active_copies);
    if (t.role == TensorRole::indexer) kind.indexer = true;
  }
}

// MiniMax-M3's block index (index_block_size > 0) as Megatron trains it: NVIDIA-NeMo/Megatron-Bridge
// src/megatron/bridge/models/minimax_m3/minimax_m3_bridge.py @ 0bb6ef4a, the Megatron engine that
// implements MiniMax-M3, maps no index_{q,k}_{proj,norm} weights and runs full causal attention on
// every layer (its docstring: exact up to sparse_topk_blocks x sparse_block_size tokens, an
// approximation beyond). Megatron-LM has no block index of its own, so the run's memory and time
// hold neither the index weights nor its scoring, and every layer attends to all causal keys.
bool megatron_runs_without_block_index(const ModelSpec& spec) { return spec.index_block_size > 0; }

// The core attention of layer `layer` (its window); `geometry` is the layer whose heads and head
// sizes it has (-1: the model-wide fields, an MTP layer's).
double attention_flops(const ModelSpec& spec, int64_t layer, int64_t row_tokens, int geometry) {
  const int64_t qk = spec.attention == AttentionKind::mla ? spec.qk_nope_head_dim + spec.qk_rope_head_dim
                                                           : spec.head_dim_of(geometry);
  const int64_t v = spec.attention == AttentionKind::mla ? spec.v_head_dim : spec.value_head_dim_of(geometry);
  int64_t window = 0;
  if (static_cast<size_t>(layer) < spec.sliding_window.size()) window = spec.sliding_window[layer];
  // DSA layers attend to index_topk keys; MiniMax-M3's sparse layers do not under Megatron (above).
  if (spec.sparse_of(static_cast<int>(layer)) && !megatron_runs_without_block_index(spec) &&
      (window == 0 || spec.index_topk < window)) {
    window = spec.index_topk;
  }
  const double context = model::mean_causal_context(row_tokens, window);
  return 2.0 * static_cast<double>(spec.heads_of(geometry)) * static_cast<double>(qk + v) * context;
}

double indexer_flops(const ModelSpec& spec, int64_t row_tokens) {
  const double context = model::mean_causal_context(row_tokens, 0);
  return (2.0 * static_cast<double>(spec.index_n_heads * spec.index_head_dim) +
          2.0 * static_cast<double>(spec.index_n_heads)) * context;
}

}  // namespace

// Kimi-K3 (kimi_k3) as priced here, and what is approximate: its Kimi Delta Attention layers are
// linear layers (cost_linear_attention: the Gated DeltaNet recurrence and conv terms on its heads);
// their projections, the gated MLA's g_proj, the latent experts' down and up projections (whole on
// every TP rank, as the engine keeps them) and the attention residuals' [1, hidden] scoring
// projections are GEMMs of their inventory shapes; the routed experts are GEMMs of their latent
// width, and their token dispatch moves latent-wide rows (time_ep.cpp: the down-projection runs
// before the dispatch, once per token; sglang kimi_k3.py @0000e9b4). The block summaries attention residuals keep per
// token (up to ceil(layers / block) hidden-wide rows) and their elementwise scoring and mixing are
// not priced in memory or time (under 0.1% of a layer's FLOPs; model::attention_residual_forward
// counts them in the FLOPs).
ModelCosts model_costs(const ModelSpec& spec, int64_t row_tokens, int64_t image_tokens) {
  if (row_tokens < 1) throw_usage("row tokens must be at least 1, got {}", row_tokens);
  if (image_tokens < 0 || image_tokens > row_tokens) {
    throw_usage("--image-tokens must be 0 to the row's {} tokens, got {}", row_tokens, image_tokens);
  }
  if (image_tokens > 0 && spec.vision.depth == 0) {
    throw_usage("--image-tokens {}: {} ({}) has no vision tower ladle prices (qwen3_vl, qwen3_vl_moe and "
                "qwen3_5_moe configs with a vision_config do)",
                image_tokens, spec.name, spec.model_type);
  }
  ModelCosts c;
  c.model = spec.name;
  c.row_tokens = row_tokens;
  c.num_layers = spec.num_layers;
  c.num_mtp_layers = spec.num_mtp_layers;
  c.hidden = spec.hidden_size;
  c.vocab = spec.vocab_size;
  c.heads = spec.num_heads;
  c.kv_heads = spec.num_kv_heads;
  c.mla = spec.attention == AttentionKind::mla;
  c.qk_norm = spec.qk_norm;
  c.head_dim = spec.head_dim;
  c.q_lora_rank = spec.q_lora_rank;
  c.kv_lora_rank = spec.kv_lora_rank;
  c.qk_head_dim = c.mla ? spec.qk_nope_head_dim + spec.qk_rope_head_dim : spec.head_dim;
  c.rope_dim = spec.qk_rope_head_dim;
  c.v_head_dim = c.mla ? spec.v_head_dim : spec.gqa_value_head_dim();  // MiMo-V2-Flash's are narrower
  c.index_heads = spec.index_n_heads;
  c.index_head_dim = spec.index_head_dim;
  c.ffn = spec.intermediate_size;
  c.gated_mlp = spec.gated_mlp;
  c.moe_ffn = spec.moe_intermediate_size;
  c.shared_ffn = spec.shared_expert_intermediate_size;
  c.experts = spec.num_experts;
  c.top_k = spec.experts_per_token;
  c.mamba_inner = spec.mamba_inner();
  c.mamba_conv = spec.mamba_conv_dim();
  c.mamba_heads = spec.mamba_heads;
  c.linear_key = spec.linear_num_key_heads * spec.linear_key_head_dim;
  c.linear_value = spec.linear_num_value_heads * spec.linear_value_head_dim;
  c.linear_heads = spec.linear_num_value_heads;
  c.linear_kda = spec.kda;
  c.moe_latent = spec.moe_latent_size;
  c.csa = spec.attention == AttentionKind::csa;  // deepseek_v4
  c.o_groups = spec.o_groups;
  c.o_lora_rank = spec.o_lora_rank;
  c.hc_mult = spec.hc_mult;

  std::vector<LayerKind> per_layer(static_cast<size_t>(spec.num_layers));
  LayerKind mtp;
  const bool no_block_index = megatron_runs_without_block_index(spec);
  for (const TensorInfo& t : model::tensor_inventory(spec)) {
    if (no_block_index && t.role == TensorRole::indexer) continue;  // not built by Megatron (above)
    switch (t.section) {
      case TensorSection::embedding: c.embedding_params += static_cast<double>(t.total_numel()); break;
      case TensorSection::head: c.head_params += static_cast<double>(t.total_numel()); break;
      case TensorSection::final_norm: c.final_norm_params += static_cast<double>(t.total_numel()); break;
      case TensorSection::layer: add_tensor(t, per_layer[static_cast<size_t>(t.layer)]); break;
      case TensorSection::mtp:
        // Megatron-LM's MTP shares the main embedding and output head; only the first MTP
        // layer's tensors are kept (every MTP layer has the same shapes).
        if (t.role == TensorRole::embedding || t.role == TensorRole::head) break;
        if (t.layer == spec.num_layers) add_tensor(t, mtp);
        break;
    }
  }
  std::map<std::string, size_t> index_of;
  c.layer_kind.resize(per_layer.size());
  for (size_t i = 0; i < per_layer.size(); ++i) {
    LayerKind& kind = per_layer[i];
    const int layer = static_cast<int>(i);
    kind.moe = spec.mlp[i] == MlpKind::moe;
    kind.mixer = spec.mixer_of(layer);
    kind.has_mlp = spec.mlp[i] != MlpKind::none;
    kind.ffn = spec.ffn_of(layer);
    kind.kv_heads = spec.kv_heads_of(layer);
    // per-layer attention geometry (step3p7, gemma4)
    kind.heads = spec.heads_of(layer);
    kind.head_dim = c.mla ? c.qk_head_dim : spec.head_dim_of(layer);
    kind.v_head_dim = c.mla ? c.v_head_dim : spec.value_head_dim_of(layer);
    kind.kv_cache = !spec.kv_shared_of(layer);
    // A Gated DeltaNet or Mamba-2 layer's core is its recurrence or scan (cost_linear_attention,
    // cost_mamba); a layer without a mixer has none.
    const double mixer = model::mixer_core_forward(spec, layer);
    kind.attention_flops = mixer >= 0 ? mixer : attention_flops(spec, static_cast<int64_t>(i), row_tokens, layer);
    kind.indexer_flops = kind.indexer ? indexer_flops(spec, row_tokens) : 0.0;
    const std::string mixer_name =
        kind.mixer == MixerKind::attention ? std::string(to_string(spec.attention)) : to_string(kind.mixer);
    kind.name = mixer_name + (kind.indexer ? "+indexer" : "") + "+" + to_string(spec.mlp[i]);
    if (i < spec.sliding_window.size() && spec.sliding_window[i] > 0) {
      kind.name += "+sliding";
      kind.window = spec.sliding_window[i];
    }
    if (c.csa) set_compressed_attention(spec, layer, row_tokens, kind);  // deepseek_v4
    const std::string key = kind.name + "/" + std::to_string(kind.attention_flops) + "/" +
                            std::to_string(kind.ffn) + "/" + std::to_string(kind.kv_heads) + "/" +
                            std::to_string(kind.heads) + "/" + std::to_string(kind.head_dim) + "/" +
                            std::to_string(kind.v_head_dim) + (kind.kv_cache ? "" : "/kv-shared");
    auto [it, inserted] = index_of.emplace(key, c.kinds.size());
    if (inserted) c.kinds.push_back(kind);
    c.layer_kind[i] = static_cast<int>(it->second);
  }
  c.prefix.assign(c.kinds.size(), std::vector<int32_t>(per_layer.size() + 1, 0));
  for (size_t k = 0; k < c.kinds.size(); ++k) {
    for (size_t i = 0; i < per_layer.size(); ++i) {
      c.prefix[k][i + 1] = c.prefix[k][i] + (c.layer_kind[i] == static_cast<int>(k) ? 1 : 0);
    }
  }
  if (spec.num_mtp_layers > 0) {
    mtp.moe = spec.count_mlp(MlpKind::moe) > 0;
    mtp.name = "mtp";
    mtp.attention_flops = attention_flops(spec, spec.num_layers - 1, row_tokens, -1);
    mtp.kv_heads = spec.num_kv_heads;
    mtp.heads = spec.num_heads;
    mtp.head_dim = c.qk_head_dim;
    mtp.v_head_dim = c.v_head_dim;
    mtp.indexer_flops = mtp.indexer ? indexer_flops(spec, row_tokens) : 0.0;
    if (c.csa) {  // deepseek_v4: the MTP layer's own compress ratio
      set_compressed_attention(spec, spec.num_layers, row_tokens, mtp);
      mtp.name = "mtp";
    }
    c.mtp = mtp;
  }
  if (image_tokens > 0) {
    c.image_tokens = image_tokens;
    c.vision_params = static_cast<double>(spec.vision_params);
    c.vision_flops_per_row =
        static_cast<double>(image_tokens) * vision_forward_flops_per_image_token(spec.vision, image_tokens);
    c.vision_activation_bytes_per_row =
        static_cast<double>(image_tokens) * vision_activation_bytes_per_image_token(spec.vision);
  }
  const model::ParamCounts counts = model::count_params(spec);
  c.n_params = static_cast<double>(counts.n);
  c.total_params = static_cast<double>(counts.total);
  return c;
}

void require_runs_precision(const Layout& layout, const GpuSpec& gpu) {
  // The precision rules every command checks (layout_rules.cpp precision_violation): Transformer
  // Engine's NVFP4BlockScaling and MXFP8 run on Blackwell and later only, Primus's MXFP4 on the
  // block-scaled MMA of Blackwell and CDNA 4; gpus.yaml lists the formats each GPU's tensor cores
  // scale by block and its FP4 peak.
  if (const auto v = layout::precision_violation(layout, layout::precision_context(gpu))) {
    throw Error(ErrorKind::input, v->message, SourceLocation{"", 0, 0, "layout"});
  }
}

}  // namespace ladle::plan
