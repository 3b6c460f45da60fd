// time_tp.cpp: TP collectives (see time_tp.hpp).
#include "ladle/plan/time_tp.hpp"

#include <algorithm>

#include "ladle/plan/stack.hpp"
#include "ladle/plan/time_collective.hpp"

namespace ladle::plan::timing {

// What a sequence-parallel all-gather of a quantized GEMM input moves per element, for one copy.
// Transformer Engine gathers the tensor its quantizer wrote on the rank's shard, never BF16
// (NVIDIA/TransformerEngine @ d0067d0da6cb01811b8072a7d304f0e00344ce2b,
// transformer_engine/pytorch/distributed.py, gather_along_first_dim: _all_gather_fp8 for delayed
// and current scaling, the FP8 data with the one per-tensor scale assumed equal on every rank;
// _start_all_gather_fp8_blockwise for 1x128 blocks, data plus an FP32 scale per block;
// _all_gather_mxfp8, data plus an E8M0 scale per 32; _all_gather_nvfp4, E2M1 data plus an E4M3
// scale per 16; MXFP4, gathered as MXFP8 is, E2M1 data plus an E8M0 scale per 32). Blockwise falls back to a BF16 gather for 2-D (128x128) blocks, which TE's
// Float8BlockScaling uses only for weights. torchtitan gathers FP8 only for torchao's tensorwise
// recipe ("float8 all-gather with TP is only supported for tensorwise float8 scaling recipes",
// pytorch/torchtitan torchtitan/models/llama3/parallelize_llama.py
// @ 01c79fdf6ce3ca7ed1f6808ba8a395a155bbdc40; Float8ColwiseParallel and PrepareFloat8ModuleInput
// in pytorch/ao torchao/float8/float8_tensor_parallel.py @ 0e0fba8f69f4986c3d67b775fd58062d1621065d),
// its other float8 and MX recipes in BF16.
double tp_gather_bytes_per_element(const Layout& l, const Workload& w, bool fp8) {
  if (!fp8) return kBf16;
  if (w.stack == Stack::torchtitan) {
    return l.fp4 == Fp4Format::none && l.fp8_recipe == Fp8Recipe::tensorwise ? 1.0 : kBf16;
  }
  if (l.fp4 != Fp4Format::none) return fp4_bytes_per_element(l.fp4_recipe);
  switch (l.fp8_recipe) {
    case Fp8Recipe::delayed:
    case Fp8Recipe::tensorwise: return 1.0;
    case Fp8Recipe::blockwise: return 1.0 + kFp32 / 128.0;
    case Fp8Recipe::mxfp8: return 1.0 + 1.0 / 32.0;
  }
  return kBf16;
}

namespace {

// Per element, the copies the backward's output-gradient all-gather moves. The row-parallel
// linears' backward gathers the output gradient with its quantizer set for both the dgrad GEMM
// (row-wise) and the wgrad GEMM (column-wise) (transformer_engine/pytorch/module/linear.py,
// backward: grad_output_quantizer.set_usage(rowwise=True, columnwise=True); module/base.py,
// grad_output_preprocess: gather_along_first_dim(grad_output, ..., quantizer=quantizer)).
// Delayed and current scaling gather the row-wise data only and transpose it after the gather
// (_all_gather_fp8: "we cannot directly gather the transposed fp8 tensor"); blockwise, MXFP8 and
// NVFP4 gather both copies. Under --tp-comm-overlap Userbuffers moves one usage (base.py: "only
// supports communication for one tensor usage at a time"). torchao casts the gradient once,
// per-tensor scaled, on the shard.
double backward_gather_bytes(const KindInputs& in) {
  const double one = tp_gather_bytes_per_element(in.l, in.w, in.fp8);
  if (one >= kBf16 || in.w.stack == Stack::torchtitan || in.l.tp_overlap) return one;
  const bool both_copies = in.l.fp4 != Fp4Format::none ||
                           (in.l.fp8_recipe != Fp8Recipe::delayed && in.l.fp8_recipe != Fp8Recipe::tensorwise);
  return both_copies ? 2 * one : one;
}

// Around the mixer and around a dense MLP or shared expert, where the layer has them: a gather
// before the column-parallel linear and a reduce-scatter after the row-parallel one.
double collective_pairs(const KindInputs& in) {
  return (in.kind.mixer != MixerKind::none ? 1 : 0) + (in.kind.has_mlp && (!in.kind.moe || in.c.shared_ffn > 0) ? 1 : 0);
}

// Megatron-LM's DSA indexer is duplicated on every TP rank: under sequence parallel it gathers
// the hidden state and the q latent over TP first (experimental_attention_variant/dsa.py,
// DSAIndexer: parallel_mode="duplicated", gather_from_sequence_parallel_region of x and qr, in
// BF16: Megatron-LM's own gather, no quantizer); their gradients are reduce-scattered in the
// backward pass, the same bytes.
// One collective of `bytes` over the layer's TP group, inside the NVLink domain where it fits.
double tp_collective(const KindInputs& in, hw::Collective kind, double bytes) {
  return collective_time(in.r, kind, bytes, in.tp, std::min(in.tp, in.r.domain));
}

double indexer_gathers(const KindInputs& in) {
  if (!in.kind.indexer || !in.l.sp) return 0;
  const double q_in = in.c.q_lora_rank > 0 ? static_cast<double>(in.c.q_lora_rank) : in.h;
  double s = 0;
  for (double width : {in.h, q_in}) s += tp_collective(in, hw::Collective::all_gather, kBf16 * in.tokens * width);
  return s;
}

// Without SP each pair is one all-reduce in the forward pass (after the row-parallel linear) and
// one in the backward (of the column-parallel linear's input gradient), in BF16 (Transformer
// Engine quantizes no all-reduce), at the all-reduce's own measured rate: inside an NVSwitch
// domain NCCL reduces in the switch (NVLink SHARP), faster than the reduce-scatter and all-gather
// it would otherwise take (data/hw/collectives.yaml).
double all_reduces(const KindInputs& in) {
  return collective_pairs(in) * tp_collective(in, hw::Collective::all_reduce, kBf16 * in.tokens * in.h);
}

// One sequence-parallel all-gather of the layer's tokens at `gather_bytes` per element.
double sp_gather(const KindInputs& in, double gather_bytes) {
  return tp_collective(in, hw::Collective::all_gather, gather_bytes * (in.tokens * in.h));
}

// With SP: each pair is an all-gather of `gather_bytes` per element and a reduce-scatter of the
// BF16 GEMM output (forward) or input gradient (backward): GEMMs write BF16, and TE's
// reduce_scatter_along_first_dim takes no quantizer.
double sequence_parallel(const KindInputs& in, double gather_bytes) {
  const double scatter = tp_collective(in, hw::Collective::reduce_scatter, kBf16 * (in.tokens * in.h));
  return collective_pairs(in) * (sp_gather(in, gather_bytes) + scatter) + indexer_gathers(in);
}

}  // namespace

double tp_forward(const KindInputs& in) {
  if (in.l.tp <= 1) return 0;
  if (!in.l.sp) return all_reduces(in);
  return sequence_parallel(in, tp_gather_bytes_per_element(in.l, in.w, in.fp8));
}

namespace {

// torchtitan's per-op selective checkpointing saves the outputs of the ops in its `_save_list`
// (matmuls but every second, attention, reduce_scatter_tensor, max) and recomputes every other
// op of the layer in the backward pass (pytorch/torchtitan @ 820504e20d1149fbf0b98c567af24c4b0433b22d,
// the commit of the June 2025 async-TP benchmark: torchtitan/models/llama3/parallelize_llama.py,
// _save_list and _custom_policy: CheckpointPolicy.PREFER_RECOMPUTE for the rest, which
// torch.compile's partitioner recomputes as it does MUST_RECOMPUTE: pytorch/pytorch
// torch/_functorch/partitioners.py, must_recompute). The sequence-parallel all-gather before each
// column-parallel block (_c10d_functional.all_gather_into_tensor, PrepareModuleInput's Shard(1)
// -> Replicate) is not in the list, and the gathered input feeds the weight gradients of wq, wk,
// wv, w1 and w3: each forward all-gather runs again in the backward, at the forward's bytes. A
// full recompute already reruns the whole forward (time_model.cpp).
double recomputed_gathers(const KindInputs& in) {
  if (in.w.stack != Stack::torchtitan || in.l.recompute != RecomputeGranularity::selective) return 0;
  return collective_pairs(in) * sp_gather(in, tp_gather_bytes_per_element(in.l, in.w, in.fp8));
}

}  // namespace

// The backward re-gathers the column-parallel linears' saved input shard for the weight gradient
// too, asynchronously, overlapped with the dgrad GEMM (transformer_engine/pytorch/module/
// layernorm_linear.py, backward: gather_along_first_dim(ln_out, ..., async_op=True); "Tensor-
// parallel communication is overlapped with dgrad GEMM"): not priced as exposed. torchtitan's
// selective checkpointing re-gathers before the recomputed forward instead (recomputed_gathers).
double tp_backward(const KindInputs& in) {
  if (in.l.tp <= 1) return 0;
  if (!in.l.sp) return all_reduces(in);
  return sequence_parallel(in, backward_gather_bytes(in)) + recomputed_gathers(in);
}

}  // namespace ladle::plan::timing
