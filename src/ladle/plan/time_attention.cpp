// time_attention.cpp: core attention (see time_attention.hpp).
#include "ladle/plan/time_attention.hpp"

#include "ladle/plan/cost_gemm_shape.hpp"
#include "ladle/plan/stack.hpp"

namespace ladle::plan::timing {

namespace {

// The head size standing for a layer's score and output products, which split its FLOPs.
double priced_head_dim(int64_t head_dim, int64_t v_head_dim) {
  return 0.5 * static_cast<double>(head_dim + (v_head_dim > 0 ? v_head_dim : head_dim));
}

}  // namespace

const hw::KernelFacts::HeadDimCurve& attention_head_dim_curve(const Workload& w, std::string_view gpu) {
  const KernelFacts& k = kernel_facts();
  if (w.stack == Stack::torchtitan || w.flash_attention_2) return k.head_dim_fa2;
  const KernelFacts::GpuAttention* own = hw::gpu_attention(gpu);
  return own != nullptr && own->curve.has_narrow_head() ? own->curve : k.head_dim_fa3;
}

HeadDimPricing narrowest_head_dim(const ModelCosts& c, const Workload& w, std::string_view gpu) {
  const hw::KernelFacts::HeadDimCurve& curve = attention_head_dim_curve(w, gpu);
  HeadDimPricing out;
  out.measured_on = curve.measured_on;
  for (const LayerKind& kind : c.kinds) {
    if (kind.mixer != MixerKind::attention) continue;
    const double d = priced_head_dim(kind.head_dim > 0 ? kind.head_dim : c.qk_head_dim,
                                     kind.v_head_dim > 0 ? kind.v_head_dim : c.v_head_dim);
    const double e = hw::attention_head_dim_efficiency(curve, d);
    if (e < out.efficiency) out.head_dim = d, out.efficiency = e;
  }
  return out;
}

Work core_attention(const KindInputs& in) {
  const LayerKind& kind = in.kind;
  Work w;
  // A short sliding window wastes part of the key tiles its queries visit (cost_gemm_shape).
  const double window_eff = kind.window > 0 && kind.window < in.c.row_tokens
                                ? windowed_attention_efficiency(static_cast<double>(kind.window))
                                : 1.0;
  // Heads narrower than 128 run at their measured share of the kernel's rate (kernels.yaml
  // head_dim_tflops); the score and output products split the FLOPs, so the mean of the q/k and
  // v head sizes stands for the pair.
  const double head_eff =
      kind.mixer == MixerKind::attention && in.r.attention_head_dims != nullptr
          ? hw::attention_head_dim_efficiency(*in.r.attention_head_dims, priced_head_dim(in.head_dim, in.v_head_dim))
          : 1.0;
  w.s = in.tokens * (kind.attention_flops / in.tp / window_eff / head_eff + kind.indexer_flops) / in.r.attention_flops +
        2 * in.r.kernel;
  w.launches = 2;
  return w;
}

}  // namespace ladle::plan::timing
