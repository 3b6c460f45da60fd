#include "ladle/plan/calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include <Eigen/Dense>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/bobyqa.hpp"
#include "ladle/plan/calibrate_memory.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/stack.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/parallel.hpp"

namespace ladle::plan {

namespace {

// Weight of the pull towards the prior, per constant, in units of log(3) (a factor of three): it
// keeps a constant the data cannot see at its prior and leaves the others to the data.
constexpr double kPriorWeight = 0.001;
// The loss on each run's log error: soft-L1 (pseudo-Huber), quadratic within a scale and linear
// beyond it, so that a run whose cost the time model leaves out (the GB200 write-up's host-bound
// baseline, 55% fast in-sample) pulls every constant less than least squares lets it. The scale is
// the printed 80% interval's half-width in log space (0.20, data/calibration.yaml
// interval_log_halfwidth): an error the model's own interval allows counts as least squares
// counts it.
constexpr double kRobustScale = 0.2;

double robust_loss(double e) {
  const double a = e / kRobustScale;
  return 2 * kRobustScale * kRobustScale * (std::sqrt(1 + a * a) - 1);
}

// The loss's weight on a run at error e, as iteratively reweighted least squares sees it at the
// optimum (the covariance below): 1 within the scale, falling as 1 / |e| beyond it.
double robust_weight(double e) { return 1 / std::sqrt(1 + (e / kRobustScale) * (e / kRobustScale)); }
constexpr int kMaxEvaluations = 4000;
constexpr double kRelativeTolerance = 1e-7;
constexpr double kInterval95 = 1.96;

struct Fitted {
  std::vector<std::string> names;
  std::vector<double> lo, hi, prior;  // in log space
  std::vector<double> min, max;
  std::vector<std::string> units;
};

Fitted fitted_constants(const Calibration& prior) {
  Fitted f;
  for (const CalibrationConstant& k : calibration_constants(prior)) {
    if (!k.fitted) continue;
    f.names.push_back(k.name);
    f.lo.push_back(std::log(std::max(k.min, 1e-9)));
    f.hi.push_back(std::log(k.max));
    f.prior.push_back(std::clamp(std::log(std::max(k.value, 1e-9)), f.lo.back(), f.hi.back()));
    f.min.push_back(k.min);
    f.max.push_back(k.max);
    f.units.push_back(k.unit);
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

// Each source weighs as much as any other, however many runs it publishes (a source's runs share
// one stack and its biases), normalised so that the weights sum to the number of runs.
std::vector<double> source_weights(const std::vector<const Measurement*>& data) {
  std::vector<double> w(data.size(), 1.0);
  std::vector<std::string> sources;
  for (const Measurement* m : data) {
    if (std::find(sources.begin(), sources.end(), m->source) == sources.end()) sources.push_back(m->source);
  }
  for (size_t i = 0; i < data.size(); ++i) {
    const auto n = std::count_if(data.begin(), data.end(), [&](const Measurement* m) { return m->source == data[i]->source; });
    w[i] = static_cast<double>(data.size()) / (static_cast<double>(sources.size()) * static_cast<double>(n));
  }
  return w;
}

struct Problem {
  const std::vector<const Measurement*>* data;
  const std::vector<double>* weights;
  const Calibration* base;
  const Fitted* fitted;
};

double objective(unsigned n, const double* x, double* /*gradient*/, void* data) {
  const Problem& p = *static_cast<const Problem*>(data);
  const std::vector<double> v(x, x + n);
  const Calibration c = with(*p.base, *p.fitted, v);
  double sum = 0;
  for (size_t i = 0; i < p.data->size(); ++i) {
    const Measurement* m = (*p.data)[i];
    const double e = std::log(predict_tokens_per_s(*m, c) / m->measured_tokens_per_s_per_gpu);
    sum += (*p.weights)[i] * robust_loss(e);
  }
  for (size_t i = 0; i < n; ++i) {
    const double pull = (v[i] - p.fitted->prior[i]) / std::log(3.0);
    sum += kPriorWeight * pull * pull;
  }
  return sum;
}

// Bounded minimisation with NLopt's BOBYQA (derivative-free, deterministic). BOBYQA is local and
// stalls where the runs barely see a constant (without the torchtitan runs, the DP overlap's
// hidden share stopped at 0.13 where 1.0 fits better; another fold stopped 6% above its optimum),
// so it starts three times, from the prior and from both corners of the ranges, keeps the lowest
// objective and restarts from there (a fresh quadratic model).
std::vector<double> minimise(const std::vector<const Measurement*>& data, const Calibration& base, const Fitted& f) {
  const unsigned n = static_cast<unsigned>(f.prior.size());
  if (n == 0) return f.prior;
  const std::vector<double> weights = source_weights(data);
  Problem problem{&data, &weights, &base, &f};
  BobyqaSettings settings{&f.lo, &f.hi, std::vector<double>(n), kRelativeTolerance, kMaxEvaluations};
  for (unsigned i = 0; i < n; ++i) settings.step[i] = std::min(0.5, 0.25 * (f.hi[i] - f.lo[i]));
  std::vector<double> best;
  double best_value = 0;
  auto descend = [&](std::vector<double>& x) {
    const nlopt_result result = minimise_bobyqa(objective, &problem, settings, x);
    LADLE_ASSERT(result > 0 || result == NLOPT_ROUNDOFF_LIMITED, "the calibration fit did not converge");
    return objective(n, x.data(), nullptr, &problem);
  };
  for (const std::vector<double>& start : {f.prior, f.lo, f.hi}) {
    std::vector<double> x = start;
    const double value = descend(x);
    if (best.empty() || value < best_value) {
      best = x;
      best_value = value;
    }
  }
  descend(best);
  return best;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Covariance of the log constants: s^2 (J^T J)^-1 from the residuals' Jacobian at the optimum
// (central differences); a constant at a bound or the data cannot see gets the prior's width.
std::vector<std::vector<double>> covariance(const std::vector<const Measurement*>& data, const Calibration& base,
                                            const Fitted& f, const std::vector<double>& x) {
  const size_t n = x.size();
  const size_t rows = data.size();
  auto residuals = [&](const std::vector<double>& at) {
    const Calibration c = with(base, f, at);
    Eigen::VectorXd r(static_cast<Eigen::Index>(rows));
    for (size_t i = 0; i < rows; ++i) {
      r(static_cast<Eigen::Index>(i)) = std::log(predict_tokens_per_s(*data[i], c) / data[i]->measured_tokens_per_s_per_gpu);
    }
    return r;
  };
  const std::vector<double> weights = source_weights(data);
  const Eigen::VectorXd at_x = residuals(x);
  Eigen::VectorXd sqrt_w(static_cast<Eigen::Index>(rows));
  for (size_t i = 0; i < rows; ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    sqrt_w(k) = std::sqrt(weights[i] * robust_weight(at_x(k)));
  }
  const Eigen::VectorXd r0 = at_x.cwiseProduct(sqrt_w);
  Eigen::MatrixXd jacobian(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(n));
  constexpr double kStep = 1e-3;
  for (size_t j = 0; j < n; ++j) {
    std::vector<double> up = x;
    std::vector<double> down = x;
    up[j] += kStep;
    down[j] -= kStep;
    jacobian.col(static_cast<Eigen::Index>(j)) = (residuals(up) - residuals(down)).cwiseProduct(sqrt_w) / (2 * kStep);
  }
  const double dof = std::max<double>(1.0, static_cast<double>(rows) - static_cast<double>(n));
  const double s2 = r0.squaredNorm() / dof;
  // The prior's pull enters as one more observation per constant, so J^T J stays invertible.
  Eigen::MatrixXd information = jacobian.transpose() * jacobian / s2;
  for (size_t j = 0; j < n; ++j) {
    information(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(j)) +=
        2 * kPriorWeight / (std::log(3.0) * std::log(3.0)) / s2;
  }
  const Eigen::MatrixXd cov = information.ldlt().solve(Eigen::MatrixXd::Identity(static_cast<Eigen::Index>(n),
                                                                                  static_cast<Eigen::Index>(n)));
  // A constant the data barely sees can be no more uncertain than its physical range: its
  // variance is capped at that of a uniform spread over the range in log space ((hi - lo)^2 / 12),
  // its correlations kept.
  std::vector<double> scale(n, 1.0);
  for (size_t j = 0; j < n; ++j) {
    const double cap = (f.hi[j] - f.lo[j]) * (f.hi[j] - f.lo[j]) / 12.0;
    const double var = cov(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(j));
    if (var > cap) scale[j] = std::sqrt(cap / var);
  }
  std::vector<std::vector<double>> out(n, std::vector<double>(n));
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = 0; b < n; ++b)
      out[a][b] = scale[a] * scale[b] * cov(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b));
  }
  return out;
}

}  // namespace

Measurement run_from_recipe(const recipe::LoadedRecipe& loaded) {
  const Recipe& r = loaded.recipe;
  Measurement m;
  static_cast<Scenario&>(m) = scenario_from_recipe(loaded);
  m.name = loaded.path;
  m.source = loaded.path;
  m.recipe_stack = r.stack.megatron_lm;
  const layout::LayoutContext context = m.context();
  m.layout = layout::resolve_layout(layout::layout_from_recipe(r), context);
  if (auto violation = layout::find_layout_violation(m.layout, m.model, context)) {
    throw_input(loaded.where.at("layout"), "{}", *violation);
  }
  if (m.workload.stack_generation) {
    if (auto v = stack_violation(m.layout, *m.workload.stack_generation)) {
      throw_input(loaded.where.at("stack.megatron_lm"), "{}", *v);
    }
  }
  if (!r.run.empty()) {
    try {
      m.workload.flash_attention_2 = selects_flash_attention_backend(args::parse_launch_args(r.run, loaded.path));
    } catch (const Error&) {
      // A run script ladle cannot read prices the default attention backend; `ladle check` reports it.
    }
  }
  return m;
}

Measurement measurement_from_recipe(const recipe::LoadedRecipe& loaded) {
  const Recipe& r = loaded.recipe;
  if (!r.result) {
    throw_input(loaded.where.at("result"), "has no measured result to calibrate on");
  }
  Measurement m = run_from_recipe(loaded);
  m.measured_tokens_per_s_per_gpu = r.result->tokens_per_s_per_gpu;
  if (r.result->peak_memory_gib) {  // `ladle score --write` records the logs' max reserved
    m.peak_memory_gib = *r.result->peak_memory_gib;
    m.peak_memory_kind = to_string(PeakMemoryKind::max_reserved);
  }
  if (!(m.measured_tokens_per_s_per_gpu > 0) || !std::isfinite(m.measured_tokens_per_s_per_gpu)) {
    throw_input(loaded.where.at("result.tokens_per_s_per_gpu"),
                "{} is not a measured throughput to calibrate on (expected a positive, finite number)",
                m.measured_tokens_per_s_per_gpu);
  }
  return m;
}

bool selects_flash_attention_backend(const args::LaunchArgs& launch) {
  for (const args::LaunchArg& a : launch.args) {
    if (a.flag == "--attention-backend" && !a.values.empty() && a.values.front() == "flash") return true;
  }
  return false;
}

double predict_tokens_per_s(const Measurement& m, const Calibration& calibration) {
  const std::vector<int64_t> stages = layout::stage_layers(m.layout, m.costs.num_layers);
  const layout::LayoutContext context = m.context();
  const int64_t microbatches = layout::microbatches_per_step(m.layout, context);
  const TimeEstimate t = estimate_time(m.costs, m.layout, stages, microbatches, m.cluster, m.workload, calibration);
  return static_cast<double>(m.workload.global_batch * m.workload.row_tokens) / t.step_s /
         static_cast<double>(m.cluster.gpus);
}

double throughput_log_halfwidth(const Measurement& m, const Calibration& calibration) {
  const layout::LayoutContext context = m.context();
  return interval_log_halfwidth(m.costs, m.layout, layout::stage_layers(m.layout, m.costs.num_layers),
                                layout::microbatches_per_step(m.layout, context), m.cluster, m.workload, calibration);
}

size_t fitted_constant_count() { return fitted_constants(Calibration{}).names.size(); }

bool prior_fitted_on(const Calibration& prior, const std::string& run) {
  // `ladle calibrate --out` writes one line per run: "<id> (<source>): measured ...".
  const std::string head = run + " (";
  return std::any_of(prior.fitted_on.begin(), prior.fitted_on.end(),
                     [&](const std::string& line) { return line.starts_with(head); });
}

namespace {

// The prior of a held-out fold. A prior that is itself a fit on some of the held-out runs (its
// fitted_on names them) has seen what the fold must predict blind, so that fold starts from, and is
// pulled towards, the built-in priors of the fitted constants instead; the other constants stay.
Calibration held_out_prior(const Calibration& prior, const std::vector<const Measurement*>& held_out) {
  const bool saw = std::any_of(held_out.begin(), held_out.end(),
                               [&](const Measurement* m) { return prior_fitted_on(prior, m->name); });
  if (!saw) return prior;
  Calibration blind = prior;
  for (const CalibrationConstant& k : calibration_constants(Calibration{})) {
    if (k.fitted) set_calibration_constant(blind, k.name, k.value);
  }
  blind.fitted_on.clear();
  return blind;
}

// The fit on `train` that predicts `held_out` blind (see held_out_prior).
Calibration fold_fit(const std::vector<const Measurement*>& train, const std::vector<const Measurement*>& held_out,
                     const Calibration& prior) {
  const Calibration start = held_out_prior(prior, held_out);
  const Fitted f = fitted_constants(start);
  return train.size() >= f.names.size() ? with(start, f, minimise(train, start, f)) : start;
}

}  // namespace

CalibrationFit fit_calibration(const std::vector<Measurement>& measurements, const Calibration& prior,
                               bool cross_validate) {
  const Fitted f = fitted_constants(prior);
  if (measurements.size() < f.names.size()) {
    throw_usage("calibrate needs at least {} measured runs for its {} fitted constants, got {}", f.names.size(),
                f.names.size(), measurements.size());
  }
  std::vector<const Measurement*> all;
  for (const Measurement& m : measurements) all.push_back(&m);
  CalibrationFit fit;
  fit.cross_validated = cross_validate;
  const std::vector<double> x = minimise(all, prior, f);
  fit.calibration = with(prior, f, x);
  if (const std::optional<MemoryFit> memory = fit_allocator_slack(measurements, fit.calibration)) {
    fit.calibration.allocator_slack = memory->allocator_slack;
    fit.calibration.memory_log_spread = memory->sigma;
    fit.memory_constants.push_back(FittedConstant{"allocator_slack", memory->allocator_slack, memory->low,
                                                  memory->high, memory->min, memory->max, "fraction"});
    fit.memory_peaks = memory->runs;
    fit.memory_censored_runs = memory->censored_runs;
    fit.memory_sigma = memory->sigma;
    fit.memory_median_abs_error = memory->median_abs_error;
  }
  fit.calibration.fitted_on.clear();
  fit.covariance = covariance(all, prior, f, x);
  fit.calibration.covariance_names = f.names;
  fit.calibration.covariance = fit.covariance;
  for (size_t i = 0; i < f.names.size(); ++i) {
    const double sd = std::sqrt(std::max(0.0, fit.covariance[i][i]));
    fit.constants.push_back(FittedConstant{f.names[i], std::exp(x[i]),
                                           std::max(f.min[i], std::exp(x[i] - kInterval95 * sd)),
                                           std::min(f.max[i], std::exp(x[i] + kInterval95 * sd)), f.min[i], f.max[i],
                                           f.units[i]});
  }
  // Leave one source out: refit once per source on the other sources' runs.
  std::vector<std::string> sources;
  for (const Measurement& m : measurements) {
    if (std::find(sources.begin(), sources.end(), m.source) == sources.end()) sources.push_back(m.source);
  }
  // The folds are independent fits: leave one source out (one per source), then leave one run out
  // (one per run), on a pool of threads.
  std::vector<Calibration> without_source(sources.size(), fit.calibration);
  std::vector<Calibration> without_run;
  if (cross_validate) {
    without_run.resize(measurements.size());
    const size_t source_folds = sources.size() > 1 ? sources.size() : 0;
    const size_t folds = source_folds + measurements.size();
    util::parallel_for(folds, util::default_threads(folds), [&](int, size_t k) {
      std::vector<const Measurement*> others, held_out;
      if (k < source_folds) {
        for (const Measurement& m : measurements) (m.source != sources[k] ? others : held_out).push_back(&m);
        without_source[k] = fold_fit(others, held_out, prior);
        return;
      }
      const size_t i = k - source_folds;
      for (size_t j = 0; j < measurements.size(); ++j) {
        if (j != i) others.push_back(&measurements[j]);
      }
      without_run[i] = fold_fit(others, {&measurements[i]}, prior);
    });
  }
  std::vector<double> in_abs, loo_abs, loso_abs, loso_log;
  for (size_t i = 0; i < measurements.size(); ++i) {
    const Measurement& m = measurements[i];
    FitRow row;
    row.name = m.name;
    row.source = m.source;
    row.model = m.model.name;
    row.gpu = m.cluster.gpu.name;
    row.gpus = m.cluster.gpus;
    row.layout = fmt::format("{},row_tokens={},global_batch={},precision={}", layout::format_layout_spec(m.layout),
                             m.workload.row_tokens, m.workload.global_batch, to_string(m.workload.precision));
    // What the stack runs that the layout does not say (time_model.cpp prices it).
    if (m.workload.stack == Stack::torchtitan) row.layout += m.workload.compiled ? ",stack=torchtitan,compile=on" : ",stack=torchtitan,compile=off";
    if (m.workload.flash_attention_2) row.layout += ",attention_backend=flash";
    row.unmodelled = m.unmodelled;
    row.measured = m.measured_tokens_per_s_per_gpu;
    row.in_sample = predict_tokens_per_s(m, fit.calibration);
    row.leave_one_out = row.in_sample;
    row.leave_one_source_out = row.in_sample;
    if (cross_validate) {
      row.leave_one_out = predict_tokens_per_s(m, without_run[i]);
      const size_t s = static_cast<size_t>(std::find(sources.begin(), sources.end(), m.source) - sources.begin());
      row.leave_one_source_out = predict_tokens_per_s(m, without_source[s]);
    }
    const Prediction p = predict(m.costs, m.model, m.layout, m.cluster, m.workload, fit.calibration);
    row.fits = p.fits;
    row.fit_probability = p.fit_probability;
    row.fits_at_default_confidence = fits_at(p, kDefaultFitConfidence);
    // Against a measured peak, the share of the prediction that peak measures (max reserved: the
    // allocator's); else the whole.
    const std::optional<PeakMemoryKind> kind = parse_peak_memory_kind(m.peak_memory_kind);
    row.predicted_memory_gib = m.peak_memory_gib > 0 && kind ? predicted_peak_gib(p, *kind) : p.memory_gib;
    row.peak_memory_gib = m.peak_memory_gib;
    row.step_parts = p.step_parts;
    in_abs.push_back(std::fabs(row.in_sample_error()));
    loo_abs.push_back(std::fabs(row.leave_one_out_error()));
    loso_abs.push_back(std::fabs(row.leave_one_source_out_error()));
    loso_log.push_back(std::log(row.leave_one_source_out / row.measured));
    fit.rows.push_back(row);
  }
  fit.in_sample_median_abs_error = median(in_abs);
  fit.leave_one_out_median_abs_error = median(loo_abs);
  fit.leave_one_source_out_median_abs_error = median(loso_abs);
  fit.leave_one_source_out_worst_abs_error = *std::max_element(loso_abs.begin(), loso_abs.end());
  // The printed interval: the leave-one-source-out log residuals' split-conformal 80% quantile
  // (the ceil(0.8 (n + 1))-th smallest |residual|), widened per layout by the spread the fitted
  // constants' covariance gives it (predictor.cpp). The residuals are heavy-tailed (a few runs miss
  // by 25-35%), so their RMS taken as a normal 80% interval covered about 90% of the runs.
  std::vector<double> magnitudes;
  for (double e : loso_log) magnitudes.push_back(std::fabs(e));
  std::sort(magnitudes.begin(), magnitudes.end());
  const size_t rank =
      std::min(magnitudes.size(), static_cast<size_t>(std::ceil(0.8 * static_cast<double>(magnitudes.size() + 1))));
  fit.calibration.interval_log_halfwidth = std::clamp(magnitudes[rank - 1], 0.0, 2.0);
  int64_t covered = 0;
  for (size_t i = 0; i < measurements.size(); ++i) {
    const double halfwidth = throughput_log_halfwidth(measurements[i], fit.calibration);
    covered += std::fabs(loso_log[i]) <= halfwidth ? 1 : 0;
  }
  fit.interval_coverage = static_cast<double>(covered) / static_cast<double>(loso_log.size());
  for (const std::string& s : sources) {
    SourceFit sf;
    sf.source = s;
    std::vector<double> errors;
    for (const FitRow& row : fit.rows) {
      if (row.source == s) errors.push_back(std::fabs(row.leave_one_source_out_error()));
    }
    sf.runs = static_cast<int64_t>(errors.size());
    sf.median_abs_error = median(errors);
    sf.worst_abs_error = *std::max_element(errors.begin(), errors.end());
    fit.sources.push_back(sf);
  }
  for (const FitRow& row : fit.rows) {
    fit.calibration.fitted_on.push_back(
        fmt::format("{} ({}): measured {:.2f}, fitted {:.2f} ({:+.1f}%), leave-one-source-out {:.2f} ({:+.1f}%)",
                    row.name, row.source, row.measured, row.in_sample, 100 * row.in_sample_error(),
                    row.leave_one_source_out, 100 * row.leave_one_source_out_error()));
  }
  return fit;
}

}  // namespace ladle::plan
