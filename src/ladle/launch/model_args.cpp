#include "ladle/launch/model_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"

namespace ladle::launch {

namespace {

// The config the model was read from (its text config for a multimodal one), or an empty object.
nlohmann::json model_config(const ModelSpec& model) {
  std::string text;
  try {
    // The catalog's configs are embedded (named "embedded:data/models/x.json" or the bare path).
    constexpr std::string_view kEmbedded = "embedded:";
    const std::string path =
        model.source.rfind(kEmbedded, 0) == 0 ? model.source.substr(kEmbedded.size()) : model.source;
    if (const auto found = util::find_embedded(path)) {
      text = std::string(*found);
    } else if (!path.empty()) {
      text = util::read_file(path);
    }
  } catch (const Error&) {
    return nlohmann::json::object();
  }
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false, /*ignore_comments=*/false);
  if (!j.is_object()) return nlohmann::json::object();
  if (j.contains("text_config") && j["text_config"].is_object()) return j["text_config"];
  return j;
}

// A config number as Megatron-LM's argparse reads it back: integers bare, others in shortest form.
std::string number(const nlohmann::json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return std::to_string(v.get<int64_t>());
  return fmt::format("{}", v.get<double>());
}

}  // namespace

ModelArgs model_arch_args(const ModelSpec& m) {
  ModelArgs out;
  const auto refuse = [&](std::string why) {
    out.words.clear();
    out.unsupported = std::move(why);
    return out;
  };
  if (m.count_linear_attention() > 0) return refuse("linear-attention layers");
  if (!m.mixer.empty() && m.count_mixer(MixerKind::attention) != m.num_layers) return refuse("non-attention mixers");
  if (m.count_indexers() > 0 || m.index_topk > 0) return refuse("sparse-attention indexers");
  if (m.attention_sinks || m.attention_output_gate || m.fused_qkv) return refuse("its attention variant");
  if (std::any_of(m.sliding_window.begin(), m.sliding_window.end(), [](int64_t w) { return w > 0; }) ||
      std::any_of(m.attention_chunk.begin(), m.attention_chunk.end(), [](int64_t w) { return w > 0; })) {
    return refuse("windowed or chunked attention");
  }
  if (m.count_mlp(MlpKind::none) > 0 || (m.num_experts > 0 && m.mlp.size() < static_cast<size_t>(m.num_layers)))
    return refuse("layers without a feed-forward block");
  if (!m.layer_ffn.empty() || !m.layer_kv_heads.empty()) return refuse("per-layer shapes");
  if (m.vision.depth > 0 || m.vision_params > 0) return refuse("a vision tower");
  if (m.norms != NormPlacement::pre || m.qk_norm_full_width) return refuse("its norm placement");
  if (m.relu2_mlp || (m.gated_mlp && !m.silu_glu)) return refuse("its MLP activation");
  const nlohmann::json c = model_config(m);
  std::vector<std::string>& w = out.words;
  const auto add = [&](std::string flag, std::optional<std::string> value = std::nullopt) {
    w.push_back(std::move(flag));
    if (value) w.push_back(std::move(*value));
  };
  const auto num = [](int64_t v) { return std::to_string(v); };
  add("--num-layers", num(m.num_layers));
  add("--hidden-size", num(m.hidden_size));
  if (m.intermediate_size > 0) add("--ffn-hidden-size", num(m.intermediate_size));
  add("--num-attention-heads", num(m.num_heads));
  if (m.attention == AttentionKind::mla) {
    add("--multi-latent-attention");
    if (m.q_lora_rank > 0) add("--q-lora-rank", num(m.q_lora_rank));
    add("--kv-lora-rank", num(m.kv_lora_rank));
    add("--qk-head-dim", num(m.qk_nope_head_dim));
    add("--qk-pos-emb-head-dim", num(m.qk_rope_head_dim));
    add("--v-head-dim", num(m.v_head_dim));
  } else {
    if (m.num_kv_heads > 0 && m.num_kv_heads < m.num_heads) {
      add("--group-query-attention");
      add("--num-query-groups", num(m.num_kv_heads));
    }
    if (m.head_dim > 0 && m.head_dim * m.num_heads != m.hidden_size) add("--kv-channels", num(m.head_dim));
  }
  if (m.position_embeddings > 0) {
    add("--position-embedding-type", "learned_absolute");
    add("--max-position-embeddings", num(m.position_embeddings));
  } else {
    add("--position-embedding-type", "rope");
    if (c.contains("max_position_embeddings") && c["max_position_embeddings"].is_number())
      add("--max-position-embeddings", number(c["max_position_embeddings"]));
    if (c.contains("rope_theta") && c["rope_theta"].is_number()) add("--rotary-base", number(c["rope_theta"]));
    if (c.contains("rope_scaling") && c["rope_scaling"].is_object()) {
      const nlohmann::json& s = c["rope_scaling"];
      const std::string type = s.value("rope_type", s.value("type", std::string()));
      if (type == "llama3") {
        add("--use-rope-scaling");
        if (s.contains("factor") && s["factor"].is_number()) add("--rope-scaling-factor", number(s["factor"]));
      } else if (type == "yarn") {
        add("--rope-type", "yarn");
        const std::pair<const char*, const char*> keys[] = {
            {"factor", "--rotary-scaling-factor"}, {"mscale", "--mscale"}, {"mscale_all_dim", "--mscale-all-dim"},
            {"original_max_position_embeddings", "--original-max-position-embeddings"},
            {"beta_fast", "--beta-fast"}, {"beta_slow", "--beta-slow"}};
        for (const auto& [key, flag] : keys) {
          if (s.contains(key) && s[key].is_number()) add(flag, number(s[key]));
        }
      } else if (!type.empty() && type != "default") {
        return refuse(fmt::format("rope scaling '{}'", type));
      }
    }
  }
  add("--normalization", m.norm_bias ? "LayerNorm" : "RMSNorm");
  for (const char* key : {"rms_norm_eps", "layer_norm_epsilon", "layer_norm_eps"}) {
    if (c.contains(key) && c[key].is_number()) {
      add("--norm-epsilon", number(c[key]));
      break;
    }
  }
  if (m.gated_mlp) add("--swiglu");
  if (m.attention_bias && !m.mlp_bias && !m.norm_bias) {
    add("--disable-bias-linear");
    add("--add-qkv-bias");
  } else if (!m.attention_bias && !m.mlp_bias && !m.attention_out_bias && !m.norm_bias) {
    add("--disable-bias-linear");
  }
  if (m.qk_norm) add("--qk-layernorm");
  if (!m.tie_word_embeddings) add("--untie-embeddings-and-output-weights");
  if (m.vocab_size > 0) add("--vocab-size", num(m.vocab_size));
  if (m.num_experts > 0) {
    add("--num-experts", num(m.num_experts));
    add("--moe-ffn-hidden-size", num(m.moe_intermediate_size));
    add("--moe-router-topk", num(m.experts_per_token));
    if (m.shared_expert_intermediate_size > 0) {
      add("--moe-shared-expert-intermediate-size", num(m.shared_expert_intermediate_size));
      if (m.shared_expert_gate) add("--moe-shared-expert-gate");
    }
    const int dense = m.count_mlp(MlpKind::dense);
    if (dense > 0) {
      // Megatron-LM's list form: a 0 (dense) or 1 (MoE) per layer, in order.
      std::string freq = "[";
      for (int i = 0; i < m.num_layers; ++i) {
        freq += (i ? "," : "") + std::string(m.mlp[static_cast<size_t>(i)] == MlpKind::moe ? "1" : "0");
      }
      add("--moe-layer-freq", freq + "]");
    }
    if (m.router_correction_bias) {
      add("--moe-router-score-function", "sigmoid");
      add("--moe-router-enable-expert-bias");
    }
    if (c.contains("routed_scaling_factor") && c["routed_scaling_factor"].is_number())
      add("--moe-router-topk-scaling-factor", number(c["routed_scaling_factor"]));
    if (c.contains("n_group") && c["n_group"].is_number() && c["n_group"].get<double>() > 1) {
      add("--moe-router-num-groups", number(c["n_group"]));
      if (c.contains("topk_group") && c["topk_group"].is_number())
        add("--moe-router-group-topk", number(c["topk_group"]));
    }
  }
  if (m.num_mtp_layers > 0) add("--mtp-num-layers", num(m.num_mtp_layers));
  return out;
}

}  // namespace ladle::launch
