#include "ladle/plan/cost_mamba.hpp"

namespace ladle::plan {

double mamba_activation_elements(const ModelCosts& c, double tp, double input_elements, double linear_scale) {
  const double inner = static_cast<double>(c.mamba_inner);
  const double conv = static_cast<double>(c.mamba_conv);
  const double heads = static_cast<double>(c.mamba_heads);
  return input_elements + (inner + conv + heads) / tp + conv / tp + inner / tp + linear_scale * inner / tp;
}

}  // namespace ladle::plan
