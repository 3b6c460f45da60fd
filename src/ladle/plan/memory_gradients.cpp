// memory_gradients.cpp: the gradient buffers one GPU holds (see memory_gradients.hpp).
#include "ladle/plan/memory_gradients.hpp"

#include <algorithm>

namespace ladle::plan::mem {

double gradients_bytes(const Layout& l, const MemoryInputs& in, const StageParams& s) {
  // Frozen base under LoRA: only the adapters have gradients (cost_lora.hpp).
  if (l.lora_rank > 0) {
    return lora_memory(s.adapters, in.grad_bytes, in.state_bytes, l.offload, in.dense_shards, in.expert_shards)
        .gradients;
  }
  const double params = s.dense + s.expert;
  const double shard = sharded_params(in, s);
  const double layer_params = s.layers > 0 ? params / static_cast<double>(s.layers) : 0.0;
  if (in.st.torch) {
    // PyTorch FSDP2 (torchtitan): the FP32 sharded gradient; a layer's gradient is produced
    // unsharded in BF16 and cast to FP32 for the reduce-scatter, the output layer's at the start
    // of backward while every activation is still held.
    return kFp32 * shard + (kBf16 + kFp32) * std::max(in.largest_layer_params, s.head);
  }
  // Megatron-FSDP: one layer's gradients unsharded before its reduce-scatter.
  if (in.shard_weights) return in.grad_bytes * shard + in.grad_bytes * layer_params;
  return in.shard_grads ? in.grad_bytes * shard + in.grad_bytes * layer_params : in.grad_bytes * params;
}

}  // namespace ladle::plan::mem
