#include "ladle/verify/convergence.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/rounding.hpp"

namespace ladle::verify {

namespace {

using util::round_to;

constexpr const char* kThresholdsFile = "data/rules/convergence.yaml";

double number(const YAML::Node& root, const char* key, const std::string& file) {
  const YAML::Node node = root[key];
  if (!node) throw_input(SourceLocation{file, 0, 0, key}, "missing");
  try {
    return node.as<double>();
  } catch (const YAML::Exception&) {
    throw_input(SourceLocation{file, node.Mark().line + 1, node.Mark().column + 1, key}, "'{}' is not a number",
                node.as<std::string>());
  }
}

std::string format_value(double value) { return fmt::format("{:.6g}", value); }

}  // namespace

double ConvergenceThresholds::tolerance_for(double reference) const {
  if (reference > high_loss_above) return high_loss_tolerance;
  if (reference > medium_loss_above) return medium_loss_tolerance;
  return low_loss_tolerance;
}

ConvergenceThresholds parse_convergence_thresholds(std::string_view yaml, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    throw_input(SourceLocation{file, e.mark.line + 1, e.mark.column + 1, ""}, "{}", e.msg);
  }
  ConvergenceThresholds t;
  t.correlation_min = number(root, "correlation_min", file);
  t.high_loss_above = number(root, "high_loss_above", file);
  t.high_loss_tolerance = number(root, "high_loss_tolerance", file);
  t.medium_loss_above = number(root, "medium_loss_above", file);
  t.medium_loss_tolerance = number(root, "medium_loss_tolerance", file);
  t.low_loss_tolerance = number(root, "low_loss_tolerance", file);
  t.final_loss_tolerance = number(root, "final_loss_tolerance", file);
  t.max_failure_ratio = number(root, "max_failure_ratio", file);
  t.outlier_sigma = number(root, "outlier_sigma", file);
  t.max_outlier_ratio = number(root, "max_outlier_ratio", file);
  t.source = root["source"] ? root["source"].as<std::string>() : "";
  return t;
}

const ConvergenceThresholds& default_convergence_thresholds() {
  static const ConvergenceThresholds thresholds = [] {
    const auto text = util::find_embedded(kThresholdsFile);
    LADLE_ASSERT(text.has_value(), "data/rules/convergence.yaml is embedded");
    return parse_convergence_thresholds(*text, kThresholdsFile);
  }();
  return thresholds;
}

ConvergenceReport check_convergence(const runlog::RunLog& reference, const runlog::RunLog& candidate,
                                    std::optional<int64_t> steps, const ConvergenceThresholds& thresholds) {
  ConvergenceReport report;
  report.reference_path = reference.path;
  report.candidate_path = candidate.path;
  report.thresholds = thresholds;
  auto& reasons = report.reasons;

  const auto n_reference = static_cast<int64_t>(reference.steps.size());
  const auto n_candidate = static_cast<int64_t>(candidate.steps.size());
  int64_t n = steps.value_or(n_reference);
  if (steps && *steps <= 0) {
    reasons.push_back("--steps must be at least 1");
    return report;
  }
  if (!steps && n_candidate != n_reference) {
    reasons.push_back(fmt::format("runs of different lengths: the reference has {} steps, the candidate {}; pass "
                                  "--steps {} to compare the first {}",
                                  n_reference, n_candidate, std::min(n_reference, n_candidate),
                                  std::min(n_reference, n_candidate)));
  }
  if (n > n_reference) {
    reasons.push_back(fmt::format("--steps {} but the reference has only {} steps", n, n_reference));
    n = n_reference;
  }
  if (reference.log_interval != candidate.log_interval) {
    reasons.push_back(fmt::format("log intervals differ ({} and {}): the losses average different spans",
                                  reference.log_interval, candidate.log_interval));
  }
  const int64_t interval = reference.log_interval;
  // Both series in order, side by side (steps are sorted and unique, and a series decodes fastest
  // in order): the candidate's record of each reference step, when it has one.
  auto reference_at = reference.steps.begin();
  auto candidate_at = candidate.steps.begin();
  const auto candidate_end = candidate.steps.end();
  int64_t previous_step = 0;
  for (int64_t k = 0; k < n; ++k, ++reference_at) {
    const Step ref = *reference_at;
    if (k > 0 && ref.step - previous_step != interval) {
      reasons.push_back(fmt::format("step {} is missing from the reference", previous_step + interval));
    }
    previous_step = ref.step;
    while (candidate_at != candidate_end && (*candidate_at).step < ref.step) ++candidate_at;
    if (candidate_at == candidate_end || (*candidate_at).step != ref.step) {
      reasons.push_back(fmt::format("step {} is missing from the candidate", ref.step));
      continue;
    }
    const Step cand = *candidate_at;
    if (!ref.loss || !cand.loss) {
      reasons.push_back(fmt::format("step {} has no loss in the {}", ref.step, !ref.loss ? "reference" : "candidate"));
      continue;
    }
    if (!std::isfinite(*ref.loss) || !std::isfinite(*cand.loss)) {
      const bool in_reference = !std::isfinite(*ref.loss);
      reasons.push_back(fmt::format("step {}: the {} loss is {}", ref.step, in_reference ? "reference" : "candidate",
                                    in_reference ? *ref.loss : *cand.loss));
      continue;
    }
    ConvergencePoint point;
    point.step = ref.step;
    point.reference = *ref.loss;
    point.candidate = *cand.loss;
    point.relative_difference = point.reference != 0 ? std::fabs(point.candidate - point.reference) /
                                                           std::fabs(point.reference)
                                                     : std::fabs(point.candidate);
    point.tolerance = thresholds.tolerance_for(point.reference);
    point.failed = point.relative_difference > point.tolerance;
    report.points.push_back(point);
  }
  report.steps = static_cast<int64_t>(report.points.size());
  const bool complete = reasons.empty();
  if (report.points.empty()) {
    if (reasons.empty()) reasons.push_back("no step to compare");
    return report;
  }

  // Pearson correlation, as np.corrcoef; undefined, not 0, when a series is constant. Where the
  // sums overflow (losses near 1e308) it is taken on each series divided by its largest magnitude,
  // which leaves the correlation unchanged.
  const auto count = static_cast<double>(report.points.size());
  const auto constant = [&](double ConvergencePoint::*value) {
    return std::all_of(report.points.begin(), report.points.end(),
                       [&](const ConvergencePoint& p) { return p.*value == report.points.front().*value; });
  };
  const auto pearson = [&](double scale_r, double scale_c) -> std::optional<double> {
    double mean_r = 0, mean_c = 0;
    for (const auto& p : report.points) {
      mean_r += p.reference / scale_r;
      mean_c += p.candidate / scale_c;
    }
    mean_r /= count;
    mean_c /= count;
    double sxy = 0, sxx = 0, syy = 0;
    for (const auto& p : report.points) {
      const double dr = p.reference / scale_r - mean_r;
      const double dc = p.candidate / scale_c - mean_c;
      sxy += dr * dc;
      sxx += dr * dr;
      syy += dc * dc;
    }
    if (!(sxx > 0 && syy > 0)) return std::nullopt;
    const double r = sxy / std::sqrt(sxx * syy);
    if (!std::isfinite(r)) return std::nullopt;
    return std::clamp(r, -1.0, 1.0);
  };
  if (!constant(&ConvergencePoint::reference) && !constant(&ConvergencePoint::candidate)) {
    report.correlation = pearson(1.0, 1.0);
    if (!report.correlation) {
      double scale_r = 0, scale_c = 0;
      for (const auto& p : report.points) {
        scale_r = std::max(scale_r, std::fabs(p.reference));
        scale_c = std::max(scale_c, std::fabs(p.candidate));
      }
      report.correlation = pearson(scale_r, scale_c);
    }
  }

  for (const auto& p : report.points) report.pointwise_failures += p.failed ? 1 : 0;
  report.final_loss_difference = report.points.back().relative_difference;

  // Residual outliers: more than outlier_sigma population standard deviations from the mean.
  double mean_e = 0;
  for (const auto& p : report.points) mean_e += p.candidate - p.reference;
  mean_e /= count;
  double var_e = 0;
  for (const auto& p : report.points) {
    const double e = p.candidate - p.reference - mean_e;
    var_e += e * e;
  }
  const double sd_e = std::sqrt(var_e / count);
  for (auto& p : report.points) {
    p.outlier = std::fabs(p.candidate - p.reference - mean_e) > thresholds.outlier_sigma * sd_e;
    report.outliers += p.outlier ? 1 : 0;
  }

  if (!report.correlation) {
    reasons.push_back("correlation is undefined: a loss series is constant");
  } else if (*report.correlation < thresholds.correlation_min) {
    reasons.push_back(fmt::format("correlation {:.6f} < {}", *report.correlation, format_value(thresholds.correlation_min)));
  }
  const double failure_ratio = static_cast<double>(report.pointwise_failures) / count;
  if (failure_ratio > thresholds.max_failure_ratio) {
    reasons.push_back(fmt::format("{} of {} steps outside their tolerance ({:.1f}% > {}%)", report.pointwise_failures,
                                  report.steps, 100 * failure_ratio, format_value(100 * thresholds.max_failure_ratio)));
  }
  if (*report.final_loss_difference > thresholds.final_loss_tolerance) {
    reasons.push_back(fmt::format("final loss differs by {:.2f}% > {}%", 100 * *report.final_loss_difference,
                                  format_value(100 * thresholds.final_loss_tolerance)));
  }
  const double outlier_ratio = static_cast<double>(report.outliers) / count;
  if (outlier_ratio > thresholds.max_outlier_ratio) {
    reasons.push_back(fmt::format("{} of {} residuals are {}-sigma outliers ({:.1f}% > {}%)", report.outliers,
                                  report.steps, format_value(thresholds.outlier_sigma), 100 * outlier_ratio,
                                  format_value(100 * thresholds.max_outlier_ratio)));
  }
  report.passed = complete && reasons.empty();
  return report;
}

Convergence update_convergence(const std::optional<Convergence>& existing, const ConvergenceReport& report) {
  // The block holds measured figures: one that could not be measured is not written as 0 or NaN.
  if (report.points.empty()) {
    throw_input(SourceLocation{}, "correctness.convergence: no step with a finite loss in both logs, so there is "
                "nothing to record; nothing was written");
  }
  if (!report.correlation) {
    throw_input(SourceLocation{}, "correctness.convergence: the correlation is undefined (a loss series is "
                "constant), so it cannot be recorded; nothing was written");
  }
  if (!report.final_loss_difference || !std::isfinite(*report.final_loss_difference)) {
    throw_input(SourceLocation{}, "correctness.convergence: the final loss difference is not finite, so it cannot "
                "be recorded; nothing was written");
  }
  Convergence out = existing.value_or(Convergence{});
  out.steps = report.steps;
  out.result = report.passed ? "pass" : "fail";
  out.correlation = report.correlation ? round_to(*report.correlation, 6) : 0.0;
  out.final_loss_difference = report.final_loss_difference ? round_to(*report.final_loss_difference, 5) : 0.0;
  out.pointwise_failures = report.pointwise_failures;
  return out;
}

}  // namespace ladle::verify
