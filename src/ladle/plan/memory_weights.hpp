// memory_weights.hpp: the weights one GPU holds (BF16, FP8 or NVFP4, Transformer Engine's cached
// low-precision copies, FSDP's gathered layers, LoRA adapters).
#pragma once

#include "ladle/layout/layout.hpp"
#include "ladle/plan/memory_inputs.hpp"

namespace ladle::plan::mem {

/// Bytes of the weights of stage `s` on one GPU under `l`.
double weights_bytes(const Layout& l, const MemoryInputs& in, const StageParams& s);

}  // namespace ladle::plan::mem
