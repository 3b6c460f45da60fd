// memory_schedule.hpp: the activations a pipeline rank holds over its schedule: full recompute's
// checkpoints, the microbatches in flight under 1F1B, interleaved 1F1B and DualPipe, and the
// backward's working set.
#pragma once

#include <array>
#include <cstdint>

#include "ladle/layout/layout.hpp"

namespace ladle::plan::mem {

/// One pipeline rank's chunks (one chunk, the whole stage, without interleaving): the layers and
/// one microbatch's activations in each.
struct StageChunks {
  std::array<double, 64> acts{};    ///< one microbatch's activations per chunk, bytes
  std::array<double, 64> layers{};  ///< decoder layers per chunk
  int64_t count = 1;                ///< chunks on this rank
  bool by_chunk = false;            ///< counted chunk by chunk (interleaving, DualPipe)
  bool dualpipe = false;
  int64_t layers_here = 0;          ///< decoder layers of the rank
  int64_t rank = 0;                 ///< the pipeline rank
  int64_t microbatches = 1;         ///< microbatches of the step
};

/// One microbatch's activations on the rank under full recompute (`acts_one_mb` unchanged
/// otherwise); the chunks' own counts become their checkpointed ones. `layer_input` is one
/// layer's input, bytes.
double checkpointed_activations(const Layout& l, StageChunks& ch, double acts_one_mb, double layer_input);

/// The activations the rank holds at its peak and the layers they span, counted over microbatches.
struct HeldActivations {
  double acts = 0;
  double layers = 0;
};
HeldActivations held_activations(const Layout& l, const StageChunks& ch, double acts_one_mb);

/// What one recompute unit holds again in backward (without checkpointing, the largest layer's
/// backward scratch, `largest_layer_bytes`).
double recompute_unit_bytes(const Layout& l, const StageChunks& ch, double largest_layer_bytes);

}  // namespace ladle::plan::mem
