#include "ladle/model/model_spec.hpp"

#include <algorithm>

namespace ladle {

int ModelSpec::count_mlp(MlpKind kind) const {
  return static_cast<int>(std::count(mlp.begin(), mlp.end(), kind));
}

int ModelSpec::count_indexers() const {
  return static_cast<int>(std::count(has_indexer.begin(), has_indexer.end(), true));
}

bool ModelSpec::is_linear_attention(int layer) const {
  return layer >= 0 && static_cast<std::size_t>(layer) < linear_attention.size() &&
         linear_attention[layer];
}

int ModelSpec::count_linear_attention() const {
  return static_cast<int>(std::count(linear_attention.begin(), linear_attention.end(), true));
}

const char* to_string(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::gqa:
      return "gqa";
    case AttentionKind::mla:
      return "mla";
  }
  return "?";
}

const char* to_string(MlpKind kind) {
  switch (kind) {
    case MlpKind::dense:
      return "dense";
    case MlpKind::moe:
      return "moe";
  }
  return "?";
}

}  // namespace ladle
