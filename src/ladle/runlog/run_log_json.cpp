// run_log_json.cpp: the JSON form of RunLog, Step and MemoryReport.
#include "ladle/runlog/run_log_json.hpp"

#include <cmath>
#include <optional>

namespace ladle::runlog {
namespace {

nlohmann::ordered_json json_number(const std::optional<double>& value) {
  if (!value) return nullptr;
  if (std::isnan(*value)) return "nan";
  if (std::isinf(*value)) return *value > 0 ? "inf" : "-inf";
  return *value;
}

nlohmann::ordered_json json_integer(const std::optional<int64_t>& value) {
  if (!value) return nullptr;
  return *value;
}

}  // namespace

nlohmann::ordered_json to_json(const Step& step) {
  nlohmann::ordered_json s;
  s["step"] = step.step;
  s["iterations"] = step.iterations;
  s["step_time_s"] = json_number(step.step_time_s);
  s["loss"] = json_number(step.loss);
  s["grad_norm"] = json_number(step.grad_norm);
  s["learning_rate"] = json_number(step.learning_rate);
  s["samples"] = json_integer(step.samples);
  s["tokens"] = json_integer(step.tokens);
  s["skipped_iterations"] = step.skipped_iterations;
  s["timestamp"] = step.timestamp ? nlohmann::ordered_json(*step.timestamp) : nlohmann::ordered_json(nullptr);
  s["line"] = step.line;
  return s;
}

nlohmann::ordered_json to_json(const MemoryReport& r) {
  nlohmann::ordered_json j;
  j["rank"] = r.rank >= 0 ? nlohmann::ordered_json(r.rank) : nlohmann::ordered_json(nullptr);
  j["after_iterations"] = r.after_iterations;
  j["allocated_gib"] = r.allocated_mib / 1024.0;
  j["max_allocated_gib"] = r.max_allocated_mib / 1024.0;
  j["reserved_gib"] = r.reserved_mib / 1024.0;
  j["max_reserved_gib"] = r.max_reserved_mib / 1024.0;
  j["line"] = r.line;
  return j;
}

nlohmann::ordered_json memory_json(const std::vector<MemoryReport>& reports) {
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (const MemoryReport& r : reports) ranks.push_back(to_json(r));
  nlohmann::ordered_json out;
  out["peak_max_allocated_gib"] = peak_allocated_gib(reports);
  out["peak_max_reserved_gib"] = peak_reserved_gib(reports);
  out["ranks"] = std::move(ranks);
  return out;
}

nlohmann::ordered_json to_json(const RunLog& log) {
  nlohmann::ordered_json entry;
  entry["path"] = log.path;
  entry["format"] = to_string(log.format);
  entry["records"] = log.steps.size();
  entry["log_interval"] = log.log_interval;
  entry["first_timestamp"] = log.first_timestamp ? nlohmann::ordered_json(*log.first_timestamp) : nullptr;
  entry["last_timestamp"] = log.last_timestamp ? nlohmann::ordered_json(*log.last_timestamp) : nullptr;
  entry["span_s"] = log.span_s ? nlohmann::ordered_json(*log.span_s) : nullptr;
  entry["notes"] = log.notes;
  if (!log.memory.empty()) entry["memory"] = memory_json(log.memory);
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const Step& step : log.steps) steps.push_back(to_json(step));
  entry["steps"] = std::move(steps);
  return entry;
}

}  // namespace ladle::runlog
