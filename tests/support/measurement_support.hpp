// A run the planner's tests build by hand: a layout spec on GPUs of one type, with no measured
// figure yet (each test sets the figure it compares: a throughput, a peak). Shared by the
// calibration, memory-fit and seed-figure tests (tests/plan/).
#pragma once

#include <cstdint>
#include <string>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibrate.hpp"

namespace ladle::test {

// `spec` on `gpus` GPUs of `gpu` (8 to a node), rows of `row_tokens`, `global_batch` rows a step.
inline plan::Measurement run_of(const std::string& model_name, const std::string& gpu, int64_t gpus,
                                const std::string& spec, int64_t global_batch = 128,
                                int64_t row_tokens = 8192) {
  plan::Measurement m;
  m.name = model_name + " " + spec;
  m.model = model::load_model(model_name);
  m.costs = plan::model_costs(m.model, row_tokens);
  m.cluster = plan::make_cluster(gpu, gpus);
  m.workload.row_tokens = row_tokens;
  m.workload.global_batch = global_batch;
  m.layout = layout::resolve_layout(layout::parse_layout_spec(spec),
                                    layout::LayoutContext{gpus, 8, row_tokens, global_batch});
  return m;
}

}  // namespace ladle::test
