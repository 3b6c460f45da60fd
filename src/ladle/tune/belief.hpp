#pragma once
// belief.hpp: what the loop believes about the time model's fitted constants, and so about the
// throughput of a layout it has not measured. The prior is the fidelity fit of `ladle calibrate`
// (the embedded constants, their covariance and the residual spread of the public training set);
// after each round the constants are refitted on the trials measured so far by a fit regularised
// toward that prior (maximum a posteriori, NLopt BOBYQA in log space within each constant's
// physical range), so they move from the first round on, as far as the measured layouts give
// them leverage. A layout's predicted throughput is log-normal: its median is the prediction
// under the refitted constants and its log-variance g' C g + s^2, with g the prediction's
// sensitivity to the log constants, C their posterior covariance and s the residual spread;
// both narrow as measurements accumulate.

#include <string>
#include <vector>

#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/calibration.hpp"

namespace ladle::tune {

/// The constants as estimated, with their uncertainty.
struct Belief {
  plan::Calibration calibration;   ///< the estimate
  std::vector<std::string> names;  ///< the fitted constants (calibration_constants order)
  std::vector<double> log_values;  ///< log of each, in `names` order
  std::vector<std::vector<double>> covariance;  ///< of the log constants
  /// Spread of log(measured / predicted) a layout keeps once the constants are right (the
  /// model's structural error on this stack, plus run-to-run noise).
  double residual_sigma = 0;
  /// log(predicted / measured) of each measured trial under the estimate.
  std::vector<double> residuals;
  bool operator==(const Belief&) const = default;
};

/// The prior: `calibration`'s constants with the covariance of the fidelity fit on `training`
/// (plan::fit_calibration from the built-in priors; each standard deviation at most half the
/// constant's physical range in log space, where the training set does not pin a constant) and
/// that fit's in-sample residual spread. Throws Error(usage) when `training` holds fewer runs than
/// constants.
Belief prior_belief(const plan::Calibration& calibration,
                    const std::vector<plan::Measurement>& training);

/// The belief after `measured` (own trials): the constants most probable under the prior and the
/// trials at the residual spread, which pools the prior's spread (counted as `prior_weight`
/// residuals) with the trials' residuals at those constants (the two solved together); the
/// covariance is the posterior's (Laplace approximation at the estimate). With no trial the
/// prior itself.
Belief update_belief(const Belief& prior, const std::vector<plan::Measurement>& measured,
                     double prior_weight);

/// Standard deviation of log(throughput) of `m`'s layout under `belief` (see the file comment).
double predictive_sigma(const Belief& belief, const plan::Measurement& m);

/// E[max(X - best, 0)] / best for log X ~ Normal(log median, sigma^2): the expected improvement
/// over `best` of a log-normal belief (0 when best <= 0; the plain gain when sigma <= 0).
double expected_improvement(double median, double sigma, double best);

}  // namespace ladle::tune
