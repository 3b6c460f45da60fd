#include "ladle/plan/calibrate.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/measurements.hpp"
#include "ladle/recipe/catalog.hpp"
#include "support/measurement_support.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

Measurement synthetic(const std::string& model_name, int64_t gpus, const std::string& spec, const Calibration& truth,
                      const std::string& source = "synthetic") {
  Measurement m = test::run_of(model_name, "h200", gpus, spec);
  m.source = source;
  m.measured_tokens_per_s_per_gpu = predict_tokens_per_s(m, truth);
  return m;
}

Calibration synthetic_truth() {
  Calibration truth;
  truth.gemm_efficiency = 0.55;
  truth.attention_efficiency = 0.5;
  truth.cpu_adam_params_per_s = 4e9;
  truth.moe_layer_sync_s = 1e-3;
  return truth;
}

std::vector<Measurement> synthetic_set(const Calibration& truth) {
  return {
      synthetic("glm-4.7-flash", 8, "tp=1,ep=8,recompute=full,rows_per_mb=2", truth, "a"),
      synthetic("glm-4.7-flash", 8, "tp=2,sp=on,ep=8,recompute=full,offload=1,overlap=on,precision_aware=on", truth, "a"),
      synthetic("glm-4.7-flash", 8, "tp=1,ep=4,recompute=full", truth, "b"),
      synthetic("qwen3-30b-a3b", 8, "tp=1,ep=8,recompute=selective,offload=1,precision_aware=on", truth, "b"),
      synthetic("qwen3-30b-a3b", 16, "tp=1,ep=16,dispatcher=flex", truth, "c"),
      synthetic("qwen3-30b-a3b", 16, "tp=1,ep=8,dispatcher=flex,recompute=full", truth, "c"),
      synthetic("llama-3.1-8b", 8, "tp=1,cp=2", truth, "d"),
      synthetic("llama-3.1-70b", 16, "tp=8,sp=on,pp=2,recompute=full", truth, "d"),
      synthetic("llama-3.1-8b", 16, "tp=1,dp=16,overlap_grad=on,overlap_param=on", truth, "a"),
      synthetic("llama-3.1-70b", 32, "tp=8,sp=on,pp=2,tp_overlap=on,recompute=full", truth, "b"),
      synthetic("llama-3.1-8b", 16, "tp=2,sp=on,tp_overlap=on,overlap_grad=on", truth, "c"),
      synthetic("qwen3-30b-a3b", 16, "tp=1,ep=8,dispatcher=flex,overlap_grad=on,overlap_param=on",
                truth, "d"),
      synthetic("qwen3-30b-a3b", 16, "tp=1,ep=16,dispatcher=flex,a2a_overlap=on", truth, "a"),
      synthetic("qwen3-30b-a3b", 8, "tp=1,ep=8,cuda_graph=transformer_engine,graph_modules=attn",
                truth, "b"),
  };
}

// The synthetic set with source "d" measured at half the model's speed.
std::vector<Measurement> synthetic_set_with_d_slow(const Calibration& truth) {
  std::vector<Measurement> data = synthetic_set(truth);
  for (Measurement& m : data) {
    if (m.source == "d") m.measured_tokens_per_s_per_gpu /= 2;
  }
  return data;
}

TEST(Calibrate, RecoversConstantsFromTheirOwnPredictions) {
  const Calibration truth = synthetic_truth();
  const std::vector<Measurement> data = synthetic_set(truth);
  const CalibrationFit fit = fit_calibration(data, Calibration{});
  for (const FitRow& row : fit.rows) EXPECT_NEAR(row.in_sample_error(), 0.0, 0.01) << row.name;
  EXPECT_NEAR(fit.calibration.gemm_efficiency, 0.55, 0.05);
  ASSERT_EQ(fit.calibration.fitted_on.size(), data.size());
  ASSERT_EQ(fit.sources.size(), 4u);
  ASSERT_EQ(fit.constants.size(), fitted_constant_count());
  for (const FittedConstant& k : fit.constants) {
    EXPECT_LE(k.min, k.low) << k.name;
    EXPECT_LE(k.low, k.value) << k.name;
    EXPECT_LE(k.value, k.high) << k.name;
    EXPECT_LE(k.high, k.max) << k.name;
  }
  EXPECT_EQ(fit.covariance.size(), fit.constants.size());
}

// One run that ran at half the model's speed for a cost the model leaves out must not pull the
// constants towards it: under the soft-L1 loss the other runs stay near their truth and the odd
// run keeps its error, where least squares spreads it over every run (8% at most against 16%).
TEST(Calibrate, OneUnexplainedRunDoesNotPullTheFit) {
  const Calibration truth = synthetic_truth();
  std::vector<Measurement> data = synthetic_set(truth);
  data[6].measured_tokens_per_s_per_gpu *= 0.5;
  const CalibrationFit fit = fit_calibration(data, Calibration{}, false);
  for (const FitRow& row : fit.rows) {
    if (row.name == data[6].name) {
      EXPECT_GT(row.in_sample_error(), 0.8) << row.name;
    } else {
      EXPECT_NEAR(row.in_sample_error(), 0.0, 0.09) << row.name;  // least squares: up to 16%
    }
  }
}

// Megatron-LM's --tp-comm-overlap and torchtitan's async TP are two implementations: each stack's
// runs answer to their own hidden share and not to the other's.
TEST(Calibrate, TpOverlapSharesAreFittedPerImplementation) {
  Measurement m = test::run_of("llama-3.1-70b", "h100", 64, "tp=8,sp=on,tp_overlap=on,recompute=full");
  Calibration low_async, high_async;
  low_async.async_tp_hidden_fraction = 0.05;
  high_async.async_tp_hidden_fraction = 1.0;
  EXPECT_DOUBLE_EQ(predict_tokens_per_s(m, low_async), predict_tokens_per_s(m, high_async));
  Calibration low_mcore = low_async, high_mcore = low_async;
  low_mcore.tp_overlap_hidden_fraction = 0.05;
  high_mcore.tp_overlap_hidden_fraction = 1.0;
  EXPECT_LT(predict_tokens_per_s(m, low_mcore), predict_tokens_per_s(m, high_mcore));
  m.workload.stack = Stack::torchtitan;
  EXPECT_DOUBLE_EQ(predict_tokens_per_s(m, low_mcore), predict_tokens_per_s(m, high_mcore));
  EXPECT_LT(predict_tokens_per_s(m, low_async), predict_tokens_per_s(m, high_async));
}

TEST(Calibrate, LeaveOneSourceOutPredictsWithTheOtherSourcesFit) {
  // Source "d" ran twice as slow as the model says: the fit without it must not see that, so its
  // leave-one-source-out predictions stay near the truth while its in-sample error shrinks.
  const std::vector<Measurement> data = synthetic_set_with_d_slow(synthetic_truth());
  const CalibrationFit fit = fit_calibration(data, Calibration{});
  std::vector<Measurement> others;
  for (const Measurement& m : data) {
    if (m.source != "d") others.push_back(m);
  }
  const Calibration without_d = fit_calibration(others, Calibration{}, false).calibration;
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i].source != "d") continue;
    EXPECT_NEAR(fit.rows[i].leave_one_source_out / predict_tokens_per_s(data[i], without_d), 1.0, 1e-9);
    EXPECT_GT(fit.rows[i].leave_one_source_out_error(), 0.8) << "about twice the measured value";
    EXPECT_LT(std::fabs(fit.rows[i].in_sample_error()), std::fabs(fit.rows[i].leave_one_source_out_error()));
  }
  EXPECT_GT(fit.leave_one_source_out_worst_abs_error, 0.9);
}

// A refit that starts from a previous fit (`ladle calibrate --prior data/calibration.yaml`) must
// not let that fit tell a held-out fold what the held-out runs measured: the folds whose runs the
// prior's fitted_on names start from the built-in priors, so the held-out errors are those of a
// fit from the built-in priors. The same prior with its fitted_on cleared (a prior fitted
// elsewhere) is taken as it is, and then the folds do see source "d" through it.
TEST(Calibrate, HeldOutFoldsDoNotStartFromAFitThatSawThem) {
  const std::vector<Measurement> data = synthetic_set_with_d_slow(synthetic_truth());
  const CalibrationFit blind = fit_calibration(data, Calibration{});
  const Calibration seen = blind.calibration;
  ASSERT_TRUE(prior_fitted_on(seen, data[6].name));
  EXPECT_FALSE(prior_fitted_on(seen, data[6].name.substr(0, data[6].name.size() - 1)));
  const CalibrationFit refit = fit_calibration(data, seen);
  ASSERT_EQ(refit.rows.size(), blind.rows.size());
  for (size_t i = 0; i < data.size(); ++i) {
    EXPECT_NEAR(refit.rows[i].leave_one_source_out / blind.rows[i].leave_one_source_out, 1.0, 1e-9) << data[i].name;
    EXPECT_NEAR(refit.rows[i].leave_one_out / blind.rows[i].leave_one_out, 1.0, 1e-9) << data[i].name;
  }
  Calibration elsewhere = seen;
  elsewhere.fitted_on.clear();
  const CalibrationFit leaky = fit_calibration(data, elsewhere);
  double moved = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    moved = std::max(moved, std::fabs(leaky.rows[i].leave_one_source_out / blind.rows[i].leave_one_source_out - 1));
  }
  EXPECT_GT(moved, 1e-4);
}

TEST(Calibrate, RefusesFewerRunsThanConstants) {
  std::vector<Measurement> data = synthetic_set(synthetic_truth());
  data.resize(fitted_constant_count() - 1);
  EXPECT_LADLE_ERROR(fit_calibration(data, Calibration{}), usage,
                     fmt::format("calibrate needs at least {} measured runs for its {} fitted constants, got {}",
                                 fitted_constant_count(), fitted_constant_count(), fitted_constant_count() - 1));
}

TEST(Calibrate, EmbeddedDefaultIsTheFitOnTheTrainingSet) {
  const CalibrationFit fit = fit_calibration(embedded_measurements().runs, Calibration{}, false);
  for (const CalibrationConstant& k : calibration_constants(fit.calibration)) {
    if (!k.fitted) continue;
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

TEST(Calibrate, NoFittedConstantOutsideItsRange) {
  for (const CalibrationConstant& k : calibration_constants(default_calibration())) {
    EXPECT_GE(k.value, k.min) << k.name;
    EXPECT_LE(k.value, k.max) << k.name;
  }
}

TEST(Calibrate, ReadsAndRejectsCalibrationFiles) {
  const Calibration c = read_calibration("constants:\n  gemm_efficiency: 0.5\n", "c.yaml");
  EXPECT_DOUBLE_EQ(c.gemm_efficiency, 0.5);
  EXPECT_EQ(read_calibration(write_calibration(c, {"header"}), "round.yaml").gemm_efficiency, 0.5);
  EXPECT_LADLE_ERROR(read_calibration("constants:\n  gemm_eficiency: 0.5\n", "c.yaml"), input,
                     "c.yaml:2:3: error: constants.gemm_eficiency: unknown constant (did you mean 'gemm_efficiency'?)");
  EXPECT_LADLE_ERROR(read_calibration("constants:\n  gemm_efficiency: 2\n", "c.yaml"), input,
                     "c.yaml:2:20: error: constants.gemm_efficiency: 2 is outside 0.4..1 fraction");
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
