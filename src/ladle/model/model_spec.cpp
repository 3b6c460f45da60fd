#include "ladle/model/model_spec.hpp"

#include <algorithm>

namespace ladle {

int ModelSpec::count_mlp(MlpKind kind) const {
  return static_cast<int>(std::count(mlp.begin(), mlp.end(), kind));
}

int ModelSpec::count_indexers() const {
  return static_cast<int>(std::count(has_indexer.begin(), has_indexer.end(), true));
}

bool ModelSpec::is_linear_attention(int layer) const { return mixer_of(layer) == MixerKind::linear; }

int ModelSpec::count_linear_attention() const { return count_mixer(MixerKind::linear); }

MixerKind ModelSpec::mixer_of(int layer) const {
  if (layer < 0) return MixerKind::attention;
  const auto i = static_cast<std::size_t>(layer);
  if (i < mixer.size()) return mixer[i];
  if (i < linear_attention.size() && linear_attention[i]) return MixerKind::linear;
  return MixerKind::attention;
}

int ModelSpec::count_mixer(MixerKind kind) const {
  int n = 0;
  for (int i = 0; i < num_layers; ++i) n += mixer_of(i) == kind ? 1 : 0;
  return n;
}

int64_t ModelSpec::ffn_of(int layer) const {
  const auto i = static_cast<std::size_t>(layer);
  return layer >= 0 && i < layer_ffn.size() ? layer_ffn[i] : intermediate_size;
}

int64_t ModelSpec::kv_heads_of(int layer) const {
  const auto i = static_cast<std::size_t>(layer);
  return layer >= 0 && i < layer_kv_heads.size() ? layer_kv_heads[i] : num_kv_heads;
}

bool ModelSpec::sinks_of(int layer) const {
  const auto i = static_cast<std::size_t>(layer);
  return layer >= 0 && i < layer_sinks.size() ? layer_sinks[i] : attention_sinks;
}

// ---- per-layer attention geometry (step3p7, gemma4) ----
namespace {
template <typename T, typename U>
U layer_or(const std::vector<T>& values, int layer, U fallback) {
  const auto i = static_cast<std::size_t>(layer);
  return layer >= 0 && i < values.size() ? static_cast<U>(values[i]) : fallback;
}
}  // namespace

int64_t ModelSpec::heads_of(int layer) const { return layer_or(layer_heads, layer, num_heads); }

int64_t ModelSpec::head_dim_of(int layer) const { return layer_or(layer_head_dim, layer, head_dim); }

int64_t ModelSpec::value_head_dim_of(int layer) const {
  return layer_or(layer_value_head_dim, layer, gqa_value_head_dim());
}

bool ModelSpec::kv_shared_of(int layer) const { return layer_or(layer_kv_shared, layer, false); }

bool ModelSpec::k_eq_v_of(int layer) const { return layer_or(layer_k_eq_v, layer, false); }
// ---- end per-layer attention geometry ----

const char* to_string(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::gqa:
      return "gqa";
    case AttentionKind::mla:
      return "mla";
    case AttentionKind::csa:
      return "csa";
  }
  return "?";
}

const char* to_string(MlpKind kind) {
  switch (kind) {
    case MlpKind::dense:
      return "dense";
    case MlpKind::moe:
      return "moe";
    case MlpKind::none:
      return "none";
  }
  return "?";
}

const char* to_string(MixerKind kind) {
  switch (kind) {
    case MixerKind::attention:
      return "attention";
    case MixerKind::linear:
      return "linear";
    case MixerKind::mamba:
      return "mamba";
    case MixerKind::none:
      return "none";
  }
  return "?";
}

}  // namespace ladle
