// memory_schedule.cpp: the activations a pipeline rank holds over its schedule (see memory_schedule.hpp).
#include "ladle/plan/memory_schedule.hpp"

#include <algorithm>
#include <cmath>

namespace ladle::plan::mem {

double checkpointed_activations(const Layout& l, StageChunks& ch, double acts_one_mb, double layer_input) {
  const double vpp = static_cast<double>(l.vpp);
  const int64_t n = ch.layers_here;
  const bool by_chunk = ch.by_chunk;
  const int64_t chunks_here = ch.count;
  std::array<double, 64>& chunk_acts = ch.acts;
  const std::array<double, 64>& chunk_n = ch.layers;
  if (l.recompute == RecomputeGranularity::full) {
    const double r = static_cast<double>(l.recompute_layers);
    if (by_chunk) {
      // Each chunk checkpoints its own layers.
      acts_one_mb = 0;
      for (int64_t j = 0; j < chunks_here; ++j) {
        double& a = chunk_acts[static_cast<size_t>(j)];
        const double layers_j = chunk_n[static_cast<size_t>(j)];
        if (l.recompute_method == RecomputeMethod::uniform) {
          a = std::ceil(layers_j / r) * layer_input;
        } else {
          a = a * std::max(0.0, layers_j - r) / std::max(1.0, layers_j) + std::min(r, layers_j) * layer_input;
        }
        acts_one_mb += a;
      }
    } else {
      const double chunk_layers_avg = static_cast<double>(n) / vpp;
      if (l.recompute_method == RecomputeMethod::uniform) {
        acts_one_mb = std::ceil(chunk_layers_avg / r) * vpp * layer_input;
      } else {
        const double kept_fraction = std::max(0.0, chunk_layers_avg - r) / std::max(1.0, chunk_layers_avg);
        acts_one_mb = acts_one_mb * kept_fraction + std::min(r, chunk_layers_avg) * vpp * layer_input;
      }
    }
  }
  return acts_one_mb;
}

HeldActivations held_activations(const Layout& l, const StageChunks& ch, double acts_one_mb) {
  const int64_t pp = l.pp;
  const double vpp = static_cast<double>(l.vpp);
  const int64_t s = ch.rank;
  const int64_t n = ch.layers_here;
  const bool by_chunk = ch.by_chunk;
  const int64_t chunks_here = ch.count;
  const std::array<double, 64>& chunk_acts = ch.acts;
  const std::array<double, 64>& chunk_n = ch.layers;
  const int64_t microbatches = ch.microbatches;
  const bool dualpipe = ch.dualpipe;
  // Microbatches in flight on stage s (in whole-stage units). 1F1B: pipeline rank s keeps pp - s.
  // Interleaved 1F1B (pipeline_parallel/schedules.py, warm-up of
  // forward_backward_pipelining_with_interleaving): rank s runs 2 (pp - s - 1) + (v - 1) G + 1
  // model chunks forward before its first backward (G = microbatch group size, pp by default),
  // each chunk holding 1/v of the stage's layers.
  double in_flight = static_cast<double>(std::min<int64_t>(microbatches, pp - s));
  double acts_held = acts_one_mb * in_flight;  // one microbatch's activations x those in flight
  double layers_held = static_cast<double>(n) * in_flight;
  if (l.vpp > 1) {
    // --overlap-moe-expert-parallel-comm runs one more chunk forward to overlap with.
    const double chunks = 2.0 * static_cast<double>(pp - s - 1) + (vpp - 1) * static_cast<double>(pp) + 1 +
                          (l.a2a_overlap ? 1.0 : 0.0);
    const double forwards = std::min(chunks, static_cast<double>(microbatches) * vpp);
    in_flight = forwards / vpp;
    acts_held = acts_one_mb * in_flight;
    layers_held = static_cast<double>(n) * in_flight;
    if (by_chunk) {
      // The k-th forward runs chunk (k / G) mod v (get_model_chunk_id), so of F forwards chunk
      // j holds G per whole round of G x v and what the last partial round gives it.
      const double g = static_cast<double>(pp);
      const double round = g * vpp;
      const double whole = std::floor(forwards / round);
      const double rest = forwards - whole * round;
      acts_held = 0;
      layers_held = 0;
      for (int64_t j = 0; j < chunks_here; ++j) {
        const double held = whole * g + std::clamp(rest - static_cast<double>(j) * g, 0.0, g);
        acts_held += held * chunk_acts[static_cast<size_t>(j)];
        layers_held += held * chunk_n[static_cast<size_t>(j)];
      }
    }
  }
  if (dualpipe && by_chunk) {
    // DualPipe.step (deepseek-ai/DualPipe dualpipe.py): with h = min(s, pp - 1 - s), steps 1-2
    // run pp - h - 1 forwards of the shallower stage h and h + 1 of the deeper stage
    // pp - 1 - h, and each overlapped forward-backward pair of the main step runs one more
    // forward before its backward frees one: pp + 1 microbatches at the peak (the report's
    // Table 2, "PP+1"), pp - h of stage h and h + 1 of stage pp - 1 - h. Half the microbatches
    // enter at each end.
    const int64_t h_rank = std::min(s, pp - 1 - s);
    const double per_direction = std::max(1.0, static_cast<double>(microbatches) / 2.0);
    const size_t shallow = s == h_rank ? 0 : 1;
    const double held_shallow = std::min(per_direction, static_cast<double>(pp - h_rank));
    const double held_deep = std::min(per_direction, static_cast<double>(h_rank + 1));
    acts_held = held_shallow * chunk_acts[shallow] + held_deep * chunk_acts[1 - shallow];
    layers_held = held_shallow * chunk_n[shallow] + held_deep * chunk_n[1 - shallow];
  }
  if (pp == 1) {
    acts_held = acts_one_mb;
    layers_held = static_cast<double>(n);
  }
  return {acts_held, layers_held};
}

double recompute_unit_bytes(const Layout& l, const StageChunks& ch, double largest_layer_bytes) {
  const double vpp = static_cast<double>(l.vpp);
  const int64_t n = ch.layers_here;
  const bool by_chunk = ch.by_chunk;
  const int64_t chunks_here = ch.count;
  const std::array<double, 64>& chunk_n = ch.layers;
  // The backward's working set: what one recompute unit holds again (without checkpointing,
  // the largest layer's backward scratch). Megatron-LM's checkpointed_forward
  // (megatron/core/recompute.py at d98e8a64; transformer_block.py's _checkpointed_forward
  // before) checkpoints under --recompute-method uniform one unit of N layers at a time, the
  // unit clamped to the chunk's layers, and under block each of the chunk's first N layers on
  // its own (chunk_runner(layer, layer + 1)): one layer's worth whatever N is.
  double working = largest_layer_bytes;
  if (l.recompute == RecomputeGranularity::full && l.recompute_method == RecomputeMethod::uniform) {
    double most_in_chunk = std::ceil(static_cast<double>(n) / vpp);
    if (by_chunk) most_in_chunk = *std::max_element(chunk_n.begin(), chunk_n.begin() + chunks_here);
    working = largest_layer_bytes * std::max(1.0, std::min(static_cast<double>(l.recompute_layers), most_in_chunk));
  }
  return working;
}

}  // namespace ladle::plan::mem
