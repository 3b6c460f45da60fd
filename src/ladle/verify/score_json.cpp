// score_json.cpp: the JSON form of ScoreReport and RlScoreReport.
#include "ladle/verify/score_json.hpp"

#include <optional>

namespace ladle::verify {
namespace {

nlohmann::ordered_json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace

nlohmann::ordered_json to_json(const RunScore& run) {
  nlohmann::ordered_json j;
  j["log"] = run.path;
  j["format"] = runlog::to_string(run.format);
  j["steps_per_run"] = run.steps_per_run;
  j["window"] = {run.window.first, run.window.last};
  j["window_records"] = run.window_records;
  j["window_iterations"] = run.window_iterations;
  j["window_tokens"] = run.window_tokens;
  j["window_time_s"] = run.window_time_s;
  j["span_s"] = optional_json(run.span_s);
  return j;
}

nlohmann::ordered_json to_json(const ScoreReport& r) {
  nlohmann::ordered_json out;
  out["gpus"] = r.inputs.gpus;
  out["tokens_per_s_per_gpu"] = r.tokens_per_s_per_gpu;
  out["step_time_mean_s"] = r.step_time_mean_s;
  out["step_time_cv_percent"] = optional_json(r.step_time_cv_percent);
  out["step_time_cv_convention"] = "sample standard deviation (n - 1) / mean";
  out["mfu"] = optional_json(r.mfu);
  out["active_params"] = r.inputs.active_params ? nlohmann::ordered_json(*r.inputs.active_params) : nullptr;
  out["peak_tflops"] = optional_json(r.inputs.peak_tflops);
  out["usd_per_million_tokens"] = optional_json(r.usd_per_million_tokens);
  out["peak_memory_gib"] = optional_json(r.peak_memory_gib);
  out["usd_per_gpu_hour"] = optional_json(r.inputs.usd_per_gpu_hour);
  out["price_source"] = r.inputs.price_source;
  out["gpu_hours"] = optional_json(r.gpu_hours);
  out["window_tokens"] = r.window_tokens;
  out["window_time_s"] = r.window_time_s;
  out["tokens_source"] = r.tokens_source;
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const RunScore& run : r.runs) runs.push_back(to_json(run));
  out["runs"] = std::move(runs);
  out["notes"] = r.notes;
  return out;
}

nlohmann::ordered_json to_json(const RlRunScore& run) {
  nlohmann::ordered_json j;
  j["log"] = run.path;
  j["format"] = runlog::to_string(run.format);
  j["rollouts"] = run.rollouts;
  j["window"] = {run.window.first, run.window.last};
  j["window_rollouts"] = run.window_rollouts;
  j["window_samples"] = run.window_samples;
  j["window_tokens"] = run.window_tokens;
  j["window_time_s"] = run.window_time_s;
  return j;
}

nlohmann::ordered_json to_json(const RlScoreReport& r) {
  nlohmann::ordered_json out;
  out["gpus"] = r.inputs.gpus;
  out["samples_per_s"] = r.samples_per_s;
  out["trained_tokens_per_s_per_gpu"] = r.trained_tokens_per_s_per_gpu;
  out["usd_per_million_trained_tokens"] = optional_json(r.usd_per_million_trained_tokens);
  out["usd_per_gpu_hour"] = optional_json(r.inputs.usd_per_gpu_hour);
  out["price_source"] = r.inputs.price_source;
  out["step_time_mean_s"] = r.step_time_mean_s;
  out["step_time_cv_percent"] = optional_json(r.step_time_cv_percent);
  out["step_time_cv_convention"] = "sample standard deviation (n - 1) / mean";
  out["mfu"] = optional_json(r.mfu);
  out["gpu_hours"] = optional_json(r.gpu_hours);
  nlohmann::ordered_json split;
  split["rollout"] = r.phase_split.rollout;
  split["log_prob"] = r.phase_split.log_prob;
  split["train"] = r.phase_split.train;
  split["weight_update"] = r.phase_split.weight_update;
  split["other"] = r.phase_split.other;
  out["phase_split"] = std::move(split);
  out["tokens_source"] = r.tokens_source;
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const RlRunScore& run : r.runs) runs.push_back(to_json(run));
  out["runs"] = std::move(runs);
  out["notes"] = r.notes;
  return out;
}

nlohmann::ordered_json prediction_json(const Predicted& predicted, double measured_tokens_per_s_per_gpu) {
  nlohmann::ordered_json p;
  p["planner"] = predicted.planner;
  p["tokens_per_s_per_gpu"] = predicted.tokens_per_s_per_gpu;
  p["tokens_per_s_per_gpu_low"] = optional_json(predicted.tokens_per_s_per_gpu_low);
  p["tokens_per_s_per_gpu_high"] = optional_json(predicted.tokens_per_s_per_gpu_high);
  p["step_time_s"] = predicted.step_time_s;
  p["mfu"] = predicted.mfu;
  p["usd_per_million_tokens"] = predicted.usd_per_million_tokens;
  p["memory_gib"] = predicted.memory_gib;
  p["measured_over_predicted"] = measured_tokens_per_s_per_gpu / predicted.tokens_per_s_per_gpu;
  return p;
}

}  // namespace ladle::verify
