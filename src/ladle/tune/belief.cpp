#include "ladle/tune/belief.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "ladle/plan/bobyqa.hpp"
#include "ladle/plan/calibrate_memory.hpp"
#include "ladle/util/error.hpp"

namespace ladle::tune {

namespace {

constexpr int kMaxEvaluations = 3000;
constexpr double kTolerance = 1e-8;
// Step of the finite differences in log space (0.1% of a constant).
constexpr double kLogStep = 1e-3;
// The smallest residual spread a fit assumes: run-to-run noise of a step-time median is never
// exactly zero, and a zero would make the fit ignore the prior altogether.
constexpr double kMinResidualSigma = 1e-3;
// Added to the prior covariance's diagonal before it is inverted (log space).
constexpr double kRidge = 1e-9;
// Passes of the joint fit of the constants and the residual spread.
constexpr int kSpreadPasses = 3;

using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;

struct Range {
  std::vector<double> lo, hi;  // log space
};

Range log_ranges(const std::vector<std::string>& names) {
  Range r;
  for (const std::string& name : names) {
    for (const plan::CalibrationConstant& k : plan::calibration_constants(plan::Calibration{})) {
      if (k.name != name) continue;
      r.lo.push_back(std::log(std::max(k.min, 1e-12)));
      r.hi.push_back(std::log(k.max));
    }
  }
  LADLE_ASSERT(r.lo.size() == names.size(), "every fitted constant has a range");
  return r;
}

plan::Calibration calibration_at(const Belief& b, const Range& range,
                                 const std::vector<double>& x) {
  plan::Calibration c = b.calibration;
  for (size_t i = 0; i < x.size(); ++i) {
    plan::set_calibration_constant(c, b.names[i],
                                   std::exp(std::clamp(x[i], range.lo[i], range.hi[i])));
  }
  return c;
}

double log_predicted(const plan::Measurement& m, const plan::Calibration& c) {
  return std::log(plan::predict_tokens_per_s(m, c));
}

double log_ratio(const plan::Measurement& m, const plan::Calibration& c) {
  return log_predicted(m, c) - std::log(m.measured_tokens_per_s_per_gpu);
}

Matrix to_matrix(const std::vector<std::vector<double>>& v) {
  const auto n = static_cast<Eigen::Index>(v.size());
  Matrix m(n, n);
  for (Eigen::Index a = 0; a < n; ++a) {
    for (Eigen::Index b = 0; b < n; ++b)
      m(a, b) = v[static_cast<size_t>(a)][static_cast<size_t>(b)];
  }
  return m;
}

std::vector<std::vector<double>> to_vectors(const Matrix& m) {
  std::vector<std::vector<double>> out(static_cast<size_t>(m.rows()),
                                       std::vector<double>(static_cast<size_t>(m.cols())));
  for (Eigen::Index a = 0; a < m.rows(); ++a) {
    for (Eigen::Index b = 0; b < m.cols(); ++b)
      out[static_cast<size_t>(a)][static_cast<size_t>(b)] = m(a, b);
  }
  return out;
}

// d log(throughput) / d log(constant) for each constant at `x`: central differences inside the
// range, one-sided at a bound (the side that stays within the physical range).
Vector log_gradient(const Belief& b, const Range& range, const std::vector<double>& x,
                    const std::vector<const plan::Measurement*>& rows, size_t row) {
  Vector g(static_cast<Eigen::Index>(x.size()));
  for (size_t k = 0; k < x.size(); ++k) {
    std::vector<double> up = x;
    std::vector<double> down = x;
    up[k] = std::min(x[k] + kLogStep, range.hi[k]);
    down[k] = std::max(x[k] - kLogStep, range.lo[k]);
    const double span = up[k] - down[k];
    g(static_cast<Eigen::Index>(k)) =
        span > 0 ? (log_predicted(*rows[row], calibration_at(b, range, up)) -
                    log_predicted(*rows[row], calibration_at(b, range, down))) /
                       span
                 : 0.0;
  }
  return g;
}

// The maximum a posteriori constants: least squares of the rows' log residuals at spread `sigma`
// plus the prior's quadratic form, within the physical ranges.
struct MapFit {
  const Belief* prior;
  const Range* range;
  const std::vector<const plan::Measurement*>* rows;
  Matrix precision;  // inverse prior covariance
  double sigma = 0;
};

double map_objective(unsigned n, const double* x, double* /*gradient*/, void* data) {
  const MapFit& f = *static_cast<const MapFit*>(data);
  const std::vector<double> at(x, x + n);
  const plan::Calibration c = calibration_at(*f.prior, *f.range, at);
  double sum = 0;
  for (const plan::Measurement* m : *f.rows) {
    const double r = log_ratio(*m, c) / f.sigma;
    sum += r * r;
  }
  Vector d(static_cast<Eigen::Index>(n));
  for (unsigned i = 0; i < n; ++i) d(i) = at[i] - f.prior->log_values[i];
  return sum + d.dot(f.precision * d);
}

std::vector<double> fit_map(const Belief& prior, const Range& range,
                            const std::vector<const plan::Measurement*>& rows,
                            const Matrix& precision, double sigma) {
  std::vector<double> x = prior.log_values;
  const unsigned n = static_cast<unsigned>(x.size());
  if (n == 0 || rows.empty()) return x;
  MapFit problem{&prior, &range, &rows, precision, sigma};
  plan::BobyqaSettings settings{&range.lo, &range.hi, std::vector<double>(n), kTolerance, kMaxEvaluations};
  for (unsigned i = 0; i < n; ++i) settings.step[i] = std::min(0.3, 0.25 * (range.hi[i] - range.lo[i]));
  // Start a step inside the bounds: from a prior fitted at a bound (a GEMM efficiency of 1)
  // BOBYQA's first interpolation points leave that coordinate where it is.
  for (unsigned i = 0; i < n; ++i) {
    const double inset = 0.5 * settings.step[i];
    x[i] = std::clamp(x[i], range.lo[i] + inset, range.hi[i] - inset);
  }
  const nlopt_result result = plan::minimise_bobyqa(map_objective, &problem, settings, x);
  LADLE_ASSERT(result > 0 || result == NLOPT_ROUNDOFF_LIMITED || result == NLOPT_MAXEVAL_REACHED,
               "the tuning refit did not run");
  return x;
}

}  // namespace

double expected_improvement(double median, double sigma, double best) {
  if (best <= 0) return 0;
  if (sigma <= 0 || median <= 0) return std::max(0.0, median - best) / best;
  // E[(X - b)+] for log-normal X: m e^(s^2/2) Phi(d + s) - b Phi(d), d = log(m / b) / s.
  const double d = std::log(median / best) / sigma;
  return std::max(0.0, median / best * std::exp(0.5 * sigma * sigma) * plan::normal_cdf(d + sigma) - plan::normal_cdf(d));
}

Belief prior_belief(const plan::Calibration& calibration,
                    const std::vector<plan::Measurement>& training) {
  const plan::CalibrationFit fit = plan::fit_calibration(training, plan::Calibration{}, false);
  Belief b;
  b.calibration = calibration;
  for (const plan::FittedConstant& k : fit.constants) b.names.push_back(k.name);
  const Range range = log_ranges(b.names);
  for (size_t i = 0; i < b.names.size(); ++i) {
    double value = 0;
    for (const plan::CalibrationConstant& k : plan::calibration_constants(calibration)) {
      if (k.name == b.names[i]) value = k.value;
    }
    b.log_values.push_back(std::clamp(std::log(std::max(value, 1e-12)), range.lo[i], range.hi[i]));
  }
  // The fit's covariance, its standard deviations capped at half the physical range (beyond that
  // the training set says nothing the range does not) and floored at the leave-one-source-out
  // spread: the training set pins a constant for the stacks it measured, but a new cluster's
  // stack differs from them by about as much as one source differs from the others.
  Matrix cov = to_matrix(fit.covariance);
  Vector scale(cov.rows());
  const double floor = std::log1p(fit.leave_one_source_out_median_abs_error);
  for (Eigen::Index i = 0; i < cov.rows(); ++i) {
    const double sd = std::sqrt(std::max(cov(i, i), 1e-12));
    const double cap = 0.5 * (range.hi[static_cast<size_t>(i)] - range.lo[static_cast<size_t>(i)]);
    scale(i) = std::clamp(sd, std::min(floor, cap), std::min(3 * floor, cap)) / sd;
  }
  cov = scale.asDiagonal() * cov * scale.asDiagonal();
  b.covariance = to_vectors(cov);
  double sum = 0;
  for (const plan::FitRow& row : fit.rows) {
    const double e = std::log(row.in_sample / row.measured);
    sum += e * e;
  }
  b.residual_sigma = std::sqrt(sum / static_cast<double>(std::max<size_t>(1, fit.rows.size())));
  return b;
}

Belief update_belief(const Belief& prior, const std::vector<plan::Measurement>& measured,
                     double prior_weight) {
  if (measured.empty()) return prior;
  const Range range = log_ranges(prior.names);
  const Matrix prior_cov = to_matrix(prior.covariance);
  const auto n = static_cast<Eigen::Index>(prior.names.size());
  // A tiny ridge keeps the inverse finite where two constants are (nearly) perfectly correlated.
  const Matrix precision =
      (prior_cov + kRidge * Matrix::Identity(n, n)).ldlt().solve(Matrix::Identity(n, n));
  std::vector<const plan::Measurement*> rows;
  for (const plan::Measurement& m : measured) rows.push_back(&m);
  // The spread and the constants together: fit at a spread, pool the fit's residuals with the
  // prior's spread, refit at the pooled spread (a fixed point, reached in a few passes).
  const double prior_var = prior.residual_sigma * prior.residual_sigma;
  Belief b = prior;
  std::vector<double> x = prior.log_values;
  for (int pass = 0; pass < kSpreadPasses; ++pass) {
    x = fit_map(prior, range, rows, precision, std::max(b.residual_sigma, kMinResidualSigma));
    const plan::Calibration c = calibration_at(prior, range, x);
    b.residuals.clear();
    double sum = prior_weight * prior_var;
    for (const plan::Measurement* m : rows) {
      b.residuals.push_back(log_ratio(*m, c));
      sum += b.residuals.back() * b.residuals.back();
    }
    b.residual_sigma = std::max(kMinResidualSigma,
                                std::sqrt(sum / (prior_weight + static_cast<double>(rows.size()))));
  }
  b.log_values = x;
  b.calibration = calibration_at(prior, range, x);
  // Laplace approximation: the inverse of the Hessian of half the objective at the estimate.
  Matrix jacobian(static_cast<Eigen::Index>(rows.size()), n);
  for (size_t i = 0; i < rows.size(); ++i) {
    jacobian.row(static_cast<Eigen::Index>(i)) = log_gradient(prior, range, x, rows, i).transpose();
  }
  const Matrix information =
      jacobian.transpose() * jacobian / (b.residual_sigma * b.residual_sigma) + precision;
  b.covariance = to_vectors(information.ldlt().solve(Matrix::Identity(n, n)));
  return b;
}

double predictive_sigma(const Belief& belief, const plan::Measurement& m) {
  const Range range = log_ranges(belief.names);
  const Vector g = log_gradient(belief, range, belief.log_values, {&m}, 0);
  const double parametric = std::max(0.0, g.dot(to_matrix(belief.covariance) * g));
  return std::sqrt(parametric + belief.residual_sigma * belief.residual_sigma);
}

}  // namespace ladle::tune
