// memory_inputs.cpp: how a layout stores a layer's tensors for backward (see memory_inputs.hpp).
#include "ladle/plan/memory_inputs.hpp"

#include <algorithm>

namespace ladle::plan::mem {

Storage storage_of(const Layout& l) {
  Storage s;
  s.torch = l.fsdp == Fsdp::torch;
  // torchao's Float8Linear (torchtitan's FP8) saves its high-precision input; only TE quantizes it.
  if (l.fp8 != Fp8Format::none && !s.torch) {
    s.fp8 = true;
    s.fp8_second_copy = l.fp8_recipe == Fp8Recipe::delayed;
    switch (l.fp8_recipe) {
      case Fp8Recipe::delayed:
      case Fp8Recipe::tensorwise: s.linear_input = 1.0; break;
      case Fp8Recipe::blockwise: s.linear_input = 1.0 + kFp32 / 128.0; break;
      case Fp8Recipe::mxfp8: s.linear_input = 1.0 + 1.0 / 32.0; break;
    }
  }
  // NVFP4 (Transformer Engine docs/features/low_precision_training/nvfp4/nvfp4.rst): E2M1 values
  // (half a byte) with one E4M3 scale per 16 elements; MXFP4 with one E8M0 scale per 32. The input
  // a linear saves for its weight gradient is that quantized copy. Megatron-LM calls
  // set_save_original_input on linear_proj under FP4 as under the non-delayed FP8 recipes
  // (transformer/attention.py at d98e8a64), so no second copy.
  if (l.fp4 != Fp4Format::none && !s.torch) {
    s.fp8 = true;
    s.linear_input = fp4_bytes_per_element(l.fp4_recipe);
  }
  s.fp8_attention = l.fp8_dpa && s.fp8;
  s.deepseek = l.schedule == PipelineSchedule::dualpipe && !s.torch;
  return s;
}

MemoryInputs memory_inputs(const ModelCosts& c, const Layout& l) {
  MemoryInputs in;
  in.st = storage_of(l);
  in.tp = static_cast<double>(l.tp);
  const Storage& st = in.st;
  // Optimizer states are sharded over the data-parallel ranks by the distributed optimizer or
  // FSDP (dense over DP x CP, experts over EDP; theoretical_memory_usage.py's 6 + 12 / d), each
  // of --num-distributed-optimizer-instances sharding within its own part of the DP group
  // (distributed/distributed_data_parallel.py, intra-instance groups); held whole otherwise.
  const bool fsdp = l.fsdp != Fsdp::none;
  const bool shard_states = l.dist_opt || fsdp;
  const double instances = fsdp ? 1.0 : static_cast<double>(std::max<int64_t>(1, l.dist_opt_instances));
  in.dense_shards = shard_states ? std::max(1.0, static_cast<double>(l.dp * l.cp) / instances) : 1.0;
  in.expert_shards =
      shard_states ? std::max(1.0, static_cast<double>(std::max<int64_t>(1, l.edp())) / instances) : 1.0;
  // Master weights and the two Adam moments in the dtypes the knobs give (--main-params-dtype,
  // --exp-avg-dtype, --exp-avg-sq-dtype; theoretical_memory_usage.py counts 12 bytes for FP32).
  in.state_bytes = dtype_bytes(l.main_params) + dtype_bytes(l.moments) + dtype_bytes(l.moments_sq);
  // The gradient buffer: FP32 unless --grad-reduce-in-bf16 (distributed/param_and_grad_buffer.py
  // allocates it in the reduce dtype; Megatron-Bridge's grad_reduce_in_fp32=False does the same).
  in.grad_bytes = dtype_bytes(l.grad_reduce);
  // FSDP shards weights and gradients too: Megatron-FSDP by its sharding strategy, PyTorch FSDP2
  // (torchtitan) fully, keeping FP32 sharded parameters it casts to BF16 per layer.
  in.shard_grads = fsdp && (l.fsdp == Fsdp::torch || l.fsdp_sharding == FsdpSharding::optim_grads ||
                            l.fsdp_sharding == FsdpSharding::optim_grads_params);
  in.shard_weights = fsdp && (l.fsdp == Fsdp::torch || l.fsdp_sharding == FsdpSharding::optim_grads_params);
  // Weights: BF16, or FP8 with --fp8-param-gather. Transformer Engine caches each weight's FP8
  // copy across microbatches (extensions/transformer_engine.py passes is_first_microbatch unless
  // --disable-parameter-transpose-cache): the row-wise data and the column-wise (transposed) data
  // Hopper's FP8 GEMMs need for dgrad, plus blockwise's FP32 scale per 128x128 block or MXFP8's
  // E8M0 scale per 32 elements of each. With --fp8-param-gather the weight is that FP8 tensor
  // and only the transpose is extra. torchao's Float8Linear (torch path) casts per GEMM and keeps
  // no copy; its FP8 all-gather (fp8_param_gather) gathers FP8 instead of BF16.
  const bool fp8 = l.fp8 != Fp8Format::none;
  in.weight_bytes = l.fp8_param_gather && !st.torch ? 1.0 : kBf16;
  in.fp8_copy_bytes = 0;
  if (fp8 && !st.torch) {
    const double scale = l.fp8_recipe == Fp8Recipe::mxfp8       ? 1.0 / 32.0
                         : l.fp8_recipe == Fp8Recipe::blockwise ? kFp32 / (128.0 * 128.0)
                                                                : 0.0;
    in.fp8_copy_bytes = (l.fp8_param_gather ? 1.0 : 2.0) * (1.0 + scale);
  }
  // NVFP4 weights: 2D scaling, one E4M3 scale per 16 x 16 block (nvfp4.rst, "2D weight
  // scaling"); MXFP4 weights one E8M0 scale per 32 along each copy's rows. Both are cached
  // row-wise and column-wise as the MXFP8 copies are; with --fp4-param-gather the weight is the
  // FP4 tensor and only the column-wise copy is extra.
  const double fp4_weight = l.fp4_recipe == Fp4Recipe::mxfp4 ? fp4_bytes_per_element(l.fp4_recipe) : 0.5 + 1.0 / 256.0;
  if (l.fp4 != Fp4Format::none && !st.torch) {
    in.fp8_copy_bytes = (l.fp4_param_gather ? 1.0 : 2.0) * fp4_weight;
    if (l.fp4_param_gather) in.weight_bytes = fp4_weight;
  }
  // The largest decoder layer's parameters on one GPU (what FSDP2 gathers at once).
  const double expert_div = static_cast<double>(l.ep * l.etp);
  for (const LayerKind& kind : c.kinds) {
    in.largest_layer_params = std::max(in.largest_layer_params,
                                       kind.tp_params / in.tp + kind.replicated_params + kind.expert_params / expert_div);
  }
  return in;
}

}  // namespace ladle::plan::mem
