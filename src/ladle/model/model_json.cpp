// model_json.cpp: the JSON form of ModelSpec, ParamCounts, FlopsPerToken and TensorInfo.
#include "ladle/model/model_json.hpp"

namespace ladle::model {
namespace {

nlohmann::ordered_json architecture_json(const ModelSpec& s) {
  nlohmann::ordered_json a;
  a["num_layers"] = s.num_layers;
  a["num_mtp_layers"] = s.num_mtp_layers;
  a["dense_layers"] = s.count_mlp(MlpKind::dense);
  a["moe_layers"] = s.count_mlp(MlpKind::moe);
  a["hidden_size"] = s.hidden_size;
  a["vocab_size"] = s.vocab_size;
  a["tie_word_embeddings"] = s.tie_word_embeddings;
  // GPT-2-style facts, shown only for models that have them.
  if (s.position_embeddings > 0) a["position_embeddings"] = s.position_embeddings;
  if (s.norm_bias) a["norm_bias"] = true;
  if (!s.gated_mlp) a["gated_mlp"] = false;
  a["attention"] = to_string(s.attention);
  a["num_heads"] = s.num_heads;
  a["num_kv_heads"] = s.num_kv_heads;
  a["head_dim"] = s.head_dim;
  a["attention_bias"] = s.attention_bias;
  a["qk_norm"] = s.qk_norm;
  a["attention_sinks"] = s.attention_sinks;
  if (s.attention == AttentionKind::csa) {  // deepseek_v4
    a["q_lora_rank"] = s.q_lora_rank;
    a["qk_rope_head_dim"] = s.qk_rope_head_dim;
    a["o_groups"] = s.o_groups;
    a["o_lora_rank"] = s.o_lora_rank;
    a["compress_ratios"] = s.compress_ratio;
    a["hc_mult"] = s.hc_mult;
    a["hc_sinkhorn_iters"] = s.hc_sinkhorn_iters;
    a["num_hash_layers"] = s.num_hash_layers;
  }
  if (s.attention == AttentionKind::mla) {
    a["q_lora_rank"] = s.q_lora_rank;
    a["kv_lora_rank"] = s.kv_lora_rank;
    a["qk_nope_head_dim"] = s.qk_nope_head_dim;
    a["qk_rope_head_dim"] = s.qk_rope_head_dim;
    a["v_head_dim"] = s.v_head_dim;
  }
  nlohmann::ordered_json windows = nlohmann::ordered_json::array();
  for (int64_t w : s.sliding_window) windows.push_back(w);
  a["sliding_window"] = windows;
  if (!s.attention_chunk.empty()) {
    nlohmann::ordered_json chunks = nlohmann::ordered_json::array();
    for (int64_t c : s.attention_chunk) chunks.push_back(c);
    a["attention_chunk"] = chunks;
  }
  if (s.count_linear_attention() > 0) {
    a["linear_attention_layers"] = s.count_linear_attention();
    a["linear_num_key_heads"] = s.linear_num_key_heads;
    a["linear_num_value_heads"] = s.linear_num_value_heads;
    a["linear_key_head_dim"] = s.linear_key_head_dim;
    a["linear_value_head_dim"] = s.linear_value_head_dim;
    a["linear_conv_kernel"] = s.linear_conv_kernel;
    if (s.kda) a["linear_kind"] = s.kda_full_rank_gate ? "kda_full_rank_gate" : "kda";  // kimi_linear, kimi_k3
  }
  if (s.attention_output_gate) a["attention_output_gate"] = true;
  // per-layer attention geometry (step3p7, gemma4)
  if (s.has_layer_geometry() || !s.layer_kv_shared.empty()) {
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (int i = 0; i < s.num_layers; ++i) {
      nlohmann::ordered_json g;
      g["heads"] = s.heads_of(i);
      g["kv_heads"] = s.kv_heads_of(i);
      g["head_dim"] = s.head_dim_of(i);
      g["value_head_dim"] = s.value_head_dim_of(i);
      if (s.kv_shared_of(i)) g["kv_shared"] = true;
      if (s.k_eq_v_of(i)) g["k_eq_v"] = true;
      layers.push_back(g);
    }
    a["layer_attention"] = layers;
  }
  if (s.head_wise_attention_gate) a["head_wise_attention_gate"] = true;
  if (!s.assumed.empty()) {
    nlohmann::ordered_json published = nlohmann::ordered_json::array();
    for (const ModelSpec::AssumedValue& v : s.assumed) {
      published.push_back({{"key", v.key}, {"value", nlohmann::ordered_json::parse(v.value)}, {"source", v.source}});
    }
    a["published_values"] = published;
  }
  a["indexer_layers"] = s.count_indexers();
  if (s.index_topk > 0) {
    a["index_n_heads"] = s.index_n_heads;
    a["index_head_dim"] = s.index_head_dim;
    a["index_topk"] = s.index_topk;
    nlohmann::ordered_json owners = nlohmann::ordered_json::array();
    for (int i = 0; i < s.num_layers; ++i) {
      if (s.has_indexer[i]) owners.push_back(i);
    }
    a["indexer_layer_indices"] = owners;
  }
  a["intermediate_size"] = s.intermediate_size;
  // A dense model has no MoE fields to show.
  if (s.num_experts > 0) {
    a["moe_intermediate_size"] = s.moe_intermediate_size;
    a["num_experts"] = s.num_experts;
    a["experts_per_token"] = s.experts_per_token;
    a["num_shared_experts"] = s.num_shared_experts;
    a["shared_expert_intermediate_size"] = s.shared_expert_intermediate_size;
    a["first_k_dense"] = s.first_k_dense;
    a["router_correction_bias"] = s.router_correction_bias;
    if (s.moe_latent_size > 0) {  // kimi_k3
      a["moe_latent_size"] = s.moe_latent_size;
      a["moe_latent_norm"] = s.moe_latent_norm;
    }
  }
  if (s.attn_res_block_size > 0) a["attn_res_block_size"] = s.attn_res_block_size;  // kimi_k3
  if (s.num_mtp_layers > 0) a["mtp_stores_embedding_and_head"] = s.mtp_stores_embedding_and_head;
  return a;
}

}  // namespace

nlohmann::ordered_json to_json(const ModelSpec& spec) {
  nlohmann::ordered_json out;
  out["name"] = spec.name;
  out["model_type"] = spec.model_type;
  out["source"] = spec.source;
  out["architecture"] = architecture_json(spec);
  return out;
}

nlohmann::ordered_json to_json(const ParamCounts& counts) {
  nlohmann::ordered_json out;
  out["n"] = counts.n;
  nlohmann::ordered_json params;
  for (ParamConvention c : param_conventions()) params[to_string(c)] = counts.get(c);
  out["params"] = params;
  nlohmann::ordered_json by_role;
  by_role["attention"] = counts.attention;
  by_role["indexer"] = counts.indexer;
  if (counts.hyper_connections > 0) by_role["hyper_connections"] = counts.hyper_connections;  // deepseek_v4
  if (counts.latent_projections > 0) by_role["latent_projections"] = counts.latent_projections;     // kimi_k3
  if (counts.attention_residuals > 0) by_role["attention_residuals"] = counts.attention_residuals;  // kimi_k3
  by_role["dense_mlp"] = counts.dense_mlp;
  by_role["routed_experts"] = counts.routed_experts;
  by_role["shared_experts"] = counts.shared_experts;
  by_role["router"] = counts.router;
  by_role["norms"] = counts.norms;
  by_role["embedding"] = counts.embedding;
  by_role["head"] = counts.head;
  out["params_by_role"] = by_role;
  if (counts.vision > 0) out["vision_encoder_params"] = counts.vision;
  return out;
}

nlohmann::ordered_json to_json(const LayerKindFlops& kind) {
  nlohmann::ordered_json j;
  j["kind"] = kind.kind;
  j["layers"] = kind.layers;
  j["matmul_forward"] = kind.matmul_forward;
  j["attention_forward"] = kind.attention_forward;
  j["indexer_forward"] = kind.indexer_forward;
  j["forward_total"] = kind.forward_total();
  return j;
}

nlohmann::ordered_json to_json(const FlopsPerToken& flops) {
  nlohmann::ordered_json j;
  j["seq_len"] = flops.seq_len;
  j["six_n"] = flops.six_n;
  j["matmul_forward"] = flops.matmul_forward;
  j["attention_forward"] = flops.attention_forward;
  j["indexer_forward"] = flops.indexer_forward;
  j["mtp_forward"] = flops.mtp_forward;
  j["training"] = flops.training;
  j["training_with_mtp"] = flops.training_with_mtp;
  j["training_over_six_n"] = flops.training / flops.six_n;
  nlohmann::ordered_json kinds = nlohmann::ordered_json::array();
  for (const LayerKindFlops& k : flops.by_kind) kinds.push_back(to_json(k));
  j["by_kind"] = kinds;
  return j;
}

nlohmann::ordered_json to_json(const TensorInfo& tensor) {
  nlohmann::ordered_json j;
  j["name"] = tensor.name;
  j["shape"] = tensor.shape;
  j["copies"] = tensor.copies;
  j["active_copies"] = tensor.active_copies;
  j["section"] = to_string(tensor.section);
  j["layer"] = tensor.layer;
  j["role"] = to_string(tensor.role);
  j["split"] = to_string(tensor.split);
  if (tensor.is_expert()) j["expert_split"] = to_string(tensor.expert_split);
  return j;
}

}  // namespace ladle::model
