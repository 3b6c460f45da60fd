// time_recompute.cpp: selective recompute (see time_recompute.hpp).
#include "ladle/plan/time_recompute.hpp"

#include "ladle/plan/time_elementwise.hpp"

namespace ladle::plan::timing {

Recompute selective_recompute(const KindInputs& in, const LayerForward& f, const Blocks& b) {
  Recompute out;
  const ModelCosts& c = in.c;
  const Rates& r = in.r;
  const double tokens = in.tokens;
  const bool moe = in.moe;
  if (in.w.stack == Stack::torchtitan) {
    // torchtitan's per-op selective checkpointing saves every compute op's output except every
    // second matmul (torchtitan/distributed/activation_checkpoint.py, `_save_list` and the
    // "every second mm" rule), and saves attention: half the matmuls and the memory-bound
    // work are recomputed.
    out.s = 0.5 * (f.dense + f.expert.s) + f.elementwise;
    return out;
  }
  // Megatron-LM recomputes the forward of each listed module in the backward pass
  // (megatron/core/transformer: transformer_layer.py, multi_latent_attention.py,
  // moe/moe_layer.py, moe/experts.py; --recompute-modules).
  const uint32_t mods = in.l.recompute_modules;
  Work redo;
  if (has(mods, RecomputeModule::core_attn)) redo += f.core_attention;
  if (has(mods, RecomputeModule::mla_up_proj) && c.mla) redo += f.module(GemmModule::mla_up);
  if (has(mods, RecomputeModule::layernorm)) {
    // Two norms: read and write one hidden-size tensor each.
    redo += Work{4 * kBf16 * tokens / in.sp_div * in.h / r.hbm + 2 * r.kernel, 2};
  }
  // Rerunning the gated activation: fused, one kernel reading gate and up and writing the product
  // (3 BF16 passes over the half width); unfused (swiglu_fusion=off), glu() op by op, silu, the
  // offset's add and the product (three kernels, 4 passes more: time_elementwise.cpp,
  // unfused_glu_bytes_per_element).
  const double glu_bytes = 3 * kBf16 + unfused_glu_bytes_per_element(in.l, c);
  const double glu_kernels = c.gated_mlp && !in.l.swiglu_fusion ? 3 : 1;
  if (has(mods, RecomputeModule::mlp) && !moe) {
    redo += f.module(GemmModule::dense_mlp);
    const double ffn = static_cast<double>(c.ffn) / in.tp;
    redo += Work{glu_bytes * tokens * ffn / r.hbm + glu_kernels * r.kernel, glu_kernels};  // SwiGLU
  }
  if (moe && has(mods, RecomputeModule::moe)) {
    // The whole MoE block: router, dispatch, experts, combine, shared expert.
    redo += b.router;
    redo += b.experts;
    redo += b.preprocess;
    redo += b.shared;
    redo += Work{f.routed_bytes / r.hbm, 0};
    out.moe_block = true;
  } else {
    if (moe && has(mods, RecomputeModule::moe_act)) {
      // The routed experts' activation: read fc1's output (2 x width), write width.
      redo += Work{glu_bytes * in.routed_tokens * in.moe_ffn / r.hbm + glu_kernels * r.kernel, glu_kernels};
    }
    if (has(mods, RecomputeModule::shared_experts)) redo += b.shared;
  }
  out.s = redo.s;
  out.launches = redo.launches;
  return out;
}

}  // namespace ladle::plan::timing
