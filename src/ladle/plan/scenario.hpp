#pragma once
// scenario.hpp: one training scenario (what is trained, on what, at which workload, under which
// stack and calibration) and the checking context derived from it. predict, plan, calibrate,
// check, tune and the site build one instead of threading its parts through their signatures.

#include <string>
#include <vector>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/model/model_spec.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/recipe/recipe_io.hpp"

namespace ladle::plan {

/// Where a value a report prints came from: "job.sh:14 --tensor-model-parallel-size" (the job's
/// script or --args), "--row-tokens", "base recipe NAME", "ladle's default", ...
struct ValueSource {
  std::string name;    ///< a knob key (tp) or workload field (row_tokens)
  std::string value;   ///< as the report prints it
  std::string source;
};

/// A model trained on a cluster at a workload (its stack in `workload.stack_generation`) and priced
/// under a calibration. Builders fill it in one place (cli/scenario_options.hpp from flags and a
/// job's arguments, scenario_from_recipe from a recipe); the checking context is derived, never
/// assembled by hand.
struct Scenario {
  ModelSpec model;
  ModelCosts costs;  ///< of `model` at workload.row_tokens and image_tokens (price_model)
  Cluster cluster;
  Workload workload;
  Calibration calibration;
  /// Where the model, workload and knobs came from, in report order (`sources:` lines).
  std::vector<ValueSource> sources;

  /// The context the layout rules check a layout of this scenario against (plan::checking_context:
  /// GPUs, NVLink domain, rows, batch, the model's layers, the precisions the GPU runs).
  layout::LayoutContext context() const;
  /// Sets `costs` from the model and the workload's row length and image tokens.
  void price_model();
};

/// The scenario a recipe describes: its model, GPUs and instance, workload, and the Megatron-Core
/// release its stack.megatron_lm names (when stacks.yaml knows it), priced; the layout is not read
/// (run_from_recipe reads and checks it) and the calibration is left to the caller. Throws
/// Error(input) at the recipe's field for an unknown model, GPU or instance.
Scenario scenario_from_recipe(const recipe::LoadedRecipe& recipe);

}  // namespace ladle::plan
