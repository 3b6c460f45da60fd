#include "ladle/plan/calibrate.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/recipe/catalog.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

Measurement synthetic(const std::string& model_name, int64_t gpus, const std::string& spec, const Calibration& truth) {
  Measurement m;
  m.name = model_name + " " + spec;
  m.model = model::load_model(model_name);
  m.costs = model_costs(m.model, 8192);
  m.cluster = make_cluster("h200", gpus);
  m.layout = layout::resolve_layout(layout::parse_layout_spec(spec), layout::LayoutContext{gpus, 8, 8192, 128});
  m.measured_tokens_per_s_per_gpu = predict_tokens_per_s(m, truth);
  return m;
}

TEST(Calibrate, RecoversConstantsFromTheirOwnPredictions) {
  Calibration truth;
  truth.gemm_efficiency = 0.55;
  truth.cpu_adam_params_per_s = 4e9;
  std::vector<Measurement> data = {
      synthetic("glm-4.7-flash", 8, "tp=1,ep=8,recompute=full,rows_per_mb=2", truth),
      synthetic("glm-4.7-flash", 8, "tp=2,sp=on,ep=8,recompute=full,offload=1,overlap=on,precision_aware=on", truth),
      synthetic("glm-4.7-flash", 8, "tp=1,ep=4,recompute=full", truth),
      synthetic("qwen3-30b-a3b", 8, "tp=1,ep=8,recompute=selective,offload=1,precision_aware=on", truth),
  };
  const CalibrationFit fit = fit_calibration(data, Calibration{});
  for (const FitRow& row : fit.rows) EXPECT_NEAR(row.in_sample_error(), 0.0, 0.01) << row.name;
  EXPECT_NEAR(fit.calibration.gemm_efficiency, 0.55, 0.05);
  ASSERT_EQ(fit.calibration.fitted_on.size(), data.size());
}

TEST(Calibrate, EmbeddedDefaultIsTheFitOnTheCatalog) {
  std::vector<Measurement> data;
  for (const recipe::LoadedRecipe& r : recipe::load_embedded_catalog()) {
    if (r.recipe.result) data.push_back(measurement_from_recipe(r));
  }
  const CalibrationFit fit = fit_calibration(data, Calibration{});
  for (const CalibrationConstant& k : calibration_constants(fit.calibration)) {
    const double embedded = [&] {
      for (const CalibrationConstant& e : calibration_constants(default_calibration())) {
        if (e.name == k.name) return e.value;
      }
      return 0.0;
    }();
    EXPECT_NEAR(embedded / k.value, 1.0, 1e-3) << k.name << ": data/calibration.yaml is stale; "
                                                << "refit with `ladle calibrate --out data/calibration.yaml`";
  }
}

TEST(Calibrate, ReadsAndRejectsCalibrationFiles) {
  const Calibration c = read_calibration("constants:\n  gemm_efficiency: 0.5\n", "c.yaml");
  EXPECT_DOUBLE_EQ(c.gemm_efficiency, 0.5);
  EXPECT_EQ(read_calibration(write_calibration(c, {"header"}), "round.yaml").gemm_efficiency, 0.5);
  EXPECT_LADLE_ERROR(read_calibration("constants:\n  gemm_eficiency: 0.5\n", "c.yaml"), input,
                     "c.yaml:2:3: error: constants.gemm_eficiency: unknown constant (did you mean 'gemm_efficiency'?)");
  EXPECT_LADLE_ERROR(read_calibration("constants:\n  gemm_efficiency: 2\n", "c.yaml"), input,
                     "c.yaml:2:20: error: constants.gemm_efficiency: 2 is outside 0.2..0.95 fraction");
  EXPECT_LADLE_ERROR(read_calibration("constants:\n  gemm_efficiency: fast\n", "c.yaml"), input,
                     "expected a number, got 'fast'");
  EXPECT_LADLE_ERROR(read_calibration("gemm_efficiency: 0.5\n", "c.yaml"), input, "expected a 'constants:' map");
}

TEST(Calibrate, RejectsARecipeWithoutResult) {
  recipe::LoadedRecipe r = recipe::find_recipe("attune-tp1-pp1-ep8");
  r.recipe.result.reset();
  EXPECT_LADLE_ERROR(measurement_from_recipe(r), input, "has no measured result to calibrate on");
}

}  // namespace
}  // namespace ladle::plan
