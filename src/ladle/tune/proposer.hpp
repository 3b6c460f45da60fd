#pragma once
// proposer.hpp: which layouts to try next. Each candidate's throughput is the planner's prediction
// under the current calibration with a relative uncertainty; a candidate's value is its expected
// improvement over the best measured throughput (a normal belief, as in Bayesian optimisation's
// EI). The uncertainty pools a prior relative error with the calibration's residuals on the
// trials measured so far.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ladle/plan/prediction.hpp"

namespace ladle::tune {

/// A layout the planner can propose, with its belief.
struct Candidate {
  Prediction prediction;
  std::string spec;         ///< canonical layout spec
  double sigma = 0;         ///< relative standard deviation of the predicted throughput
  double expected_improvement = 0;  ///< relative to the best measured, >= 0
  bool operator==(const Candidate&) const = default;
};

/// E[max(X - best, 0)] / best for X ~ Normal(mean, (sigma * mean)^2); 0 when best <= 0 or sigma <= 0
/// and mean <= best.
double expected_improvement(double mean, double sigma, double best);

/// The relative prediction uncertainty after `residuals` (log(predicted / measured) of the trials
/// measured so far, under the refitted calibration): sqrt((n0 prior^2 + sum r^2) / (n0 + n)).
double pooled_sigma(double prior_sigma, double prior_weight, const std::vector<double>& residuals);

/// The `count` candidates of highest expected improvement over `best` whose spec is not in
/// `tried`, best first (ties by prediction, then spec, so the choice is deterministic).
std::vector<Candidate> propose(const std::vector<Prediction>& predictions, const std::set<std::string>& tried,
                               double best, double sigma, int64_t count);

}  // namespace ladle::tune
