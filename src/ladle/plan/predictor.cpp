#include "ladle/plan/predictor.hpp"

#include <fmt/format.h>

#include <cmath>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/plan/calibrate_memory.hpp"
#include "ladle/plan/measurements.hpp"
#include "ladle/util/error.hpp"

namespace ladle::plan {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
}  // namespace

const char* to_string(MemoryPart part) {
  switch (part) {
    case MemoryPart::weights: return "weights";
    case MemoryPart::gradients: return "gradients";
    case MemoryPart::optimizer_states: return "optimizer states";
    case MemoryPart::activations: return "activations";
    case MemoryPart::logits: return "logits";
    case MemoryPart::working_set: return "working set";
    case MemoryPart::dispatch_buffers: return "dispatch buffers";
    case MemoryPart::tp_overlap_buffers: return "TP overlap buffers";
    case MemoryPart::cuda_graphs: return "CUDA graph buffers";
    case MemoryPart::workspaces: return "workspaces";
    case MemoryPart::allocator_slack: return "allocator slack";
    case MemoryPart::nccl_buffers: return "NCCL buffers";
    case MemoryPart::cuda_context: return "CUDA context";
    case MemoryPart::count: break;
  }
  return "?";
}

const char* to_string(TimePart part) {
  switch (part) {
    case TimePart::dense_gemm: return "dense GEMM";
    case TimePart::expert_gemm: return "expert GEMM";
    case TimePart::attention: return "attention";
    case TimePart::elementwise: return "elementwise";
    case TimePart::recompute: return "recompute";
    case TimePart::tp_comm: return "TP comm";
    case TimePart::ep_comm: return "EP all-to-all";
    case TimePart::cp_comm: return "CP exchange";
    case TimePart::pp_p2p: return "PP p2p";
    case TimePart::host_launches: return "host-bound launches";
    case TimePart::activation_offload: return "activation offload";
    case TimePart::pipeline_bubble: return "pipeline bubble";
    case TimePart::dp_comm: return "DP comm";
    case TimePart::optimizer_gpu: return "optimizer (GPU)";
    case TimePart::optimizer_cpu: return "optimizer (CPU)";
    case TimePart::host_copies: return "device-host copies";
    case TimePart::step_host: return "step host loop";
    case TimePart::count: break;
  }
  return "?";
}

layout::LayoutContext checking_context(const ModelSpec& model, const Cluster& cluster, const Workload& workload) {
  return layout::checking_context(model, cluster.gpu, cluster.gpus, cluster.gpus_per_node(), workload.row_tokens,
                                  workload.global_batch);
}

Prediction predict(const ModelCosts& costs, const ModelSpec& model, const Layout& layout,
                   const Cluster& cluster, const Workload& workload, const Calibration& calibration) {
  const layout::LayoutContext context = checking_context(model, cluster, workload);
  layout::require_valid_layout(layout, model, context);
  const std::vector<int64_t> stages = layout::stage_layers(layout, costs.num_layers);
  const int64_t microbatches = layout::microbatches_per_step(layout, context);

  Prediction p;
  p.layout = layout;
  p.microbatches = microbatches;
  std::vector<std::array<double, kMemoryParts>> stage_parts;
  const MemoryEstimate memory =
      estimate_memory(costs, layout, stages, microbatches, cluster, calibration, &stage_parts);
  for (size_t s = 0; s < stage_parts.size(); ++s) {
    StageMemory stage;
    stage.stage = static_cast<int64_t>(s);
    stage.layers = stages[s];
    // DualPipe: pipeline rank s holds stages s and pp - 1 - s.
    if (layout.schedule == PipelineSchedule::dualpipe && stages.size() == stage_parts.size())
      stage.layers += stages[stage_parts.size() - 1 - s];
    for (size_t i = 0; i < kMemoryParts; ++i) {
      const double gib = stage_parts[s][i] / kGiB;
      stage.parts.push_back(Part{to_string(static_cast<MemoryPart>(i)), gib});
      stage.total_gib += gib;
    }
    p.stages.push_back(std::move(stage));
  }
  p.worst_stage = memory.worst_stage;
  p.memory_gib = memory.worst_bytes / kGiB;
  // The memory interval at the throughput interval's level, 80%.
  p.memory_low_gib = p.memory_gib * std::exp(-kNormalQuantile80 * calibration.memory_log_spread);
  p.memory_high_gib = p.memory_gib * std::exp(kNormalQuantile80 * calibration.memory_log_spread);
  p.allocator_memory_gib = memory.allocator_bytes / kGiB;
  p.allocator_slack_gib = memory.worst[static_cast<size_t>(MemoryPart::allocator_slack)] / kGiB;
  p.capacity_gib = hbm_capacity_gib(cluster.gpu);
  p.host_memory_gib = memory.host_bytes_per_node / kGiB;
  p.host_capacity_gib = cluster.instance.host_memory_gib * calibration.host_memory_usable;
  p.fits = p.memory_gib <= p.capacity_gib && p.host_memory_gib <= p.host_capacity_gib;
  // The verdict as a probability: the model's log error is normal with the calibrated spread.
  p.memory_log_spread = calibration.memory_log_spread;
  const auto holds = [&](double used, double capacity) {
    if (used <= 0) return 1.0;
    if (!(capacity > 0)) return 0.0;
    if (!(p.memory_log_spread > 0)) return used <= capacity ? 1.0 : 0.0;
    return normal_cdf(std::log(capacity / used) / p.memory_log_spread);
  };
  p.hbm_fit_probability = holds(p.memory_gib, p.capacity_gib);
  p.host_fit_probability = holds(p.host_memory_gib, p.host_capacity_gib);
  p.fit_probability = p.hbm_fit_probability * p.host_fit_probability;
  p.binding_limit = p.host_fit_probability < p.hbm_fit_probability ? std::string("host memory")
                                                                   : fmt::format("HBM of stage {}", p.worst_stage);
  size_t dominant = 0;
  for (size_t i = 1; i < kMemoryParts; ++i) {
    if (memory.worst[i] > memory.worst[dominant]) dominant = i;
  }
  p.memory_dominant = to_string(static_cast<MemoryPart>(dominant));

  const TimeEstimate time = estimate_time(costs, layout, stages, microbatches, cluster, workload, calibration);
  size_t largest = 0;
  for (size_t i = 0; i < kTimeParts; ++i) {
    p.step_parts.push_back(Part{to_string(static_cast<TimePart>(i)), time.parts[i]});
    if (time.parts[i] > time.parts[largest]) largest = i;
  }
  p.time_dominant = to_string(static_cast<TimePart>(largest));
  p.attention_backward = time.attention_backward;
  p.step_time_s = time.step_s;
  const double tokens = static_cast<double>(workload.global_batch * workload.row_tokens);
  p.tokens_per_s_per_gpu = tokens / time.step_s / static_cast<double>(cluster.gpus);
  const double halfwidth = interval_log_halfwidth(costs, layout, stages, microbatches, cluster, workload, calibration);
  p.tokens_per_s_low = p.tokens_per_s_per_gpu * std::exp(-halfwidth);
  p.tokens_per_s_high = p.tokens_per_s_per_gpu * std::exp(halfwidth);
  p.unmeasured = outside_measured(costs, layout, cluster, workload, embedded_measurements());
  p.mfu = 6.0 * costs.n_params * p.tokens_per_s_per_gpu / (cluster.gpu.bf16_dense_tflops * 1e12);
  p.usd_per_million_tokens = cluster.instance.usd_per_gpu_hour() / (p.tokens_per_s_per_gpu * 3600.0) * 1e6;
  return p;
}

double memory_quantile_gib(double gib, double log_spread, double confidence) {
  LADLE_ASSERT(confidence > 0 && confidence < 1, "a confidence in (0, 1)");
  // The standard normal's quantile by bisection on normal_cdf (monotone; 60 halvings of [-10, 10]).
  double lo = -10, hi = 10;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_cdf(mid) < confidence ? lo : hi) = mid;
  }
  return gib * std::exp(0.5 * (lo + hi) * log_spread);
}

bool fits_at(const Prediction& p, double confidence) {
  LADLE_ASSERT(confidence > 0 && confidence < 1, "a confidence in (0, 1)");
  return 1 - p.fit_probability < confidence;
}

double memory_margin_gib(const Prediction& p, double confidence) {
  return p.capacity_gib - memory_quantile_gib(p.memory_gib, p.memory_log_spread, confidence);
}

double fit_confidence_margin(double confidence, double memory_log_spread) {
  if (!(memory_log_spread > 0)) return 0;
  return 1.0 - 1.0 / memory_quantile_gib(1.0, memory_log_spread, confidence);
}

double verdict_confidence(std::optional<double> confidence) {
  const double c = confidence.value_or(kDefaultFitConfidence);
  if (!(c > 0 && c < 1)) throw_usage("--fit-confidence must be between 0 and 1 (exclusive), got {}", c);
  return c;
}

double plan_memory_margin(std::optional<double> margin, std::optional<double> confidence,
                          const Calibration& calibration) {
  if (margin && confidence) throw_usage("give --margin (a fixed fraction of HBM) or --fit-confidence, not both");
  if (margin) {
    if (!(*margin >= 0 && *margin < 1)) throw_usage("--margin must be in [0, 1), got {}", *margin);
    return *margin;
  }
  const double c = confidence.value_or(kDefaultFitConfidence);
  if (!(c > 0 && c < 1)) throw_usage("--fit-confidence must be between 0 and 1 (exclusive), got {}", c);
  return fit_confidence_margin(c, calibration.memory_log_spread);
}

double interval_log_halfwidth(const ModelCosts& costs, const Layout& layout, const std::vector<int64_t>& stages,
                              int64_t microbatches, const Cluster& cluster, const Workload& workload,
                              const Calibration& calibration) {
  // The residual half-width is an 80% interval, so its variance is (w / kNormalQuantile80)^2; the
  // constants add g' C g, g the step time's sensitivity to each log constant.
  constexpr double kStep = 1e-3;
  const double w = calibration.interval_log_halfwidth;
  const size_t n = calibration.covariance_names.size();
  if (n == 0 || calibration.covariance.size() != n) return w;
  const double base = estimate_time(costs, layout, stages, microbatches, cluster, workload, calibration).step_s;
  std::vector<double> g(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    double value = 0;
    for (const CalibrationConstant& k : calibration_constants(calibration)) {
      if (k.name == calibration.covariance_names[i]) value = k.value;
    }
    if (!(value > 0)) continue;
    Calibration up = calibration;
    set_calibration_constant(up, calibration.covariance_names[i], value * std::exp(kStep));
    const double t = estimate_time(costs, layout, stages, microbatches, cluster, workload, up).step_s;
    g[i] = std::log(t / base) / kStep;
  }
  double variance = 0;
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = 0; b < n; ++b) variance += g[a] * calibration.covariance[a][b] * g[b];
  }
  const double residual = w / kNormalQuantile80;
  return kNormalQuantile80 * std::sqrt(residual * residual + std::max(0.0, variance));
}

}  // namespace ladle::plan
