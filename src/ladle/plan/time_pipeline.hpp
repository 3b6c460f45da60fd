#pragma once
// time_pipeline.hpp: the pipeline terms: the point-to-point transfer at each stage boundary, the
// stages' times gathered, and the step over them: 1F1B (interleaved by vpp) or DualPipe, with
// its bubble.

#include <array>
#include <vector>

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

using Parts = std::array<double, kTimeParts>;

/// Pipeline point-to-point of one microbatch, forward and backward over all its virtual stages:
/// the stage boundary leaves the NVLink domain when a stage fills one.
double pp_p2p(const Rates& r, const Layout& l, double tokens, double hidden);

/// Every stage's parts for one microbatch and the parameters it holds, in stage order.
struct StageTimes {
  std::vector<Parts> parts;
  std::vector<double> dense;   // dense parameters each stage holds (trained ones, on one GPU)
  std::vector<double> expert;  // expert parameters each stage holds
  Parts critical{};            // the slowest stage's parts
  double critical_time = -1;   // the slowest stage's time
  double sum = 0;              // the stages' times together
  double worst_dense = 0, worst_expert = 0;
  double attention_backward = 0;  // flash backward time over forward (Rates), for forward shares
  void add(const Parts& p, double dense_params, double expert_params);
};

/// The step's parts by pipeline schedule.
struct PipelineStep {
  Parts parts{};             // the step's parts on the slowest rank, pipeline_bubble included
  Parts per_microbatch{};    // one microbatch on that rank (one chunk's under DualPipe)
  double dense_params = 0;   // the most dense parameters one rank holds
  double expert_params = 0;  // the most expert parameters one rank holds
};

PipelineStep pipeline_step(const StageTimes& stages, const Layout& l, double microbatches);

}  // namespace ladle::plan::timing
