// The allocator slack fit and what a measured peak compares with.
#include "ladle/plan/calibrate_memory.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/predictor.hpp"
#include "support/measurement_support.hpp"

namespace ladle::plan {
namespace {

using test::run_of;

Measurement with_peak(const std::string& model_name, int64_t gpus, const std::string& spec, double slack,
                      PeakMemoryKind kind = PeakMemoryKind::max_reserved) {
  Measurement m = run_of(model_name, "h200", gpus, spec, 128);
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
  // So does a peak of a run with published settings the layout does not carry.
  std::vector<Measurement> unpriced = {with_peak("llama-3.1-8b", 8, "tp=2,sp=on", 0.1)};
  unpriced[0].unmodelled = {"fp8 all-gather"};
  EXPECT_FALSE(fit_allocator_slack(unpriced, Calibration{}).has_value());
  EXPECT_FALSE(fit_allocator_slack(std::vector<Measurement>{}, Calibration{}).has_value());
}

// A run that ran with no published peak: the Llama 3 paper's 405B layout on 8,192 H100 80 GB, whose
// predicted peak is within a few GiB of the GPU's memory, so the slack decides whether it fits.
Measurement ran_without_peak() {
  return run_of("llama-3.1-405b", "h100", 8192,
                "tp=8,sp=on,pp=16,first=7,last=7,recompute=none,fsdp=megatron,fsdp_sharding=optim_grads", 2048);
}

double headroom_gib(const Measurement& m, double slack) {
  Calibration c;
  c.allocator_slack = slack;
  return hbm_capacity_gib(m.cluster.gpu) -
         predict(m.costs, m.model, m.layout, m.cluster, m.workload, c).memory_gib;
}

TEST(CalibrateMemory, RunsThatRanBoundTheSlackFromAbove) {
  // Peaks that put the slack near 0.3, with a spread; at 0.3 the run that ran would not have fit.
  std::vector<Measurement> runs = {
      with_peak("llama-3.1-8b", 8, "tp=1,fsdp=torch,dist_opt=off,recompute=selective", 0.3),
      with_peak("llama-3.1-8b", 8, "tp=2,sp=on", 0.3),
      with_peak("glm-4.7-flash", 8, "tp=1,ep=8,recompute=full", 0.3),
  };
  runs[0].peak_memory_gib *= 1.08;
  runs[1].peak_memory_gib *= 0.93;
  const MemoryFit peaks_only = *fit_allocator_slack(runs, Calibration{});
  EXPECT_NEAR(peaks_only.allocator_slack, 0.3, 0.05);
  EXPECT_EQ(peaks_only.censored_runs, 0);
  const Measurement ran = ran_without_peak();
  ASSERT_LT(headroom_gib(ran, peaks_only.allocator_slack), 0) << "the case needs a run the peaks alone reject";
  ASSERT_GT(headroom_gib(ran, 0.0), 0) << "and one some slack in range admits";

  runs.push_back(ran);
  const MemoryFit with_ran = *fit_allocator_slack(runs, Calibration{});
  EXPECT_EQ(with_ran.runs, 3);
  EXPECT_EQ(with_ran.censored_runs, 1);
  EXPECT_LT(with_ran.allocator_slack, peaks_only.allocator_slack - 0.02);
  EXPECT_GT(headroom_gib(ran, with_ran.allocator_slack), headroom_gib(ran, peaks_only.allocator_slack));
  EXPECT_LE(with_ran.low, with_ran.allocator_slack);
  EXPECT_GE(with_ran.high, with_ran.allocator_slack);

  // A run the model puts far over its GPU (the same layout on a 1 GB GPU: from the fit's first
  // point, a spread of 0.1, some 45 spreads under, where the normal distribution's tail
  // underflows a double) drives the slack to its lower bound, with a finite likelihood.
  Measurement far = ran_without_peak();
  far.cluster.gpu.hbm_gb = 1;
  ASSERT_LT(headroom_gib(far, 0.0), -60);
  std::vector<Measurement> with_far = {
      with_peak("llama-3.1-8b", 8, "tp=1,fsdp=torch,dist_opt=off,recompute=selective", 0.3),
      with_peak("llama-3.1-8b", 8, "tp=2,sp=on", 0.3), far};
  const MemoryFit pinned = *fit_allocator_slack(with_far, Calibration{});
  EXPECT_EQ(pinned.allocator_slack, 0.0);
  EXPECT_TRUE(std::isfinite(pinned.high));

  // A run with published settings the layout does not carry bounds nothing.
  runs.back().unmodelled = {"torch.compile"};
  const MemoryFit unmodelled = *fit_allocator_slack(runs, Calibration{});
  EXPECT_EQ(unmodelled.censored_runs, 0);
  EXPECT_NEAR(unmodelled.allocator_slack, peaks_only.allocator_slack, 1e-6);
}

TEST(CalibrateMemory, ThePrintedMemoryIntervalIsTheFittedSpreads80PercentRange) {
  const Measurement m = with_peak("llama-3.1-8b", 8, "tp=2,sp=on", 0.1);
  Calibration c;
  c.memory_log_spread = 0.2;
  const Prediction p = predict(m.costs, m.model, m.layout, m.cluster, m.workload, c);
  EXPECT_NEAR(p.memory_low_gib, p.memory_gib * std::exp(-1.2816 * 0.2), 1e-9);
  EXPECT_NEAR(p.memory_high_gib, p.memory_gib * std::exp(1.2816 * 0.2), 1e-9);
  // The fit sets the spread it found: exact peaks give its floor.
  const std::vector<Measurement> exact = {with_peak("llama-3.1-8b", 8, "tp=2,sp=on", 0.2),
                                          with_peak("glm-4.7-flash", 8, "tp=1,ep=8,recompute=full", 0.2)};
  EXPECT_NEAR(fit_allocator_slack(exact, Calibration{})->sigma, 0.01, 1e-3);
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
