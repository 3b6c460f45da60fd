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
struct EngineLayout {
  int gpus = 1;               ///< GPUs per engine
  int tp = 1;                 ///< tensor parallel size inside the engine
  int dp_attention = 1;       ///< data-parallel attention groups (1: off)
  int ep = 1;                 ///< expert parallel size inside the engine
  double mem_fraction = 0.8;  ///< fraction of HBM the engine takes (weights + KV cache)
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
RolloutEstimate estimate_rollout(const model::ModelSpec& model, const hw::GpuSpec& gpu,
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
ServingEstimate estimate_serving(const model::ModelSpec& model, const hw::GpuSpec& gpu,
                                 const EngineLayout& engine, const ServingPoint& point);

}  // namespace ladle::rl
