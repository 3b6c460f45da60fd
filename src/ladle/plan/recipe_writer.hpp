#pragma once
// recipe_writer.hpp: the recipe for a planned layout: status planned, the layout block, the launch
// script for slime, miles or Megatron-LM, and the `predicted:` block.

#include "ladle/launch/base.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/model_spec.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/plan/prediction.hpp"
#include "ladle/plan/scenario.hpp"
#include "ladle/recipe/recipe.hpp"

namespace ladle::plan {

/// The `predicted:` block of a recipe for `prediction` (memory of the worst stage, GB = GiB here as
/// in the GPU's marketed figure; step-time parts in seconds, zero parts left out).
Predicted predicted_block(const Prediction& prediction, const Calibration& calibration);

/// A planned recipe for `prediction` of `scenario` on `engine`: the base's workload, arguments and environment,
/// the layout's arguments, and as `run:` the complete job (launch/job_script.hpp; with `slurm` an
/// sbatch script). Its correctness block names the base as the reference (`ladle check` R19
/// compares the two). Throws Error(input) when the base cannot be written for `engine`.
Recipe planned_recipe(const Scenario& scenario, const Prediction& prediction, layout::Engine engine,
                      const launch::Base& base, bool slurm = false);

}  // namespace ladle::plan
