#include "ladle/plan/calibrate_memory.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlopt.h>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/util/error.hpp"

namespace ladle::plan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kInterval95 = 1.96;
constexpr int kMaxEvaluations = 400;

struct KindName {
  PeakMemoryKind kind;
  const char* name;
};
constexpr KindName kKinds[] = {
    {PeakMemoryKind::max_reserved, "max reserved"},
    {PeakMemoryKind::max_allocated, "max allocated"},
    {PeakMemoryKind::device_used, "device used"},
};

double peak_bytes(const MemoryEstimate& e, PeakMemoryKind kind) {
  switch (kind) {
    case PeakMemoryKind::max_reserved: return e.allocator_bytes;
    case PeakMemoryKind::max_allocated:
      return e.allocator_bytes - e.worst[static_cast<size_t>(MemoryPart::allocator_slack)];
    case PeakMemoryKind::device_used: return e.worst_bytes;
  }
  return e.worst_bytes;
}

MemoryEstimate estimate(const Measurement& m, const Calibration& calibration) {
  const std::vector<int64_t> stages = layout::stage_layers(m.layout, m.costs.num_layers);
  const layout::LayoutContext context{m.cluster.gpus, m.cluster.gpus_per_node(), m.workload.row_tokens,
                                      m.workload.global_batch};
  const int64_t microbatches = layout::microbatches_per_step(m.layout, context);
  return estimate_memory(m.costs, m.layout, stages, microbatches, m.cluster, calibration);
}

struct Problem {
  const std::vector<const Measurement*>* runs;
  const Calibration* base;
};

double log_residual(const Measurement& m, const Calibration& c) {
  return std::log(predicted_peak_gib(m, c) / m.peak_memory_gib);
}

double objective(unsigned /*n*/, const double* x, double* /*gradient*/, void* data) {
  const Problem& p = *static_cast<const Problem*>(data);
  Calibration c = *p.base;
  c.allocator_slack = x[0];
  double sum = 0;
  for (const Measurement* m : *p.runs) {
    const double r = log_residual(*m, c);
    sum += r * r;
  }
  return sum;
}

}  // namespace

const char* to_string(PeakMemoryKind kind) {
  for (const KindName& k : kKinds) {
    if (k.kind == kind) return k.name;
  }
  return "?";
}

std::optional<PeakMemoryKind> parse_peak_memory_kind(std::string_view name) {
  for (const KindName& k : kKinds) {
    if (name == k.name) return k.kind;
  }
  return std::nullopt;
}

const char* peak_memory_kind_names() { return "max reserved, max allocated or device used"; }

double predicted_peak_gib(const Prediction& p, PeakMemoryKind kind) {
  switch (kind) {
    case PeakMemoryKind::max_reserved: return p.allocator_memory_gib;
    case PeakMemoryKind::max_allocated: return p.allocator_memory_gib - p.allocator_slack_gib;
    case PeakMemoryKind::device_used: return p.memory_gib;
  }
  return p.memory_gib;
}

double predicted_peak_gib(const Measurement& m, const Calibration& calibration) {
  const PeakMemoryKind kind = parse_peak_memory_kind(m.peak_memory_kind).value_or(PeakMemoryKind::device_used);
  return peak_bytes(estimate(m, calibration), kind) / kGiB;
}

std::optional<MemoryFit> fit_allocator_slack(std::span<const Measurement> measurements,
                                             const Calibration& calibration) {
  std::vector<const Measurement*> runs;
  for (const Measurement& m : measurements) {
    if (m.peak_memory_gib > 0 && parse_peak_memory_kind(m.peak_memory_kind) == PeakMemoryKind::max_reserved) {
      runs.push_back(&m);
    }
  }
  if (runs.empty()) return std::nullopt;
  MemoryFit fit;
  for (const CalibrationConstant& k : calibration_constants(calibration)) {
    if (k.name == "allocator_slack") {
      fit.min = k.min;
      fit.max = k.max;
    }
  }
  LADLE_ASSERT(fit.max > fit.min, "allocator_slack has a range in calibration_constants");
  Problem problem{&runs, &calibration};
  nlopt_opt opt = nlopt_create(NLOPT_LN_COBYLA, 1);
  nlopt_set_lower_bounds1(opt, fit.min);
  nlopt_set_upper_bounds1(opt, fit.max);
  nlopt_set_min_objective(opt, objective, &problem);
  nlopt_set_xtol_abs1(opt, 1e-6);
  nlopt_set_maxeval(opt, kMaxEvaluations);
  const double step = 0.25 * (fit.max - fit.min);
  nlopt_set_initial_step(opt, &step);
  double x = std::clamp(calibration.allocator_slack, fit.min, fit.max);
  double value = 0;
  const nlopt_result result = nlopt_optimize(opt, &x, &value);
  nlopt_destroy(opt);
  LADLE_ASSERT(result > 0 || result == NLOPT_ROUNDOFF_LIMITED, "the allocator slack fit did not converge");
  fit.allocator_slack = std::clamp(x, fit.min, fit.max);
  // The interval: residual variance over the squared sensitivity of log(predicted) to the slack
  // (linear in it: the slack multiplies each run's transient bytes).
  Calibration fitted = calibration;
  fitted.allocator_slack = fit.allocator_slack;
  Calibration nudged = fitted;
  const double h = 1e-3;
  nudged.allocator_slack = fit.allocator_slack + h;
  double jj = 0;
  double rr = 0;
  std::vector<double> abs_errors;
  for (const Measurement* m : runs) {
    const double r = log_residual(*m, fitted);
    const double j = (log_residual(*m, nudged) - r) / h;
    jj += j * j;
    rr += r * r;
    abs_errors.push_back(std::fabs(std::exp(r) - 1));
  }
  const double dof = static_cast<double>(std::max<size_t>(1, runs.size() - 1));
  const double sd = jj > 0 ? std::sqrt(rr / dof / jj) : 0.0;
  fit.low = std::max(fit.min, fit.allocator_slack - kInterval95 * sd);
  fit.high = std::min(fit.max, fit.allocator_slack + kInterval95 * sd);
  fit.runs = static_cast<int64_t>(runs.size());
  std::sort(abs_errors.begin(), abs_errors.end());
  const size_t n = abs_errors.size();
  fit.median_abs_error = n % 2 ? abs_errors[n / 2] : 0.5 * (abs_errors[n / 2 - 1] + abs_errors[n / 2]);
  return fit;
}

}  // namespace ladle::plan
