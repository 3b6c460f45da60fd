// time_pipeline.cpp: pipeline P2P, bubble and schedules (see time_pipeline.hpp).
#include "ladle/plan/time_pipeline.hpp"

#include <algorithm>

#include "ladle/plan/time_collective.hpp"

namespace ladle::plan::timing {

double pp_p2p(const Rates& r, const Layout& l, double tokens, double hidden) {
  if (l.pp <= 1) return 0;
  const double sp_div = l.sp ? static_cast<double>(l.tp) : 1.0;
  const double bytes = kBf16 * tokens * hidden / sp_div;
  const double stage_gpus = static_cast<double>(l.tp * l.cp * l.dp);
  return 2 * send_time(r, bytes, stage_gpus >= r.domain) * static_cast<double>(l.vpp);
}

void StageTimes::add(const Parts& p, double dense_params, double expert_params) {
  double stage_time = 0;
  for (double v : p) stage_time += v;
  sum += stage_time;
  if (stage_time > critical_time) {
    critical_time = stage_time;
    critical = p;
  }
  worst_dense = std::max(worst_dense, dense_params);
  worst_expert = std::max(worst_expert, expert_params);
  parts.push_back(p);
  dense.push_back(dense_params);
  expert.push_back(expert_params);
}

namespace {

// --- DualPipe ------------------------------------------------------------------------------------
// DeepSeek-V3 technical report (arXiv 2412.19437), section 3.2.1 and Table 2, and
// deepseek-ai/DualPipe (README, dualpipe.py): pipeline rank r runs the model's stages r and
// pp - 1 - r, half the microbatches entering at each end, each forward chunk overlapped with a
// backward chunk of the other direction (F&B), the weight-gradient GEMMs (W) deferred into the
// bubbles. Bubble (PP/2 - 1)(F&B + B - 3W) against 1F1B's (PP - 1)(F + B).

struct DualPipeStep {
  Parts parts{};      ///< the step's parts on the slowest rank (pipeline_bubble included)
  Parts per_chunk{};  ///< one microbatch through one of that rank's chunks (the mean of its two)
  double dense_params = 0;   ///< the most dense parameters one rank holds (both its stages)
  double expert_params = 0;  ///< the most expert parameters one rank holds
};

DualPipeStep dualpipe_step(const StageTimes& stages, double microbatches) {
  DualPipeStep out;
  const std::vector<Parts>& stage_parts = stages.parts;
  const std::vector<double>& stage_dense = stages.dense;
  const std::vector<double>& stage_expert = stages.expert;
  const size_t pp = stage_parts.size();
  double slowest = -1;
  Parts pair_parts{};
  for (size_t r = 0; r < pp / 2; ++r) {
    // Ranks r and pp - 1 - r hold the same two stages.
    Parts pair{};
    double pair_time = 0;
    for (size_t i = 0; i < kTimeParts; ++i) {
      pair[i] = stage_parts[r][i] + stage_parts[pp - 1 - r][i];
      pair_time += pair[i];
    }
    if (pair_time > slowest) {
      slowest = pair_time;
      pair_parts = pair;
    }
    out.dense_params = std::max(out.dense_params, stage_dense[r] + stage_dense[pp - 1 - r]);
    out.expert_params = std::max(out.expert_params, stage_expert[r] + stage_expert[pp - 1 - r]);
  }
  // Steady state: m / 2 microbatches through each of the two chunks.
  for (size_t i = 0; i < kTimeParts; ++i) {
    out.parts[i] = pair_parts[i] * microbatches / 2;
    out.per_chunk[i] = pair_parts[i] / 2;
  }
  // One chunk's F, B (full backward, B = chunk - F) and W (the weight-gradient GEMMs: one of a
  // GEMM's three passes); F&B, a forward and a backward run together with each one's
  // communication under the other's compute, takes F + B of compute (the all-to-all it hides is
  // already off the EP part).
  double chunk = 0;
  double forward = 0;
  for (size_t i = 0; i < kTimeParts; ++i) {
    chunk += out.per_chunk[i];
    forward += forward_share(static_cast<TimePart>(i), stages.attention_backward) * out.per_chunk[i];
  }
  const double backward = chunk - forward;
  const double weight = (out.per_chunk[static_cast<size_t>(TimePart::dense_gemm)] +
                         out.per_chunk[static_cast<size_t>(TimePart::expert_gemm)]) /
                        3.0;
  const double f_and_b = forward + backward;
  out.parts[static_cast<size_t>(TimePart::pipeline_bubble)] =
      std::max(0.0, (static_cast<double>(pp) / 2.0 - 1.0) * (f_and_b + backward - 3.0 * weight));
  return out;
}

}  // namespace

PipelineStep pipeline_step(const StageTimes& stages, const Layout& l, double microbatches) {
  PipelineStep out;
  if (l.schedule == PipelineSchedule::dualpipe && l.pp > 1 && l.pp % 2 == 0) {
    // DualPipe (dualpipe_step above): each rank holds two stages' parameters.
    const DualPipeStep dual = dualpipe_step(stages, microbatches);
    out.parts = dual.parts;
    out.per_microbatch = dual.per_chunk;
    out.dense_params = dual.dense_params;
    out.expert_params = dual.expert_params;
    return out;
  }
  // 1F1B: m microbatches at the slowest stage's pace, plus filling and draining the others;
  // interleaving divides the fill and drain by vpp.
  for (size_t i = 0; i < kTimeParts; ++i) out.parts[i] = stages.critical[i] * microbatches;
  out.parts[static_cast<size_t>(TimePart::pipeline_bubble)] =
      (stages.sum - stages.critical_time) / static_cast<double>(l.vpp);
  out.per_microbatch = stages.critical;
  out.dense_params = stages.worst_dense;
  out.expert_params = stages.worst_expert;
  return out;
}

}  // namespace ladle::plan::timing
