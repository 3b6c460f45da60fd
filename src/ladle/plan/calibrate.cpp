#include "ladle/plan/calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/util/error.hpp"

namespace ladle::plan {

namespace {

// Weight of the pull towards the prior, per constant, in units of log(3) (a factor of three).
constexpr double kPriorWeight = 0.001;
constexpr int kIterations = 4000;

struct Fitted {
  std::vector<std::string> names;
  std::vector<double> lo, hi, prior;  // in log space
};

Fitted fitted_constants(const Calibration& prior) {
  Fitted f;
  for (const CalibrationConstant& k : calibration_constants(prior)) {
    if (!k.fitted) continue;
    f.names.push_back(k.name);
    f.lo.push_back(std::log(std::max(k.min, 1e-9)));
    f.hi.push_back(std::log(k.max));
    f.prior.push_back(std::log(std::max(k.value, 1e-9)));
  }
  return f;
}

Calibration with(const Calibration& base, const Fitted& f, const std::vector<double>& x) {
  Calibration c = base;
  for (size_t i = 0; i < x.size(); ++i) {
    set_calibration_constant(c, f.names[i], std::exp(std::clamp(x[i], f.lo[i], f.hi[i])));
  }
  return c;
}

double objective(const std::vector<const Measurement*>& data, const Calibration& base, const Fitted& f,
                 const std::vector<double>& x) {
  const Calibration c = with(base, f, x);
  double sum = 0;
  for (const Measurement* m : data) {
    const double e = std::log(predict_tokens_per_s(*m, c) / m->measured_tokens_per_s_per_gpu);
    sum += e * e;
  }
  for (size_t i = 0; i < x.size(); ++i) {
    const double clamped = std::clamp(x[i], f.lo[i], f.hi[i]);
    const double pull = (clamped - f.prior[i]) / std::log(3.0);
    sum += kPriorWeight * pull * pull + (x[i] - clamped) * (x[i] - clamped);
  }
  return sum;
}

// Nelder-Mead simplex minimisation from the prior; deterministic.
std::vector<double> minimise(const std::vector<const Measurement*>& data, const Calibration& base,
                             const Fitted& f) {
  const size_t n = f.prior.size();
  std::vector<std::vector<double>> simplex(n + 1, f.prior);
  for (size_t i = 0; i < n; ++i) simplex[i + 1][i] += 0.5;
  std::vector<double> value(n + 1);
  for (size_t i = 0; i <= n; ++i) value[i] = objective(data, base, f, simplex[i]);
  for (int iteration = 0; iteration < kIterations; ++iteration) {
    std::vector<size_t> order(n + 1);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return value[a] < value[b]; });
    const size_t best = order[0];
    const size_t worst = order[n];
    const size_t second = order[n - 1];
    if (value[worst] - value[best] < 1e-14) break;
    std::vector<double> centroid(n, 0.0);
    for (size_t i = 0; i <= n; ++i) {
      if (i == worst) continue;
      for (size_t j = 0; j < n; ++j) centroid[j] += simplex[i][j] / static_cast<double>(n);
    }
    auto point = [&](double t) {
      std::vector<double> p(n);
      for (size_t j = 0; j < n; ++j) p[j] = centroid[j] + t * (simplex[worst][j] - centroid[j]);
      return p;
    };
    const std::vector<double> reflected = point(-1.0);
    const double fr = objective(data, base, f, reflected);
    if (fr < value[best]) {
      const std::vector<double> expanded = point(-2.0);
      const double fe = objective(data, base, f, expanded);
      if (fe < fr) {
        simplex[worst] = expanded;
        value[worst] = fe;
      } else {
        simplex[worst] = reflected;
        value[worst] = fr;
      }
      continue;
    }
    if (fr < value[second]) {
      simplex[worst] = reflected;
      value[worst] = fr;
      continue;
    }
    const std::vector<double> contracted = point(0.5);
    const double fc = objective(data, base, f, contracted);
    if (fc < value[worst]) {
      simplex[worst] = contracted;
      value[worst] = fc;
      continue;
    }
    for (size_t i = 0; i <= n; ++i) {
      if (i == best) continue;
      for (size_t j = 0; j < n; ++j) simplex[i][j] = simplex[best][j] + 0.5 * (simplex[i][j] - simplex[best][j]);
      value[i] = objective(data, base, f, simplex[i]);
    }
  }
  size_t best = 0;
  for (size_t i = 1; i <= n; ++i) {
    if (value[i] < value[best]) best = i;
  }
  std::vector<double> x = simplex[best];
  for (size_t i = 0; i < n; ++i) x[i] = std::clamp(x[i], f.lo[i], f.hi[i]);
  return x;
}

}  // namespace

Measurement measurement_from_recipe(const recipe::LoadedRecipe& loaded) {
  const Recipe& r = loaded.recipe;
  if (!r.result) {
    throw_input(loaded.where.at("result"), "has no measured result to calibrate on");
  }
  Measurement m;
  m.name = loaded.path;
  std::optional<ModelSpec> spec = model::find_model(r.model);
  if (!spec) throw_input(loaded.where.at("model"), "unknown model '{}'", r.model);
  m.model = *spec;
  try {
    m.cluster = make_cluster(r.gpu.type, r.gpu.count, r.gpu.instance);
  } catch (const Error& e) {
    throw_input(loaded.where.at("gpu"), "{}", e.message());
  }
  m.workload.row_tokens = r.workload.row_tokens;
  m.workload.global_batch = r.workload.global_batch;
  m.workload.precision = parse_precision(r.workload.precision.empty() ? "bf16" : r.workload.precision);
  const layout::LayoutContext context{m.cluster.gpus, m.cluster.gpus_per_node(), m.workload.row_tokens,
                                      m.workload.global_batch};
  m.layout = layout::resolve_layout(layout::layout_from_recipe(r), context);
  if (auto violation = layout::find_layout_violation(m.layout, m.model, context)) {
    throw_input(loaded.where.at("layout"), "{}", *violation);
  }
  m.costs = model_costs(m.model, m.workload.row_tokens);
  m.measured_tokens_per_s_per_gpu = r.result->tokens_per_s_per_gpu;
  if (!(m.measured_tokens_per_s_per_gpu > 0) || !std::isfinite(m.measured_tokens_per_s_per_gpu)) {
    throw_input(loaded.where.at("result.tokens_per_s_per_gpu"),
                "{} is not a measured throughput to calibrate on (expected a positive, finite number)",
                m.measured_tokens_per_s_per_gpu);
  }
  return m;
}

double predict_tokens_per_s(const Measurement& m, const Calibration& calibration) {
  const std::vector<int64_t> stages = layout::stage_layers(m.layout, m.costs.num_layers);
  const layout::LayoutContext context{m.cluster.gpus, m.cluster.gpus_per_node(), m.workload.row_tokens,
                                      m.workload.global_batch};
  const int64_t microbatches = layout::microbatches_per_step(m.layout, context);
  const TimeEstimate t = estimate_time(m.costs, m.layout, stages, microbatches, m.cluster, m.workload, calibration);
  return static_cast<double>(m.workload.global_batch * m.workload.row_tokens) / t.step_s /
         static_cast<double>(m.cluster.gpus);
}

CalibrationFit fit_calibration(const std::vector<Measurement>& measurements, const Calibration& prior) {
  if (measurements.empty()) throw_usage("calibrate needs at least one measured recipe");
  const Fitted f = fitted_constants(prior);
  std::vector<const Measurement*> all;
  for (const Measurement& m : measurements) all.push_back(&m);
  CalibrationFit fit;
  fit.calibration = with(prior, f, minimise(all, prior, f));
  fit.calibration.fitted_on.clear();
  for (size_t i = 0; i < measurements.size(); ++i) {
    FitRow row;
    row.name = measurements[i].name;
    row.measured = measurements[i].measured_tokens_per_s_per_gpu;
    row.in_sample = predict_tokens_per_s(measurements[i], fit.calibration);
    std::vector<const Measurement*> others;
    for (size_t j = 0; j < measurements.size(); ++j) {
      if (j != i) others.push_back(&measurements[j]);
    }
    const Calibration loo = others.empty() ? prior : with(prior, f, minimise(others, prior, f));
    row.leave_one_out = predict_tokens_per_s(measurements[i], loo);
    fit.rows.push_back(row);
    fit.calibration.fitted_on.push_back(
        fmt::format("{}: measured {:.2f}, fitted {:.2f} ({:+.1f}%), leave-one-out {:.2f} ({:+.1f}%)", row.name,
                    row.measured, row.in_sample, 100 * row.in_sample_error(), row.leave_one_out,
                    100 * row.leave_one_out_error()));
  }
  return fit;
}

}  // namespace ladle::plan
