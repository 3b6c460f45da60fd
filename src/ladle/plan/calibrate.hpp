#pragma once
// calibrate.hpp: fits the calibration's few free constants to measured recipes, and reports each
// recipe's in-sample and leave-one-out error.

#include <string>
#include <vector>

#include "ladle/layout/layout.hpp"
#include "ladle/model/model_spec.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/recipe/recipe_io.hpp"

namespace ladle::plan {

/// One measured run: what ran, where, and its tokens/s per GPU.
struct Measurement {
  std::string name;  ///< the recipe's path or a label
  ModelSpec model;
  ModelCosts costs;
  Layout layout;     ///< resolved
  Cluster cluster;
  Workload workload;
  double measured_tokens_per_s_per_gpu = 0;
};

/// The measurement a recipe with a `result:` records. Throws Error(input) at the recipe's field
/// when it has no result, names an unknown model, GPU or instance, or its layout is invalid.
Measurement measurement_from_recipe(const recipe::LoadedRecipe& recipe);

/// Predicted tokens/s per GPU of a measurement under `calibration`.
double predict_tokens_per_s(const Measurement& m, const Calibration& calibration);

/// One recipe's figures in a fit.
struct FitRow {
  std::string name;
  double measured = 0;
  double in_sample = 0;      ///< predicted with the constants fitted on all recipes
  double leave_one_out = 0;  ///< predicted with the constants fitted on the others
  double in_sample_error() const { return in_sample / measured - 1; }
  double leave_one_out_error() const { return leave_one_out / measured - 1; }
};

/// A fitted calibration and how well it does.
struct CalibrationFit {
  Calibration calibration;
  std::vector<FitRow> rows;
};

/// Fits the constants marked `fitted` (calibration_constants) by least squares on log(predicted /
/// measured), with a weak pull towards `prior` (so that a constant the data cannot see keeps its
/// prior value), within each constant's bounds. Deterministic (Nelder-Mead from the prior).
/// Throws Error(usage) for an empty list.
CalibrationFit fit_calibration(const std::vector<Measurement>& measurements, const Calibration& prior);

}  // namespace ladle::plan
