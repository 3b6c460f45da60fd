#include "ladle/plan/cost_grad_accum_fusion.hpp"

#include <algorithm>

namespace ladle::plan {

double unfused_grad_accum_seconds(bool fused, double trainable_linear_params, double hbm_bytes_per_s) {
  if (fused || hbm_bytes_per_s <= 0 || trainable_linear_params <= 0) return 0.0;
  // main_grad.add_(grad): read the 16-bit gradient, read and write the FP32 main gradient.
  constexpr double kAddPassBytes = 2.0 + 4.0 + 4.0;
  return kAddPassBytes * trainable_linear_params / hbm_bytes_per_s;
}

double largest_weight_shard(const ModelCosts& costs, const Layout& layout, bool last_stage) {
  const double tp = static_cast<double>(std::max<int64_t>(1, layout.tp));
  const double etp = static_cast<double>(std::max<int64_t>(1, layout.etp));
  double largest = last_stage ? costs.head_params / tp : 0.0;
  for (const LayerKind& kind : costs.kinds) {
    for (const Gemm& g : kind.gemms) {
      const double elements = static_cast<double>(g.out) * static_cast<double>(g.in);
      const bool split = g.split == GemmSplit::tp_out || g.split == GemmSplit::tp_in;
      // The inventory lists gate and up apart; Megatron-Core's linear_fc1 holds both.
      const bool fc1 = costs.gated_mlp && (g.module == GemmModule::dense_mlp || g.module == GemmModule::shared_expert);
      largest = std::max(largest, (fc1 ? 2.0 : 1.0) * elements / (split ? tp : 1.0));
    }
    for (const Gemm& g : kind.expert_gemms) {
      const double elements = static_cast<double>(g.out) * static_cast<double>(g.in);
      largest = std::max(largest, (costs.gated_mlp ? 2.0 : 1.0) * elements / etp);
    }
  }
  return largest;
}

double unfused_grad_accum_bytes(bool fused, double largest_weight_params, double grad_bytes_per_param) {
  if (fused) return 0.0;
  return grad_bytes_per_param * largest_weight_params;
}

}  // namespace ladle::plan
