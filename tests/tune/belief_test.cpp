// Tests of the tuning belief: the log-normal expected improvement against a quadrature, and the
// refit regularised toward the fidelity fit's prior, which moves the constants the measured
// layouts have leverage on with fewer measurements than constants and narrows the predictive
// spread.
#include "ladle/tune/belief.hpp"

#include <cmath>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/measurements.hpp"
#include "support/test_support.hpp"

namespace ladle::tune {
namespace {

// E[max(X - best, 0)] / best for X = median exp(sigma Z) by the trapezoid rule over Z.
double quadrature_ei(double median, double sigma, double best) {
  constexpr int kSteps = 200000;
  constexpr double kSpan = 12;
  double sum = 0;
  for (int i = 0; i <= kSteps; ++i) {
    const double z = -kSpan + 2 * kSpan * i / kSteps;
    const double w = (i == 0 || i == kSteps) ? 0.5 : 1.0;
    sum += w * std::max(0.0, median * std::exp(sigma * z) - best) * std::exp(-0.5 * z * z);
  }
  return sum * (2 * kSpan / kSteps) / std::sqrt(2 * M_PI) / best;
}

TEST(Belief, ExpectedImprovementOfALogNormalBelief) {
  for (const auto& [median, sigma] :
       {std::pair{100.0, 0.1}, {80.0, 0.3}, {130.0, 0.05}, {60.0, 0.6}}) {
    EXPECT_NEAR(expected_improvement(median, sigma, 100), quadrature_ei(median, sigma, 100), 1e-6)
        << median << " " << sigma;
  }
  EXPECT_NEAR(expected_improvement(120, 0, 100), 0.2, 1e-12);
  EXPECT_EQ(expected_improvement(80, 0, 100), 0);
  EXPECT_EQ(expected_improvement(80, 0.2, 0), 0);
  EXPECT_LT(expected_improvement(80, 0.05, 100), expected_improvement(80, 0.2, 100));
}

struct Flash {
  plan::Measurement shape;
  Flash() {
    shape.model = model::load_model("glm-4.7-flash");
    shape.cluster = plan::make_cluster("h200", 8, "");
    shape.workload = plan::Workload{8192, 128, plan::Precision::bf16};
    shape.costs = plan::model_costs(shape.model, 8192);
  }
  plan::Measurement at(const std::string& spec) const {
    plan::Measurement m = shape;
    m.layout = layout::resolve_layout(layout::parse_layout_spec(spec),
                                      layout::LayoutContext{8, 8, 8192, 128});
    return m;
  }
};

constexpr const char* kMeasured[] = {
    "tp=4,pp=1,cp=1,ep=8,etp=1,dp=2,sp=on,recompute=full:uniform:1,offload=1,overlap=on,"
    "precision_aware=on,max_tokens=32768,rows_per_mb=4",
    "tp=1,pp=1,cp=2,ep=8,etp=1,dp=4,sp=off,recompute=none,offload=0,overlap=off,"
    "precision_aware=on,max_tokens=4096,rows_per_mb=1,dispatcher=flex",
    "tp=2,pp=1,cp=1,ep=8,etp=1,dp=4,sp=on,recompute=none,offload=0,overlap=off,"
    "precision_aware=on,max_tokens=8192,rows_per_mb=1,dispatcher=flex",
};
constexpr const char* kUnmeasured =
    "tp=1,pp=1,cp=4,ep=8,etp=1,dp=2,sp=off,recompute=none,offload=0,overlap=off,"
    "precision_aware=on,max_tokens=2048,rows_per_mb=1,dispatcher=flex";

double constant(const plan::Calibration& c, const std::string& name) {
  for (const auto& k : plan::calibration_constants(c)) {
    if (k.name == name) return k.value;
  }
  return 0;
}

TEST(Belief, ARefitOnFewerTrialsThanConstantsMovesTheConstantsItSees) {
  const Belief prior =
      prior_belief(plan::default_calibration(), plan::embedded_measurements().runs);
  ASSERT_EQ(prior.names.size(), plan::fitted_constant_count());
  EXPECT_GT(prior.residual_sigma, 0.05);
  // A stack whose GEMMs and host Adam are slower than the prior says, by two to three of the
  // prior's standard deviations (the training set pins each to about 6-7%).
  plan::Calibration truth = plan::default_calibration();
  plan::set_calibration_constant(truth, "gemm_efficiency", 0.85 * truth.gemm_efficiency);
  plan::set_calibration_constant(truth, "cpu_adam_params_per_s", 0.8 * truth.cpu_adam_params_per_s);
  const Flash flash;
  std::vector<plan::Measurement> measured;
  for (const char* spec : kMeasured) {
    plan::Measurement m = flash.at(spec);
    ASSERT_FALSE(
        layout::find_layout_violation(m.layout, m.model, layout::LayoutContext{8, 8, 8192, 128}))
        << spec;
    m.measured_tokens_per_s_per_gpu = plan::predict_tokens_per_s(m, truth);
    measured.push_back(m);
  }
  ASSERT_LT(measured.size(), plan::fitted_constant_count());
  const Belief after = update_belief(prior, measured, 2);
  EXPECT_EQ(update_belief(prior, {}, 2), prior);
  for (const char* name : {"gemm_efficiency", "cpu_adam_params_per_s"}) {
    const double gap =
        std::fabs(std::log(constant(prior.calibration, name) / constant(truth, name)));
    const double left =
        std::fabs(std::log(constant(after.calibration, name) / constant(truth, name)));
    // Toward the truth; how far depends on how tight the training set makes the prior.
    EXPECT_LT(left, gap) << name << ": " << constant(after.calibration, name);
  }
  EXPECT_LT(after.residual_sigma, prior.residual_sigma);
  ASSERT_EQ(after.residuals.size(), measured.size());
  // An unmeasured layout of the same family: predicted closer to the truth, with a narrower
  // spread, which still covers the remaining error.
  const plan::Measurement next = flash.at(kUnmeasured);
  const double actual = plan::predict_tokens_per_s(next, truth);
  const double before_error =
      std::fabs(std::log(plan::predict_tokens_per_s(next, prior.calibration) / actual));
  const double after_error =
      std::fabs(std::log(plan::predict_tokens_per_s(next, after.calibration) / actual));
  // Closer, not by a set factor: the flex dispatcher's per-layer sync (2.8 ms as fitted)
  // dominates this family's step and the truth leaves it alone, so the GEMM rate the truth does
  // change is a few percent of the unmeasured layout's prediction and three trials pin it loosely.
  EXPECT_LT(after_error, before_error) << "before " << before_error << ", after " << after_error;
  EXPECT_LT(predictive_sigma(after, next), predictive_sigma(prior, next));
  EXPECT_GT(predictive_sigma(after, next), after_error);
  EXPECT_GE(predictive_sigma(prior, next), prior.residual_sigma);
}

}  // namespace
}  // namespace ladle::tune
