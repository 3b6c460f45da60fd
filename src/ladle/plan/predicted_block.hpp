#pragma once
// predicted_block.hpp: a recipe's `predicted:` block for a prediction, as a planned recipe
// (launch/planned_recipe.hpp) and the site's sweep write it.

#include "ladle/plan/calibration.hpp"
#include "ladle/plan/prediction.hpp"
#include "ladle/recipe/recipe.hpp"

namespace ladle::plan {

/// The `predicted:` block of a recipe for `prediction` (memory of the worst stage, GB = GiB here as
/// in the GPU's marketed figure; step-time parts in seconds, zero parts left out).
Predicted predicted_block(const Prediction& prediction, const Calibration& calibration);

}  // namespace ladle::plan
