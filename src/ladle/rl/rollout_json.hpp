// rollout_json.hpp: the JSON form of the rollout and serving model's value types, as
// `ladle rollout --json` prints them (key order is the output order).
#pragma once

#include <nlohmann/json.hpp>

#include "ladle/rl/rollout.hpp"
#include "ladle/rl/serving_data.hpp"

namespace ladle::rl {

/// gpus, tp, dp_attention, ep, mem_fraction, weight_bits, kv_bits.
nlohmann::ordered_json to_json(const EngineLayout& engine);

/// prompts, samples_per_prompt, prompt_tokens, response_mean, response_max.
nlohmann::ordered_json to_json(const RolloutWorkload& work);

/// Per GPU, in GiB (2^30 bytes), and the tokens the engine's KV pool holds.
nlohmann::ordered_json to_json(const RolloutMemory& memory);

/// The rollout's time, its parts and interval, throughput, decode concurrency, bound and memory.
nlohmann::ordered_json to_json(const RolloutEstimate& estimate);

/// concurrency, input_tokens, output_tokens.
nlohmann::ordered_json to_json(const ServingPoint& point);

/// output_tokens_per_s with its 80% interval (lo, hi).
nlohmann::ordered_json to_json(const ServingEstimate& estimate);

/// One measured row with its fitted and held-out predictions.
nlohmann::ordered_json to_json(const ServingFitRow& row);

/// The fitted constants with their leave-one-source-out ranges, the rows and the errors.
nlohmann::ordered_json to_json(const ServingFit& fit);

}  // namespace ladle::rl
