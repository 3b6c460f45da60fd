#include "ladle/plan/calibrate_memory.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlopt.h>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/util/error.hpp"

namespace ladle::plan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kInterval95 = 1.96;
constexpr int kMaxEvaluations = 400;
// The residual spread's range in the fit (log ratio): 1% to a factor of e^2.
constexpr double kSigmaMin = 0.01;
constexpr double kSigmaMax = 2.0;

struct KindName {
  PeakMemoryKind kind;
  const char* name;
};
constexpr KindName kKinds[] = {
    {PeakMemoryKind::max_reserved, "max reserved"},
    {PeakMemoryKind::max_allocated, "max allocated"},
    {PeakMemoryKind::device_used, "device used"},
};

double peak_bytes(const MemoryEstimate& e, PeakMemoryKind kind) {
  switch (kind) {
    case PeakMemoryKind::max_reserved: return e.allocator_bytes;
    case PeakMemoryKind::max_allocated:
      return e.allocator_bytes - e.worst[static_cast<size_t>(MemoryPart::allocator_slack)];
    case PeakMemoryKind::device_used: return e.worst_bytes;
  }
  return e.worst_bytes;
}

MemoryEstimate estimate(const Measurement& m, const Calibration& calibration) {
  const std::vector<int64_t> stages = layout::stage_layers(m.layout, m.costs.num_layers);
  const layout::LayoutContext context = m.context();
  const int64_t microbatches = layout::microbatches_per_step(m.layout, context);
  return estimate_memory(m.costs, m.layout, stages, microbatches, m.cluster, calibration);
}

// The runs the fit reads: measured max-reserved peaks (exact figures), and runs that ran with no
// published peak, each of which says only that its peak was under its GPU's memory (a right-censored
// measurement). A run with published settings the layout does not carry says nothing sure about
// the priced terms, so only runs with none count, of either kind.
struct Problem {
  std::vector<const Measurement*> peaks;
  std::vector<const Measurement*> ran;
  const Calibration* base = nullptr;
};

double log_residual(const Measurement& m, const Calibration& c) {
  return std::log(predicted_peak_gib(m, c) / m.peak_memory_gib);
}

// log(capacity / predicted) of a run that ran: negative when the model says it could not have.
double log_headroom(const Measurement& m, const Calibration& c) {
  const double used = estimate(m, c).worst_bytes / kGiB;
  return std::log(hbm_capacity_gib(m.cluster.gpu) / used);
}

// The negative log-likelihood of the slack and the residual spread (Tobit, log scale): the peaks'
// residuals are normal with spread sigma, and a run that ran had a residual no larger than its
// headroom.
double negative_log_likelihood(const Problem& p, double slack, double sigma) {
  Calibration c = *p.base;
  c.allocator_slack = slack;
  double nll = 0;
  for (const Measurement* m : p.peaks) {
    const double r = log_residual(*m, c);
    nll += std::log(sigma) + r * r / (2 * sigma * sigma);
  }
  for (const Measurement* m : p.ran) nll -= log_normal_cdf(log_headroom(*m, c) / sigma);
  return nll;
}

double objective(unsigned /*n*/, const double* x, double* /*gradient*/, void* data) {
  return negative_log_likelihood(*static_cast<const Problem*>(data), x[0], std::exp(x[1]));
}

}  // namespace

// erfc keeps its relative precision down to z = -30, and below that (where it would underflow near
// z = -38) the asymptotic series of Mills' ratio,
// log Phi(z) = -z^2/2 - log(-z) - log(2 pi)/2 + log(1 - 1/z^2 + 3/z^4), whose error there is under
// 1e-8.
double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double log_normal_cdf(double z) {
  constexpr double kTail = -30;
  if (z >= kTail) return std::log(normal_cdf(z));
  const double z2 = z * z;
  return -0.5 * z2 - std::log(-z) - 0.5 * std::log(2 * M_PI) + std::log(1 - 1 / z2 + 3 / (z2 * z2));
}

const char* to_string(PeakMemoryKind kind) {
  for (const KindName& k : kKinds) {
    if (k.kind == kind) return k.name;
  }
  return "?";
}

std::optional<PeakMemoryKind> parse_peak_memory_kind(std::string_view name) {
  for (const KindName& k : kKinds) {
    if (name == k.name) return k.kind;
  }
  return std::nullopt;
}

const char* peak_memory_kind_names() { return "max reserved, max allocated or device used"; }

double predicted_peak_gib(const Prediction& p, PeakMemoryKind kind) {
  switch (kind) {
    case PeakMemoryKind::max_reserved: return p.allocator_memory_gib;
    case PeakMemoryKind::max_allocated: return p.allocator_memory_gib - p.allocator_slack_gib;
    case PeakMemoryKind::device_used: return p.memory_gib;
  }
  return p.memory_gib;
}

double predicted_peak_gib(const Measurement& m, const Calibration& calibration) {
  const PeakMemoryKind kind = parse_peak_memory_kind(m.peak_memory_kind).value_or(PeakMemoryKind::device_used);
  return peak_bytes(estimate(m, calibration), kind) / kGiB;
}

std::optional<MemoryFit> fit_allocator_slack(std::span<const Measurement> measurements,
                                             const Calibration& calibration) {
  Problem problem;
  problem.base = &calibration;
  for (const Measurement& m : measurements) {
    if (m.peak_memory_gib > 0 && m.unmodelled.empty() && parse_peak_memory_kind(m.peak_memory_kind) == PeakMemoryKind::max_reserved) {
      problem.peaks.push_back(&m);
    } else if (m.peak_memory_gib <= 0 && m.unmodelled.empty()) {
      problem.ran.push_back(&m);
    }
  }
  if (problem.peaks.empty()) return std::nullopt;
  MemoryFit fit;
  for (const CalibrationConstant& k : calibration_constants(calibration)) {
    if (k.name == "allocator_slack") {
      fit.min = k.min;
      fit.max = k.max;
    }
  }
  LADLE_ASSERT(fit.max > fit.min, "allocator_slack has a range in calibration_constants");
  // x = (slack, log sigma): the residual spread is fitted with the slack, as the censored runs'
  // weight depends on it.
  nlopt_opt opt = nlopt_create(NLOPT_LN_BOBYQA, 2);
  const double lower[2] = {fit.min, std::log(kSigmaMin)};
  const double upper[2] = {fit.max, std::log(kSigmaMax)};
  nlopt_set_lower_bounds(opt, lower);
  nlopt_set_upper_bounds(opt, upper);
  nlopt_set_min_objective(opt, objective, &problem);
  nlopt_set_xtol_abs1(opt, 1e-6);
  nlopt_set_maxeval(opt, kMaxEvaluations);
  const double step[2] = {0.25 * (fit.max - fit.min), 0.5};
  nlopt_set_initial_step(opt, step);
  double x[2] = {std::clamp(calibration.allocator_slack, fit.min, fit.max), std::log(0.1)};
  double value = 0;
  const nlopt_result result = nlopt_optimize(opt, x, &value);
  nlopt_destroy(opt);
  LADLE_ASSERT(result > 0 || result == NLOPT_ROUNDOFF_LIMITED, "the allocator slack fit did not converge");
  fit.allocator_slack = std::clamp(x[0], fit.min, fit.max);
  const double sigma = std::exp(x[1]);
  // The 95% interval from the observed information: the likelihood's curvature in the slack at the
  // fit (central differences, the spread held at its fitted value).
  const double h = 1e-3;
  const double at = std::clamp(fit.allocator_slack, fit.min + h, fit.max - h);
  const double curvature = (negative_log_likelihood(problem, at + h, sigma) - 2 * negative_log_likelihood(problem, at, sigma) +
                            negative_log_likelihood(problem, at - h, sigma)) /
                           (h * h);
  const double sd = curvature > 0 ? 1.0 / std::sqrt(curvature) : fit.max - fit.min;
  fit.low = std::max(fit.min, fit.allocator_slack - kInterval95 * sd);
  fit.high = std::min(fit.max, fit.allocator_slack + kInterval95 * sd);
  fit.sigma = sigma;
  fit.runs = static_cast<int64_t>(problem.peaks.size());
  fit.censored_runs = static_cast<int64_t>(problem.ran.size());
  Calibration fitted = calibration;
  fitted.allocator_slack = fit.allocator_slack;
  std::vector<double> abs_errors;
  for (const Measurement* m : problem.peaks) abs_errors.push_back(std::fabs(std::exp(log_residual(*m, fitted)) - 1));
  std::sort(abs_errors.begin(), abs_errors.end());
  const size_t n = abs_errors.size();
  fit.median_abs_error = n % 2 ? abs_errors[n / 2] : 0.5 * (abs_errors[n / 2 - 1] + abs_errors[n / 2]);
  return fit;
}

}  // namespace ladle::plan
