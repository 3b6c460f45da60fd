#pragma once
// prediction.hpp: Prediction, what the planner says one layout will do: memory per stage by part,
// step time by part, throughput, MFU and cost.

#include <cstdint>
#include <string>
#include <vector>

#include "ladle/layout/layout.hpp"

namespace ladle {

/// One named part of a total (GiB or seconds).
struct Part {
  std::string name;
  double value = 0;
  bool operator==(const Part&) const = default;
};

/// Memory of one pipeline stage, per GPU, GiB.
struct StageMemory {
  int64_t stage = 0;
  int64_t layers = 0;
  std::vector<Part> parts;  ///< weights, gradients, optimizer states, activations, ...
  double total_gib = 0;
  bool operator==(const StageMemory&) const = default;
};

/// The prediction for one layout.
struct Prediction {
  Layout layout;
  int64_t microbatches = 0;        ///< per data-parallel rank per step
  // Memory.
  std::vector<StageMemory> stages;
  int64_t worst_stage = 0;         ///< index into stages
  double memory_gib = 0;           ///< worst stage, per GPU
  double memory_low_gib = 0;       ///< 80% interval of memory_gib from the memory fit's spread
  double memory_high_gib = 0;
  /// The largest stage's share PyTorch's allocator holds (what max reserved measures), GiB.
  double allocator_memory_gib = 0;
  double allocator_slack_gib = 0;  ///< of the worst stage, GiB (max allocated leaves it out)
  double capacity_gib = 0;         ///< usable HBM per GPU
  bool fits = false;               ///< memory_gib <= capacity_gib and the host holds the offload
  double host_memory_gib = 0;      ///< optimizer states on one node's host
  double host_capacity_gib = 0;
  std::string memory_dominant;     ///< the largest part of the worst stage
  /// The memory verdict as a distribution: the real peak is memory_gib x exp(e), e normal with the
  /// calibration's memory_log_spread (fitted with the allocator slack to the published max-reserved
  /// peaks and to the runs that ran, calibrate_memory.hpp); the host's offloaded optimizer states
  /// likewise. 0 where the calibration carries no spread (the point verdict alone).
  double memory_log_spread = 0;
  double hbm_fit_probability = 1;   ///< P(the worst stage's peak <= capacity_gib)
  double host_fit_probability = 1;  ///< P(the offloaded states <= host_capacity_gib); 1 with no offload
  double fit_probability = 1;       ///< both (the two errors taken as independent)
  /// What binds: "HBM of stage 3" or "host memory" (the limit with the lower probability of holding).
  std::string binding_limit;
  // Time.
  std::vector<Part> step_parts;    ///< seconds per part; sums to step_time_s
  double step_time_s = 0;
  std::string time_dominant;       ///< the largest exposed part
  double attention_backward = 0;   ///< flash backward time over forward as priced (forward_share)
  double tokens_per_s_per_gpu = 0;
  double tokens_per_s_low = 0;     ///< 80% interval from the calibration's leave-one-source-out residuals
  double tokens_per_s_high = 0;
  /// What about this layout no measured run of the training set covers ("GPU b200", "dispatcher
  /// flex", "4,096 GPUs, above the 2,048 measured"); empty when every part was measured.
  std::vector<std::string> unmeasured;
  double mfu = 0;                  ///< 6 N tokens/s per GPU / dense BF16 peak
  double usd_per_million_tokens = 0;
  bool operator==(const Prediction&) const = default;
};

}  // namespace ladle
