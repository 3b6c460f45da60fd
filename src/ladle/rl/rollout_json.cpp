// rollout_json.cpp: the JSON form of EngineLayout, RolloutEstimate, ServingEstimate and ServingFit.
#include "ladle/rl/rollout_json.hpp"

namespace ladle::rl {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

nlohmann::ordered_json to_json(const EngineLayout& e) {
  nlohmann::ordered_json j;
  j["gpus"] = e.gpus;
  j["tp"] = e.tp;
  j["dp_attention"] = e.dp_attention;
  j["ep"] = e.ep;
  j["mem_fraction"] = e.mem_fraction;
  j["weight_bits"] = e.weight_bits;
  j["kv_bits"] = e.kv_bits;
  return j;
}

nlohmann::ordered_json to_json(const RolloutWorkload& w) {
  nlohmann::ordered_json j;
  j["prompts"] = w.prompts;
  j["samples_per_prompt"] = w.samples_per_prompt;
  j["prompt_tokens"] = w.prompt_tokens;
  j["response_mean"] = w.response_mean;
  j["response_max"] = w.response_max;
  return j;
}

nlohmann::ordered_json to_json(const RolloutMemory& m) {
  nlohmann::ordered_json j;
  j["weights_gib"] = m.weights_bytes / kGiB;
  j["kv_gib"] = m.kv_bytes / kGiB;
  j["other_gib"] = m.other_bytes / kGiB;
  j["kv_tokens"] = m.kv_tokens;
  return j;
}

nlohmann::ordered_json to_json(const RolloutEstimate& r) {
  nlohmann::ordered_json j;
  j["seconds"] = r.seconds;
  j["seconds_lo"] = r.seconds_lo;
  j["seconds_hi"] = r.seconds_hi;
  j["prefill_seconds"] = r.prefill_seconds;
  j["decode_seconds"] = r.decode_seconds;
  j["output_tokens_per_s"] = r.output_tokens_per_s;
  j["concurrency_per_engine"] = r.concurrency;
  j["bound"] = r.bound;
  j["memory_per_gpu"] = to_json(r.memory);
  return j;
}

nlohmann::ordered_json to_json(const ServingPoint& p) {
  nlohmann::ordered_json j;
  j["concurrency"] = p.concurrency;
  j["input_tokens"] = p.input_tokens;
  j["output_tokens"] = p.output_tokens;
  return j;
}

nlohmann::ordered_json to_json(const ServingEstimate& s) {
  nlohmann::ordered_json j;
  j["output_tokens_per_s"] = s.output_tokens_per_s;
  j["lo"] = s.lo;
  j["hi"] = s.hi;
  return j;
}

nlohmann::ordered_json to_json(const ServingFitRow& r) {
  nlohmann::ordered_json row;
  row["id"] = r.row->id;
  row["from"] = r.row->from;
  row["source"] = r.row->source;
  row["model"] = r.row->model;
  row["gpu"] = r.row->gpu;
  row["engine"] = r.row->engine;
  row["layout"] = to_json(r.row->layout);
  row["concurrency"] = r.row->point.concurrency;
  row["input"] = r.row->point.input_tokens;
  row["output"] = r.row->point.output_tokens;
  row["measured_tokens_per_s_per_engine"] = r.row->measured;
  row["fitted"] = r.fitted;
  row["held_out"] = r.held_out;
  row["held_out_lo"] = r.lo;
  row["held_out_hi"] = r.hi;
  return row;
}

nlohmann::ordered_json to_json(const ServingFit& fit) {
  nlohmann::ordered_json j;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const ServingFitRow& r : fit.rows) rows.push_back(to_json(r));
  j["rows"] = rows;
  j["hbm_fraction"] = fit.constants.hbm_fraction;
  j["hbm_fraction_range"] = {fit.hbm_fraction_lo, fit.hbm_fraction_hi};
  j["step_overhead_s"] = fit.constants.step_overhead_s;
  j["step_overhead_s_range"] = {fit.step_overhead_lo, fit.step_overhead_hi};
  j["layer_overhead_s"] = fit.constants.layer_overhead_s;
  j["layer_overhead_s_range"] = {fit.layer_overhead_lo, fit.layer_overhead_hi};
  j["log_lo"] = fit.constants.log_lo;
  j["log_hi"] = fit.constants.log_hi;
  j["sources"] = fit.sources;
  j["median_abs_error_fitted"] = fit.median_abs_error_fitted;
  j["median_abs_error_held_out"] = fit.median_abs_error_held_out;
  return j;
}

}  // namespace ladle::rl
