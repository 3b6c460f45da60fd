#pragma once
// time_dp.hpp: the data-parallel term: the gradient reduce-scatter and the parameter all-gather
// (once a step, or per microbatch under a resharding FSDP), bucketed, less what overlap hides.

#include "ladle/plan/time_pipeline.hpp"
#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

struct DpInputs {
  const ModelCosts& c;
  const Layout& l;
  const Rates& r;
  const Calibration& cal;
  const PipelineStep& step;  // the parameters the busiest rank holds and one microbatch's parts
  double microbatches = 1;
};

/// Seconds of data-parallel communication the step does not hide.
double dp_exposed(const DpInputs& in);

/// Parameters whose optimizer states one GPU updates: the busiest rank's, over its DP groups.
double dp_shard_params(const Layout& l, const PipelineStep& step);

}  // namespace ladle::plan::timing
