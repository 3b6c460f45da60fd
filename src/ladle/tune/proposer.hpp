#pragma once
// proposer.hpp: which layouts to try next. Each candidate's throughput is the planner's prediction
// under the refitted calibration with its predictive spread (belief.hpp); a candidate's value is
// its expected improvement over the best measured throughput under that log-normal belief (as in
// Bayesian optimisation's EI), counted only in the case it fits in memory (memory_belief.hpp): a
// layout that runs out of memory improves nothing.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ladle/plan/prediction.hpp"

namespace ladle::tune {

/// A layout the planner can propose, with its belief.
struct Candidate {
  Prediction prediction;
  std::string spec;                 ///< canonical layout spec
  double sigma = 0;                 ///< standard deviation of log(predicted throughput)
  double fit_probability = 1;       ///< that it fits in memory (memory_belief.hpp)
  /// Relative to the best measured, >= 0: the log-normal belief's, times fit_probability.
  double expected_improvement = 0;
  bool operator==(const Candidate&) const = default;
};

/// The `count` candidates of highest expected improvement over `best` whose spec is not in
/// `tried`, best first (ties by prediction, then spec, so the choice is deterministic), taking one
/// layout per parallel shape (layout_label) before a second of the same shape.
/// `sigmas` holds each prediction's predictive_sigma, `fit_probabilities` its fit_probability
/// (same order; empty: every layout fits).
std::vector<Candidate> propose(const std::vector<Prediction>& predictions,
                               const std::vector<double>& sigmas,
                               const std::set<std::string>& tried, double best, int64_t count,
                               const std::vector<double>& fit_probabilities = {});

}  // namespace ladle::tune
