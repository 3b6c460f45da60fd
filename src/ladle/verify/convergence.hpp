#pragma once
// convergence.hpp: does a candidate run's loss curve follow its reference run's? Megatron-Bridge's
// convergence-validation conventions, made strict about missing and non-finite points.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/recipe/recipe.hpp"
#include "ladle/runlog/run_log.hpp"

namespace ladle::verify {

/// The pass criteria (data/rules/convergence.yaml documents each and its source).
struct ConvergenceThresholds {
  double correlation_min = 0;
  double high_loss_above = 0;
  double high_loss_tolerance = 0;
  double medium_loss_above = 0;
  double medium_loss_tolerance = 0;
  double low_loss_tolerance = 0;
  double final_loss_tolerance = 0;
  double max_failure_ratio = 0;
  double outlier_sigma = 0;
  double max_outlier_ratio = 0;
  std::string source;
  bool operator==(const ConvergenceThresholds&) const = default;

  /// The relative tolerance for a step whose reference loss is `reference`.
  double tolerance_for(double reference) const;
};

/// Parses thresholds in the format of data/rules/convergence.yaml; throws Error(input) at
/// file:line:col naming a missing or non-numeric key.
ConvergenceThresholds parse_convergence_thresholds(std::string_view yaml, const std::string& file);

/// The embedded data/rules/convergence.yaml.
const ConvergenceThresholds& default_convergence_thresholds();

/// One compared step.
struct ConvergencePoint {
  int64_t step = 0;
  double reference = 0;
  double candidate = 0;
  double relative_difference = 0;  ///< |candidate - reference| / |reference|
  double tolerance = 0;
  bool failed = false;
  bool outlier = false;
  bool operator==(const ConvergencePoint&) const = default;
};

/// The result of `ladle converge`.
struct ConvergenceReport {
  std::string reference_path;
  std::string candidate_path;
  int64_t steps = 0;  ///< steps compared
  std::vector<ConvergencePoint> points;
  std::optional<double> correlation;            ///< Pearson; nullopt when undefined
  std::optional<double> final_loss_difference;  ///< relative, last compared step
  int64_t pointwise_failures = 0;
  int64_t outliers = 0;
  bool passed = false;
  std::vector<std::string> reasons;  ///< why it failed; empty when it passed
  ConvergenceThresholds thresholds;
  bool operator==(const ConvergenceReport&) const = default;
};

/// Compares the two runs' losses step by step: the first `steps` steps of the reference (all of
/// them when nullopt), each of which the candidate must have too. Never throws for a bad series:
/// a missing step, a step without a loss or with a non-finite one, runs of different lengths or
/// different log intervals make the check fail with the reason.
ConvergenceReport check_convergence(const runlog::RunLog& reference, const runlog::RunLog& candidate,
                                    std::optional<int64_t> steps, const ConvergenceThresholds& thresholds);

/// `existing` (or a new block) with steps, result, correlation (6 decimals), final loss difference
/// (5 decimals) and pointwise failures from the report; its note is kept.
Convergence update_convergence(const std::optional<Convergence>& existing, const ConvergenceReport& report);

}  // namespace ladle::verify
