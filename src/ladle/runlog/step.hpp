#pragma once
// step.hpp: Step, one training-step record of a run as a log prints it.

#include <cstdint>
#include <optional>
#include <string>

namespace ladle {

/// One record of a training log: one optimizer step, or (Megatron-LM with --log-interval > 1) the
/// average of `iterations` consecutive steps. Every field is what the log printed; nothing is
/// filled in from elsewhere. Non-finite values (nan, inf) are kept as printed.
struct Step {
  int64_t step = 0;        ///< step index exactly as the engine prints it (Megatron 1-based, slime 0-based)
  int64_t iterations = 1;  ///< optimizer steps the record covers (Megatron: the log interval)
  std::optional<double> step_time_s;    ///< seconds per step (Megatron: the average over `iterations`)
  std::optional<double> loss;           ///< training loss (Megatron: average over the advanced steps)
  std::optional<double> grad_norm;      ///< gradient norm before clipping
  std::optional<double> learning_rate;  ///< learning rate of the first parameter group
  std::optional<int64_t> samples;       ///< rows (sequences) the record consumed, all iterations together
  std::optional<int64_t> tokens;        ///< tokens the record consumed, when the log prints them
  std::optional<std::string> timestamp;  ///< "YYYY-MM-DD HH:MM:SS[.ffffff]" when the line carries one
  int64_t skipped_iterations = 0;       ///< iterations the engine skipped (loss-scale overflow)
  int line = 0;                         ///< 1-based line of the record in its log

  bool operator==(const Step&) const = default;
};

}  // namespace ladle
