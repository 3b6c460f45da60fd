#include "ladle/plan/cost_linear_attention.hpp"

namespace ladle::plan {

double linear_attention_activation_elements(const ModelCosts& c, double tp, double input_elements,
                                            double linear_scale) {
  const double key = static_cast<double>(c.linear_key);
  const double value = static_cast<double>(c.linear_value);
  const double heads = static_cast<double>(c.linear_heads);
  // Gated DeltaNet's in-projections end in b and a, one per head each; Kimi Delta Attention's in
  // beta (one per head) and the decay f_b, one per key channel.
  const double gates = c.linear_kda ? heads + key : 2 * heads;
  return input_elements + (2 * key + 2 * value + gates) / tp + (2 * key + value) / tp + value / tp +
         linear_scale * value / tp;
}

}  // namespace ladle::plan
