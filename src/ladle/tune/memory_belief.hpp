#pragma once
// memory_belief.hpp: what the loop has learnt of the planner's memory on this stack. Each trial
// says something about the ratio r of its real peak to its predicted memory: one that ran out of
// memory needed more than the GPU holds (log r > log(capacity / predicted)), one that ran needed
// no more (log r <= that). With log r normal around a mean m at the memory model's spread (the
// `memory_log_spread` of the calibration) and m's prior centred on 0 (the planner right on
// average) at that spread, the most probable m given the trials (a Tobit posterior, NLopt) gives
// each untried layout its probability of fitting. The proposer counts a layout's expected
// improvement only in the case it fits, so after a layout runs out of memory the loop stops
// proposing the ones predicted to need nearly as much, not only those predicted to need more.

#include <cstdint>
#include <vector>

#include "ladle/tune/trial.hpp"

namespace ladle::tune {

struct MemoryBelief {
  double log_ratio = 0;  ///< most probable mean of log(real peak / predicted memory)
  double sigma = 0.1;    ///< spread of a layout's log ratio around it
  int64_t ran = 0;       ///< trials that ran (each bounds its ratio from above)
  int64_t oom = 0;       ///< trials that ran out of memory (each bounds its ratio from below)
  bool operator==(const MemoryBelief&) const = default;
};

/// The belief after `trials` (their predicted memory and whether they ran or ran out of memory) on
/// GPUs of `capacity_gib`, at spread `sigma` (> 0). With no such trial: mean 0.
MemoryBelief memory_belief(const std::vector<Trial>& trials, double capacity_gib, double sigma);

/// The probability that a layout predicted to need `predicted_gib` fits in `capacity_gib` under
/// `belief`: Phi((log(capacity / predicted) - log_ratio) / sigma). 1 for a prediction of 0 or less.
double fit_probability(const MemoryBelief& belief, double predicted_gib, double capacity_gib);

}  // namespace ladle::tune
