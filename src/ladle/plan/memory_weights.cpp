// memory_weights.cpp: the weights one GPU holds (see memory_weights.hpp).
#include "ladle/plan/memory_weights.hpp"

#include <algorithm>

namespace ladle::plan::mem {

double weights_bytes(const Layout& l, const MemoryInputs& in, const StageParams& s) {
  const double params = s.dense + s.expert;
  const double shard = sharded_params(in, s);
  // Transformer Engine's FP8 (NVFP4) copies: every weight but the embedding and the output head.
  const double fp8_copies = in.fp8_copy_bytes * (s.dense - s.embedding - s.head) + in.fp8_copy_bytes * s.expert;
  double bytes = 0;
  if (in.st.torch) {
    // PyTorch FSDP2 (torch/distributed/fsdp/_fully_shard, MixedPrecisionPolicy(param_dtype=
    // bf16, reduce_dtype=fp32) as torchtitan sets it): the sharded parameter is the FP32
    // master; one layer is gathered in BF16 (FP8 with torchao's FP8 all-gather) while the next
    // is prefetched, and the output layer's group stays gathered from its forward to its
    // backward (torchtitan does not reshard the last group after forward).
    const double gathered = l.fp8_param_gather ? 1.0 : kBf16;
    bytes = kFp32 * shard + gathered * (2 * in.largest_layer_params + s.head);
  } else if (in.shard_weights) {
    // Megatron-FSDP: one layer's weights gathered (and the next prefetched).
    const double layer_params = s.layers > 0 ? params / static_cast<double>(s.layers) : 0.0;
    bytes = in.weight_bytes * shard + 2 * in.weight_bytes * layer_params + fp8_copies / std::max(1.0, in.dense_shards);
  } else {
    bytes = in.weight_bytes * params + fp8_copies;
  }
  // LoRA (cost_lora.hpp): the frozen base plus the adapters.
  if (l.lora_rank > 0) bytes += lora_memory(s.adapters, in.grad_bytes, in.state_bytes, l.offload, in.dense_shards,
                                            in.expert_shards).adapter_weights;
  return bytes;
}

}  // namespace ladle::plan::mem
