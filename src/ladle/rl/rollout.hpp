#pragma once
// rollout.hpp: time and memory of SGLang engines generating an RL rollout (issue 34).
// The interface is shared by the rollout model (rollout.cpp) and the RL step and planner
// (rl_step.*, rl_plan.*); change it only together with both.

#include <cstdint>
#include <string>
#include <vector>

#include "ladle/hw/gpu_spec.hpp"
#include "ladle/model/model_spec.hpp"

namespace ladle::rl {

/// One SGLang engine's parallel layout, as slime's and miles' arguments give it
/// (--rollout-num-gpus-per-engine, --sglang-tp-size/--sglang-dp-size/--sglang-ep-size,
/// --sglang-enable-dp-attention, --sglang-mem-fraction-static).
/// SGLang's --tp-size counts every GPU of the engine (gpus == tp); DP attention splits them into
/// dp_attention groups of tp / dp_attention GPUs for attention, and EP spreads the routed experts
/// over ep of them (expert TP tp / ep).
struct EngineLayout {
  int gpus = 1;               ///< GPUs per engine
  int tp = 1;                 ///< tensor parallel size inside the engine
  int dp_attention = 1;       ///< data-parallel attention groups (1: off)
  int ep = 1;                 ///< expert parallel size inside the engine
  double mem_fraction = 0.8;  ///< fraction of HBM the engine takes (weights + KV cache)
  /// Bits per weight element of the matrices the engine serves: 16 (BF16), 8 (an FP8 checkpoint
  /// or --quantization fp8). Embeddings, the output head and norms stay BF16.
  int weight_bits = 16;
  /// Bits per KV-cache element (--kv-cache-dtype): 16 (auto, BF16) or 8 (fp8_e4m3 / fp8_e5m2).
  int kv_bits = 16;
  /// The scheduler admits a request only with KV room for its whole input and output
  /// (TensorRT-LLM's GUARANTEED_NO_EVICT capacity policy). false: SGLang's scheduler, which
  /// admits on an estimate of the output still to come and retracts requests when the pool fills,
  /// so the pool holds sequences at their mean length.
  bool reserve_full_output = false;
  bool operator==(const EngineLayout&) const = default;
};

/// What one rollout generates.
struct RolloutWorkload {
  int64_t prompts = 0;              ///< prompts per rollout (--rollout-batch-size)
  int64_t samples_per_prompt = 1;   ///< --n-samples-per-prompt
  int64_t prompt_tokens = 0;        ///< mean prompt length
  int64_t response_mean = 0;        ///< mean response length
  int64_t response_max = 0;         ///< longest response (--rollout-max-response-len); bounds a synchronous rollout
  bool operator==(const RolloutWorkload&) const = default;
};

/// Memory of one GPU of an engine.
struct RolloutMemory {
  double weights_bytes = 0;     ///< model weights held by this GPU
  double kv_bytes = 0;          ///< KV cache (and linear/Mamba states) pool at the memory fraction
  double other_bytes = 0;       ///< activations, CUDA graphs, context
  double kv_tokens = 0;         ///< tokens the engine's KV pool holds
};

/// The prediction for one rollout on `engines` engines of one layout.
struct RolloutEstimate {
  double seconds = 0;             ///< wall time of the rollout (synchronous: until the longest sample ends)
  double seconds_lo = 0;          ///< 80% interval
  double seconds_hi = 0;
  double prefill_seconds = 0;     ///< parts of `seconds`
  double decode_seconds = 0;
  double output_tokens_per_s = 0; ///< generated tokens per second, all engines together
  int64_t concurrency = 0;        ///< sequences decoded at once per engine (KV- or batch-bound)
  RolloutMemory memory;           ///< per GPU
  std::string bound;              ///< what limits decode: "HBM bandwidth", "KV capacity", ...
};

/// Predicts one rollout. Throws Error(usage) naming the argument for a layout SGLang rejects (TP
/// not dividing the attention heads, EP not dividing the experts, gpus != tp x ...), and Error(no)
/// when the weights do not fit in the memory fraction.
RolloutEstimate estimate_rollout(const ModelSpec& model, const GpuSpec& gpu,
                                 const EngineLayout& engine, int engines,
                                 const RolloutWorkload& work);

/// One serving measurement as benchmarks report it (fixed input and output lengths, a
/// concurrency or batch), for calibration and the fidelity check.
struct ServingPoint {
  int64_t concurrency = 0;   ///< requests in flight per engine
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
};

/// Output tokens per second of one engine at a serving point, with its 80% interval.
struct ServingEstimate {
  double output_tokens_per_s = 0;
  double lo = 0;
  double hi = 0;
};
ServingEstimate estimate_serving(const ModelSpec& model, const GpuSpec& gpu,
                                 const EngineLayout& engine, const ServingPoint& point);

/// The fitted constants of the rollout model (data/inference/fit.yaml, fitted by
/// fit_serving() on data/inference/serving.yaml) and the 80% interval of its residuals.
struct ServingConstants {
  /// Achieved fraction of the GPU's HBM bandwidth in a decode step (weights and KV cache read).
  double hbm_fraction = 0;
  /// Host and launch time per decode step that no kernel hides (scheduler, sampling, graph launch), s.
  double step_overhead_s = 0;
  /// GPU time per decoder layer of a decode step beyond its bytes and FLOPs (the gaps and tails
  /// of the layer's dozen small kernels), s.
  double layer_overhead_s = 0;
  /// 10th and 90th percentiles of log(measured / predicted) over the leave-one-source-out
  /// predictions: the 80% interval of a prediction.
  double log_lo = 0;
  double log_hi = 0;
  std::string source;  ///< where the constants were read ("embedded:data/inference/fit.yaml")
};
/// The embedded fit (parsed once).
const ServingConstants& serving_constants();

/// estimate_serving and estimate_rollout with explicit constants (the fit and the fidelity check).
ServingEstimate estimate_serving(const ModelSpec& model, const GpuSpec& gpu,
                                 const EngineLayout& engine, const ServingPoint& point,
                                 const ServingConstants& constants);
RolloutEstimate estimate_rollout(const ModelSpec& model, const GpuSpec& gpu,
                                 const EngineLayout& engine, int engines,
                                 const RolloutWorkload& work, const ServingConstants& constants);

/// Bytes one sequence of `context` tokens keeps on one GPU of the engine: the KV cache of its
/// softmax-attention layers (GQA heads split by attention TP; MLA's compressed latent and rope
/// key whole on every rank; a DSA indexer's keys; sliding-window layers only their window) plus
/// the fixed recurrent state of linear-attention and Mamba layers. Validates the layout.
double kv_bytes_per_sequence(const ModelSpec& model, const EngineLayout& engine,
                             int64_t context);

/// Memory of one GPU of the engine at its memory fraction; throws Error(no) when the weights do
/// not fit in mem_fraction x HBM, Error(usage) for a layout SGLang rejects.
RolloutMemory engine_memory(const ModelSpec& model, const GpuSpec& gpu,
                            const EngineLayout& engine);

}  // namespace ladle::rl
