// The allocator slack fit and what a measured peak compares with.
#include "ladle/plan/calibrate_memory.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/predictor.hpp"

namespace ladle::plan {
namespace {

Measurement with_peak(const std::string& model_name, int64_t gpus, const std::string& spec, double slack,
                      PeakMemoryKind kind = PeakMemoryKind::max_reserved) {
  Measurement m;
  m.name = model_name + " " + spec;
  m.model = model::load_model(model_name);
  m.costs = model_costs(m.model, 8192);
  m.cluster = make_cluster("h200", gpus);
  m.workload.row_tokens = 8192;
  m.workload.global_batch = 128;
  m.layout = layout::resolve_layout(layout::parse_layout_spec(spec), layout::LayoutContext{gpus, 8, 8192, 128});
  m.peak_memory_kind = to_string(kind);
  Calibration truth;
  truth.allocator_slack = slack;
  m.peak_memory_gib = predicted_peak_gib(m, truth);
  return m;
}

TEST(CalibrateMemory, RecoversTheAllocatorSlackOfItsOwnPredictions) {
  const std::vector<Measurement> runs = {
      with_peak("llama-3.1-8b", 8, "tp=1,fsdp=torch,dist_opt=off,recompute=selective", 0.22),
      with_peak("llama-3.1-8b", 8, "tp=2,sp=on", 0.22),
      with_peak("glm-4.7-flash", 8, "tp=1,ep=8,recompute=full", 0.22),
  };
  const std::optional<MemoryFit> fit = fit_allocator_slack(runs, Calibration{});
  ASSERT_TRUE(fit.has_value());
  EXPECT_NEAR(fit->allocator_slack, 0.22, 1e-4);
  EXPECT_EQ(fit->runs, 3);
  EXPECT_LT(fit->median_abs_error, 1e-4);
  EXPECT_LE(fit->low, fit->allocator_slack);
  EXPECT_GE(fit->high, fit->allocator_slack);
  EXPECT_EQ(fit->min, 0);
  EXPECT_EQ(fit->max, 0.5);
}

TEST(CalibrateMemory, StaysInsideItsRangeAndUsesOnlyMaxReservedPeaks) {
  // Peaks far above anything slack explains pin the fit at its upper bound, never beyond.
  std::vector<Measurement> runs = {with_peak("llama-3.1-8b", 8, "tp=2,sp=on", 0.1)};
  runs[0].peak_memory_gib *= 3;
  EXPECT_EQ(fit_allocator_slack(runs, Calibration{})->allocator_slack, 0.5);
  // Peaks of another kind, or none, leave nothing to fit.
  const std::vector<Measurement> allocated = {
      with_peak("llama-3.1-8b", 8, "tp=2,sp=on", 0.1, PeakMemoryKind::max_allocated)};
  EXPECT_FALSE(fit_allocator_slack(allocated, Calibration{}).has_value());
  EXPECT_FALSE(fit_allocator_slack(std::vector<Measurement>{}, Calibration{}).has_value());
}

TEST(CalibrateMemory, EachPeakKindMeasuresItsShare) {
  const Measurement m = with_peak("llama-3.1-8b", 8, "tp=2,sp=on", 0.1);
  const Prediction p = predict(m.costs, m.model, m.layout, m.cluster, m.workload, Calibration{});
  EXPECT_LT(predicted_peak_gib(p, PeakMemoryKind::max_allocated), predicted_peak_gib(p, PeakMemoryKind::max_reserved));
  EXPECT_LT(predicted_peak_gib(p, PeakMemoryKind::max_reserved), predicted_peak_gib(p, PeakMemoryKind::device_used));
  EXPECT_DOUBLE_EQ(predicted_peak_gib(p, PeakMemoryKind::device_used), p.memory_gib);
  EXPECT_EQ(parse_peak_memory_kind("max reserved"), PeakMemoryKind::max_reserved);
  EXPECT_EQ(parse_peak_memory_kind("peak"), std::nullopt);
}

}  // namespace
}  // namespace ladle::plan
