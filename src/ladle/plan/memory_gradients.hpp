// memory_gradients.hpp: the gradient buffers one GPU holds (Megatron-LM's main gradients in the
// reduce dtype, FSDP's sharded ones, FSDP2's unsharded BF16 layer gradient, LoRA's adapters').
#pragma once

#include "ladle/layout/layout.hpp"
#include "ladle/plan/memory_inputs.hpp"

namespace ladle::plan::mem {

/// Bytes of the gradients of stage `s` on one GPU under `l`.
double gradients_bytes(const Layout& l, const MemoryInputs& in, const StageParams& s);

}  // namespace ladle::plan::mem
