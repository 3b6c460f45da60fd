// time_gemm.cpp: dense and expert GEMMs (see time_gemm.hpp).
#include "ladle/plan/time_gemm.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

#include "ladle/plan/cost_gemm_shape.hpp"
#include "ladle/plan/cost_lora.hpp"
#include "ladle/plan/stack.hpp"

namespace ladle::plan::timing {

// Roofline-additive GEMM: compute at the achieved rate plus the HBM traffic of A, B and C. The
// sum (not the max) stands for the efficiency a GEMM loses as it gets smaller (tile quantisation,
// waves that do not fill the GPU): the traffic term grows relative to the compute as m, k or n
// shrink, as in published cuBLAS sweeps.
double gemm_time(const Rates& r, double m, double k, double n) {
  return 2 * m * k * n / r.gemm_flops + kBf16 * (m * k + k * n + m * n) / r.hbm + r.kernel;
}

// The input cast to FP8 (read 2, write 1 byte per element) and its transposed copy for wgrad
// (1 + 1), the output gradient's cast (2 + 1) and transpose (1 + 1); weights are cast once per
// step (cached over microbatches), so they do not count here. The caller spreads them over the
// forward and backward passes (it multiplies elementwise work by 3).
double fp8_cast_bytes(double m, double k, double n) { return 5 * m * k + 5 * m * n; }

// Bytes per element of the GEMM inputs a recipe quantizes (the input and the output gradient),
// counted as fp8_cast_bytes counts them for delayed scaling: the cast (read 2, write the quantized
// copy) and the second, column-wise copy for the weight gradient (read and write the quantized
// copy), 5 for FP8. What separates the recipes in Transformer Engine's own account
// (docs/features/low_precision_training/*): current scaling (tensorwise) reads the tensor once
// more for its amax ("the tensor needs to be read twice"), and so does NVFP4 for its global
// amax; blockwise and MXFP8 write their block scales beside both copies (FP32 per 128 elements,
// E8M0 per 32); NVFP4 writes E2M1 values with an E4M3 scale per 16. Primus's MXFP4 writes E2M1
// values with an E8M0 scale per 32 and, its scales being local to a block, makes no amax pass; its
// Hadamard transform of the GEMM inputs runs inside the cast and is not priced (the run lists it).
// No published measurement times the kernels apart, so beyond these bytes the recipes are priced
// alike.
double quantize_bytes_per_element(const Layout& l) {
  constexpr double kCastAndCopy = 5;  // read 2, write 1; read 1, write 1
  constexpr double kAmaxPass = kBf16;
  if (l.fp4 != Fp4Format::none) {
    const double fp4 = fp4_bytes_per_element(l.fp4_recipe);
    return (l.fp4_recipe == Fp4Recipe::mxfp4 ? 0.0 : kAmaxPass) + kBf16 + fp4 + 2 * fp4;
  }
  switch (l.fp8_recipe) {
    case Fp8Recipe::delayed: return kCastAndCopy;
    case Fp8Recipe::tensorwise: return kCastAndCopy + kAmaxPass;
    case Fp8Recipe::blockwise: return kCastAndCopy + 2 * kFp32 / 128.0;
    case Fp8Recipe::mxfp8: return kCastAndCopy + 2 * 1.0 / 32.0;
  }
  return kCastAndCopy;
}

namespace {

// Compute lost to partial tiles (cost_gemm_shape): rows or an output width not whole tiles. A
// grouped GEMM's rows are one expert's (per_expert below: the mean over the rank's experts, no
// spread between experts is modelled), a dense GEMM's the microbatch's tokens.
double tile_loss(const Rates& r, double rows, double k, double n) {
  return 2 * rows * k * n / r.gemm_flops * (1 / gemm_shape_efficiency(rows, n) - 1);
}

}  // namespace

// The quantisation bytes of one layer's dense GEMMs, forward and backward, by tensor quantized:
// each GEMM input once however many GEMMs read it, each output gradient once per GEMM. A cast
// reads 2 bytes and writes 1 (kCast); the column-wise copy for the weight gradient reads and
// writes 1 (kCopy); 5 together, as fp8_cast_bytes counts them.
// - One input, several GEMMs: Megatron-LM's query-key-value and gate-up projections are one fused
//   Transformer Engine linear each; torchtitan's separate wq/wk/wv and w1/w3 linears share one
//   cast under tensor parallelism, where PrepareFloat8ModuleInput casts the attention's and the
//   feed-forward's input once "so that if there are multiple float8 users of the input
//   activation, we perform fp8 allgather only once" (pytorch/ao
//   torchao/float8/float8_tensor_parallel.py @ 0e0fba8f69f4986c3d67b775fd58062d1621065d; torchtitan
//   torchtitan/models/llama3/parallelize_llama.py @ 01c79fdf6ce3ca7ed1f6808ba8a395a155bbdc40,
//   apply_tp). Without TP torchtitan's Float8Linear modules each cast their own input. GEMMs of one
//   module that read an input of the same width under the same split read the same tensor.
// - Sequence parallel: the cast runs on the rank's sequence shard, before the all-gather that moves
//   the quantized tensor. Transformer Engine's LayerNormLinear writes the norm's output quantized
//   and all-gathers it with the input quantizer, and the row-parallel backward quantizes the
//   output gradient before gathering it (NVIDIA/TransformerEngine
//   @ d0067d0da6cb01811b8072a7d304f0e00344ce2b: transformer_engine/pytorch/module/layernorm_linear.py,
//   with_quantized_norm and gather_along_first_dim(..., quantizer=...); module/base.py,
//   grad_output_preprocess; distributed.py, _all_gather_fp8 quantizes the local shard); torchao's
//   Float8RowwiseParallel casts the output gradient on the shard too (_NoopFwToFloat8BwDynamic
//   after the redistribute). The column-wise copy is made from the gathered tensor, all rows.
void dense_gemms(const KindInputs& in, LayerForward& f) {
  constexpr double kCast = 3;  // read 2, write 1
  constexpr double kCopy = 2;  // read 1, write 1
  const Rates& r = in.r;
  const bool share_inputs = in.w.stack != Stack::torchtitan || in.l.tp > 1;
  struct Input {
    GemmModule module;
    GemmSplit split;
    double k;
  };
  // A layer has a few tens of matrices at most; past the array's end an input counts as new.
  std::array<Input, 32> cast_inputs{};
  size_t n_inputs = 0;
  for (const Gemm& g : in.kind.gemms) {
    double out = static_cast<double>(g.out);
    double k = static_cast<double>(g.in);
    if (g.split == GemmSplit::tp_out) out /= in.tp;
    if (g.split == GemmSplit::tp_in) k /= in.tp;
    Work& m = f.dense_by_module[static_cast<size_t>(g.module)];
    m.s += gemm_time(r, in.tokens, k, out) + tile_loss(r, in.tokens, k, out);
    m.launches += in.per_gemm * in.r.te_host;
    const auto seen = cast_inputs.begin() + static_cast<std::ptrdiff_t>(n_inputs);
    const bool input_cast = !share_inputs || std::none_of(cast_inputs.begin(), seen, [&](const Input& i) {
      return i.module == g.module && i.split == g.split && i.k == k;
    });
    if (input_cast) {
      if (n_inputs < cast_inputs.size()) cast_inputs[n_inputs++] = Input{g.module, g.split, k};
      const double rows = g.split == GemmSplit::tp_out ? in.tokens / in.sp_div : in.tokens;
      f.cast_bytes += kCast * rows * k + kCopy * in.tokens * k;
    }
    const double grad_rows = g.split == GemmSplit::tp_in ? in.tokens / in.sp_div : in.tokens;
    f.cast_bytes += kCast * grad_rows * out + kCopy * in.tokens * out;
  }
  f.dense = 0;
  for (const Work& m : f.dense_by_module) f.dense += m.s;
}

void expert_gemms(const KindInputs& in, LayerForward& f) {
  if (!in.moe) return;
  const Rates& r = in.r;
  const double local_experts = static_cast<double>(in.c.experts) / static_cast<double>(in.l.ep);
  const double per_expert = in.routed_tokens / local_experts;
  for (const Gemm& g : in.kind.expert_gemms) {
    double out = static_cast<double>(g.out);
    double k = static_cast<double>(g.in);
    if (g.split == GemmSplit::expert_out) out /= in.etp;
    if (g.split == GemmSplit::expert_in) k /= in.etp;
    // One grouped GEMM over the local experts: the weights are read once per expert.
    f.expert.s += local_experts * (gemm_time(r, per_expert, k, out) + tile_loss(r, per_expert, k, out) - r.kernel) +
                  r.kernel;
    // Transformer Engine's grouped linear runs one cuBLAS GEMM per local expert on several
    // streams, each with its FP8 recipe's quantisation of that expert's split input: the host
    // issues them one by one (the GB200 write-up's section 1, "MXFP8 Grouped GEMM, implemented using
    // multi-stream + cuBLAS", NVIDIA/Megatron-LM docs/discussions/deepseek-v3-gb200-optimization;
    // still the default path in 2026, NVIDIA/TransformerEngine pull request #3134: "a per-expert
    // loop of cuBLASLt GEMMs across multiple CUDA streams"). Each is taken at a Linear's host cost.
    f.expert.launches += in.per_gemm * in.r.te_host * local_experts;
    f.cast_bytes += local_experts * fp8_cast_bytes(per_expert, k, out);
  }
}

// The output layer stays BF16 under NVFP4 (time_rates.cpp: head_gemm_flops).
double head_gemm_time(const Rates& r, const ModelCosts& c, const Layout& l, double tokens) {
  Rates head_rates = r;
  head_rates.gemm_flops = r.head_gemm_flops;
  const double tp = static_cast<double>(l.tp);
  return gemm_passes(l) * gemm_time(head_rates, tokens, static_cast<double>(c.hidden), static_cast<double>(c.vocab) / tp);
}

}  // namespace ladle::plan::timing
