#include "ladle/plan/predicted_block.hpp"

#include <fmt/format.h>

#include <cmath>

namespace ladle::plan {

namespace {

// The recipe keeps the printed precision of each figure (so files stay readable and stable).
double rounded(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

}  // namespace

Predicted predicted_block(const Prediction& p, const Calibration& calibration) {
  Predicted out;
  out.planner = fmt::format("ladle 0.1.0 (calibration {})", calibration.source);
  out.tokens_per_s_per_gpu = rounded(p.tokens_per_s_per_gpu, 2);
  out.step_time_s = rounded(p.step_time_s, 3);
  out.mfu = rounded(p.mfu, 4);
  out.usd_per_million_tokens = rounded(p.usd_per_million_tokens, 2);
  if (p.tokens_per_s_high > 0) {
    out.tokens_per_s_per_gpu_low = rounded(p.tokens_per_s_low, 2);
    out.tokens_per_s_per_gpu_high = rounded(p.tokens_per_s_high, 2);
  }
  out.memory_gib = rounded(p.memory_gib, 2);
  for (const Part& part : p.step_parts) {
    if (part.value > 0) out.step_time_breakdown.push_back(PredictedPart{part.name, rounded(part.value, 3)});
  }
  if (!p.stages.empty()) {
    for (const Part& part : p.stages[static_cast<size_t>(p.worst_stage)].parts) {
      if (part.value > 0) out.memory_breakdown.push_back(PredictedPart{part.name, rounded(part.value, 2)});
    }
  }
  for (const StageMemory& stage : p.stages) {
    out.stage_memory.push_back(PredictedPart{fmt::format("stage {}", stage.stage), rounded(stage.total_gib, 2)});
  }
  return out;
}

}  // namespace ladle::plan
