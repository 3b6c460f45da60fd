#include "ladle/plan/cost_fp8_amax_history.hpp"

#include <algorithm>

namespace ladle::plan {

namespace {

constexpr double kQuantizersPerGemm = 3.0 + 2.0;  // forward: input, weight, output; backward: two gradients
constexpr double kFp32 = 4.0;

}  // namespace

bool fp8_delayed(const Layout& layout) {
  return layout.fp8 != Fp8Format::none && layout.fp8_recipe == Fp8Recipe::delayed;
}

double fp8_layer_gemms(const LayerKind& kind, const ModelCosts& costs, const Layout& layout) {
  double gemms = 0;
  switch (kind.mixer) {
    case MixerKind::attention:
      gemms += costs.mla ? (costs.q_lora_rank > 0 ? 5.0 : 4.0) : 2.0;
      break;
    case MixerKind::linear:
    case MixerKind::mamba:
      gemms += 2.0;  // in_proj, out_proj
      break;
    case MixerKind::none:
      break;
  }
  if (!kind.has_mlp) return gemms;
  if (kind.moe) {
    const double local_experts = static_cast<double>(costs.experts) / static_cast<double>(std::max<int64_t>(1, layout.ep));
    gemms += 2.0 * local_experts + (costs.shared_ffn > 0 ? 2.0 : 0.0);
  } else {
    gemms += 2.0;  // linear_fc1, linear_fc2
  }
  return gemms;
}

double amax_history_bytes(bool delayed, int64_t history_len, double gemms) {
  if (!delayed || history_len < 1 || gemms <= 0) return 0.0;
  return kFp32 * (static_cast<double>(history_len) + 1.0) * kQuantizersPerGemm * gemms;
}

double amax_history_seconds(bool delayed, int64_t history_len, double gemms, double hbm_bytes_per_s) {
  if (!delayed || history_len < 1 || gemms <= 0 || hbm_bytes_per_s <= 0) return 0.0;
  // The forward's update rolls the 3 forward columns of each GEMM, the backward's the 2 others.
  const double elements = static_cast<double>(history_len) * kQuantizersPerGemm * gemms;
  return 2.0 * kFp32 * elements / hbm_bytes_per_s;
}

}  // namespace ladle::plan
