// memory_optimizer.hpp: the optimizer states one GPU holds (master weights and Adam's moments,
// sharded by the distributed optimizer or FSDP) and what optimizer offload moves to the host.
#pragma once

#include "ladle/layout/layout.hpp"
#include "ladle/plan/memory_inputs.hpp"

namespace ladle::plan::mem {

/// Bytes of the optimizer states of stage `s` left on one GPU under `l` (--optimizer-offload-fraction).
double optimizer_state_bytes(const Layout& l, const MemoryInputs& in, const StageParams& s);

/// Host bytes of one GPU's offloaded optimizer fraction: FP32 master and moments plus its FP32
/// gradient copy.
double offloaded_state_bytes(const Layout& l, const MemoryInputs& in, const StageParams& s);

}  // namespace ladle::plan::mem
