#pragma once
// proposer.hpp: which layouts to try next. Each candidate's throughput is the planner's prediction
// under the current calibration with a relative uncertainty; a candidate's value is its expected
// improvement over the best measured throughput (a normal belief, as in Bayesian optimisation's
// EI). The uncertainty pools a prior relative error with the calibration's residuals on the
// trials measured so far.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ladle/plan/prediction.hpp"

namespace ladle::tune {

/// A layout the planner can propose, with its belief.
struct Candidate {
  Prediction prediction;
  std::string spec;                 ///< canonical layout spec
  double sigma = 0;                 ///< relative standard deviation of the predicted throughput
  double expected_improvement = 0;  ///< relative to the best measured, >= 0
  bool operator==(const Candidate&) const = default;
};

/// E[max(X - best, 0)] / best for X ~ Normal(mean, (sigma * mean)^2); 0 when best <= 0 or sigma <=
/// 0 and mean <= best.
double expected_improvement(double mean, double sigma, double best);

/// The relative prediction uncertainty after `residuals` (log(predicted / measured) of the trials
/// measured so far, under the refitted calibration): sqrt((n0 prior^2 + sum r^2) / (n0 + n)).
double pooled_sigma(double prior_sigma, double prior_weight, const std::vector<double>& residuals);

/// Per step-time part, the largest share of a measured step it took (`measured` are the
/// predictions of the measured layouts under the current calibration), by part name.
std::map<std::string, double> part_exposure(const std::vector<Prediction>& measured);

/// The share of `p`'s predicted step time in parts beyond what any measurement exercised:
/// sum over parts of max(0, share in p - exposure). The constants are learned through the parts
/// they scale, so this share of the prediction rests on the prior alone.
double unexplored_share(const Prediction& p, const std::map<std::string, double>& exposure);

/// A candidate's relative uncertainty: sqrt(pooled^2 + prior^2 x unexplored share).
double candidate_sigma(double pooled, double prior_sigma, double unexplored);

/// The `count` candidates of highest expected improvement over `best` whose spec is not in
/// `tried`, best first (ties by prediction, then spec, so the choice is deterministic), taking one
/// layout per parallel shape (layout_label) before a second of the same shape.
/// `sigmas` holds each prediction's relative uncertainty (same order).
std::vector<Candidate> propose(const std::vector<Prediction>& predictions,
                               const std::vector<double>& sigmas,
                               const std::set<std::string>& tried, double best, int64_t count);

}  // namespace ladle::tune
