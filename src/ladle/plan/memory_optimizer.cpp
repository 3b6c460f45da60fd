// memory_optimizer.cpp: the optimizer states one GPU holds (see memory_optimizer.hpp).
#include "ladle/plan/memory_optimizer.hpp"

namespace ladle::plan::mem {

double optimizer_state_bytes(const Layout& l, const MemoryInputs& in, const StageParams& s) {
  // Frozen base under LoRA: only the adapters have optimizer states (cost_lora.hpp).
  if (l.lora_rank > 0) {
    return lora_memory(s.adapters, in.grad_bytes, in.state_bytes, l.offload, in.dense_shards, in.expert_shards)
        .optimizer_states;
  }
  const double shard = sharded_params(in, s);
  // PyTorch FSDP2: the FP32 sharded parameter is the master weight (memory_weights), so only the moments.
  if (in.st.torch) return (1.0 - l.offload) * shard * (dtype_bytes(l.moments) + dtype_bytes(l.moments_sq));
  return (1.0 - l.offload) * shard * in.state_bytes;
}

double offloaded_state_bytes(const Layout& l, const MemoryInputs& in, const StageParams& s) {
  return l.offload * sharded_params(in, s) * (in.state_bytes + kFp32);
}

}  // namespace ladle::plan::mem
