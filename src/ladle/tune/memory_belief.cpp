#include "ladle/tune/memory_belief.hpp"

#include <nlopt.h>

#include <algorithm>
#include <cmath>

#include "ladle/plan/calibrate_memory.hpp"
#include "ladle/util/error.hpp"

namespace ladle::tune {

namespace {

// log r is searched within [-1, 1]: a planner off by more than a factor e on memory is not one
// whose predictions the loop ranks by.
constexpr double kBound = 1.0;

struct Problem {
  std::vector<double> ran;  ///< log(capacity / predicted) of each trial that ran
  std::vector<double> oom;  ///< the same of each trial that ran out of memory
  double sigma = 0.1;
};

// The negative log posterior of the mean m: the prior N(0, sigma^2), each run that ran
// P(log r <= a) = Phi((a - m) / sigma), each that ran out P(log r > a) = Phi((m - a) / sigma).
double negative_log_posterior(const Problem& p, double m) {
  double nll = 0.5 * (m / p.sigma) * (m / p.sigma);
  for (double a : p.ran) nll -= plan::log_normal_cdf((a - m) / p.sigma);
  for (double a : p.oom) nll -= plan::log_normal_cdf((m - a) / p.sigma);
  return nll;
}

double objective(unsigned /*n*/, const double* x, double* /*gradient*/, void* data) {
  return negative_log_posterior(*static_cast<const Problem*>(data), x[0]);
}

}  // namespace

MemoryBelief memory_belief(const std::vector<Trial>& trials, double capacity_gib, double sigma) {
  LADLE_ASSERT(sigma > 0 && capacity_gib > 0, "a memory belief needs a spread and a capacity");
  MemoryBelief out;
  out.sigma = sigma;
  Problem problem;
  problem.sigma = sigma;
  for (const Trial& t : trials) {
    if (!(t.predicted_memory_gib > 0)) continue;
    const double headroom = std::log(capacity_gib / t.predicted_memory_gib);
    if (t.state == TrialState::oom) problem.oom.push_back(headroom);
    if (is_measured(t.state)) problem.ran.push_back(headroom);
  }
  out.ran = static_cast<int64_t>(problem.ran.size());
  out.oom = static_cast<int64_t>(problem.oom.size());
  if (problem.ran.empty() && problem.oom.empty()) return out;
  // The posterior is log-concave in m (each log Phi term is concave), so its one maximum is what a
  // local derivative-free search finds.
  nlopt_opt opt = nlopt_create(NLOPT_LN_COBYLA, 1);
  const double lower = -kBound;
  const double upper = kBound;
  nlopt_set_lower_bounds(opt, &lower);
  nlopt_set_upper_bounds(opt, &upper);
  nlopt_set_min_objective(opt, objective, &problem);
  nlopt_set_xtol_abs1(opt, 1e-6);
  nlopt_set_maxeval(opt, 500);
  const double step = 0.1;
  nlopt_set_initial_step(opt, &step);
  double x = 0;
  double value = 0;
  const nlopt_result result = nlopt_optimize(opt, &x, &value);
  nlopt_destroy(opt);
  LADLE_ASSERT(result > 0 || result == NLOPT_ROUNDOFF_LIMITED, "the memory belief did not converge");
  out.log_ratio = std::clamp(x, -kBound, kBound);
  return out;
}

double fit_probability(const MemoryBelief& belief, double predicted_gib, double capacity_gib) {
  if (!(predicted_gib > 0)) return 1.0;
  const double z = (std::log(capacity_gib / predicted_gib) - belief.log_ratio) / belief.sigma;
  return plan::normal_cdf(z);
}

}  // namespace ladle::tune
