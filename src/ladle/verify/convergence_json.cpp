// convergence_json.cpp: the JSON form of ConvergenceReport.
#include "ladle/verify/convergence_json.hpp"

namespace ladle::verify {

nlohmann::ordered_json to_json(const ConvergenceThresholds& t) {
  nlohmann::ordered_json j;
  j["correlation_min"] = t.correlation_min;
  j["final_loss_tolerance"] = t.final_loss_tolerance;
  j["max_failure_ratio"] = t.max_failure_ratio;
  j["max_outlier_ratio"] = t.max_outlier_ratio;
  j["source"] = t.source;
  return j;
}

nlohmann::ordered_json to_json(const ConvergencePoint& p) {
  nlohmann::ordered_json j;
  j["step"] = p.step;
  j["reference"] = p.reference;
  j["candidate"] = p.candidate;
  j["relative_difference"] = p.relative_difference;
  j["tolerance"] = p.tolerance;
  j["failed"] = p.failed;
  j["outlier"] = p.outlier;
  return j;
}

nlohmann::ordered_json to_json(const ConvergenceReport& r) {
  nlohmann::ordered_json out;
  out["reference"] = r.reference_path;
  out["candidate"] = r.candidate_path;
  out["result"] = r.passed ? "pass" : "fail";
  out["steps"] = r.steps;
  out["correlation"] = r.correlation ? nlohmann::ordered_json(*r.correlation) : nullptr;
  out["final_loss_difference"] = r.final_loss_difference ? nlohmann::ordered_json(*r.final_loss_difference) : nullptr;
  out["pointwise_failures"] = r.pointwise_failures;
  out["outliers"] = r.outliers;
  out["reasons"] = r.reasons;
  out["thresholds"] = to_json(r.thresholds);
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const ConvergencePoint& p : r.points) points.push_back(to_json(p));
  out["points"] = std::move(points);
  return out;
}

}  // namespace ladle::verify
