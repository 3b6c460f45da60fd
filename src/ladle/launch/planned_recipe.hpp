#pragma once
// planned_recipe.hpp: the recipe for a planned layout: status planned, the layout block, the launch
// script for slime, miles or Megatron-LM (job_script.hpp), and the `predicted:` block.

#include "ladle/launch/base.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/plan/prediction.hpp"
#include "ladle/plan/scenario.hpp"
#include "ladle/recipe/recipe.hpp"

namespace ladle::launch {

/// A planned recipe for `prediction` of `scenario` on `engine`: the base's workload, arguments and
/// environment, the layout's arguments, and as `run:` the complete job (with `slurm` an sbatch
/// script). Its correctness block names the base as the reference (`ladle check` R19 compares the
/// two). Throws Error(input) when the base cannot be written for `engine`.
Recipe planned_recipe(const plan::Scenario& scenario, const Prediction& prediction, layout::Engine engine,
                      const Base& base, bool slurm = false);

}  // namespace ladle::launch
