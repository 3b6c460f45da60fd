#include "ladle/plan/cost_linear_attention.hpp"

namespace ladle::plan {

double linear_attention_activation_elements(const ModelCosts& c, double tp, double input_elements,
                                            double linear_scale) {
  const double key = static_cast<double>(c.linear_key);
  const double value = static_cast<double>(c.linear_value);
  const double heads = static_cast<double>(c.linear_heads);
  return input_elements + (2 * key + 2 * value + 2 * heads) / tp + (2 * key + value) / tp + value / tp +
         linear_scale * value / tp;
}

}  // namespace ladle::plan
