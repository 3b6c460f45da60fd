// time_attention.cpp: core attention (see time_attention.hpp).
#include "ladle/plan/time_attention.hpp"

#include <algorithm>

#include "ladle/plan/cost_gemm_shape.hpp"
#include "ladle/plan/stack.hpp"

namespace ladle::plan::timing {

namespace {

// The head size standing for a layer's score and output products, which split its FLOPs.
double priced_head_dim(int64_t head_dim, int64_t v_head_dim) {
  return 0.5 * static_cast<double>(head_dim + (v_head_dim > 0 ? v_head_dim : head_dim));
}

// A kind's priced head size, the model's where the kind does not say.
double kind_head_dim(const LayerKind& kind, const ModelCosts& c) {
  return priced_head_dim(kind.head_dim > 0 ? kind.head_dim : c.qk_head_dim,
                         kind.v_head_dim > 0 ? kind.v_head_dim : c.v_head_dim);
}

// A softmax-attention layer whose every query may attend over the whole row (no shorter window).
bool full_attention(const LayerKind& kind, int64_t row_tokens) {
  return kind.mixer == MixerKind::attention && (kind.window <= 0 || kind.window >= row_tokens);
}

// The measured row of a windowed softmax-attention layer under the BF16 fused attention (the rows'
// kernel), or nullptr.
const hw::KernelFacts::WindowAttention* measured_window(const LayerKind& kind, double head_dim, bool bf16_fused,
                                                         std::string_view gpu, int64_t row_tokens) {
  if (!bf16_fused || kind.mixer != MixerKind::attention || full_attention(kind, row_tokens)) return nullptr;
  return hw::window_attention(gpu, kind.window, static_cast<int64_t>(head_dim));
}

// Forward and backward rates, each over a reference rate, as one efficiency of the forward's
// seconds (the step multiplies the forward by 1 + attention_backward).
double both_passes(double forward, double backward, double attention_backward) {
  return (1 + attention_backward) / (1 / forward + attention_backward / backward);
}

}  // namespace

double length_efficiency(const Rates& r, double tokens) {
  const hw::AttentionLengthRatio ratio = hw::attention_length_ratio(r.gpu, tokens);
  return both_passes(ratio.forward, ratio.backward, r.attention_backward);
}

bool attention_priced_by_length(const ModelCosts& c, const Workload& w) {
  return runs_fused_attention(w) && std::any_of(c.kinds.begin(), c.kinds.end(), [&](const LayerKind& kind) {
           return full_attention(kind, c.row_tokens);
         });
}

bool runs_fused_attention(const Workload& w) { return w.stack != Stack::torchtitan && !w.flash_attention_2; }

std::optional<WindowPricing> measured_window_pricing(const ModelCosts& c, const Workload& w, std::string_view gpu) {
  for (const LayerKind& kind : c.kinds) {
    if (const auto* row = measured_window(kind, kind_head_dim(kind, c), runs_fused_attention(w), gpu, c.row_tokens)) {
      return WindowPricing{row->window, row->head_dim, row->forward, row->backward, row->gpus.front()};
    }
  }
  return std::nullopt;
}

const hw::KernelFacts::HeadDimCurve& attention_head_dim_curve(const Workload& w, std::string_view gpu) {
  const KernelFacts& k = kernel_facts();
  if (!runs_fused_attention(w)) return k.head_dim_fa2;
  const KernelFacts::GpuAttention* own = hw::gpu_attention(gpu);
  return own != nullptr && own->curve.has_narrow_head() ? own->curve : k.head_dim_fa3;
}

HeadDimPricing narrowest_head_dim(const ModelCosts& c, const Workload& w, std::string_view gpu) {
  const hw::KernelFacts::HeadDimCurve& curve = attention_head_dim_curve(w, gpu);
  HeadDimPricing out;
  out.measured_on = curve.measured_on;
  for (const LayerKind& kind : c.kinds) {
    if (kind.mixer != MixerKind::attention) continue;
    const double d = kind_head_dim(kind, c);
    const double e = hw::attention_head_dim_efficiency(curve, d);
    if (e < out.efficiency) out.head_dim = d, out.efficiency = e;
  }
  return out;
}

Work core_attention(const KindInputs& in) {
  const LayerKind& kind = in.kind;
  Work w;
  const double head_dim = priced_head_dim(in.head_dim, in.v_head_dim);
  double efficiency = 1.0;
  if (const auto* measured = measured_window(kind, head_dim, in.r.bf16_fused_attention, in.r.gpu, in.c.row_tokens)) {
    // The window's measured rates over the causal ones, forward and backward.
    efficiency = both_passes(measured->forward, measured->backward, in.r.attention_backward);
  } else {
    // A short sliding window wastes part of the key tiles its queries visit (cost_gemm_shape).
    if (kind.window > 0 && kind.window < in.c.row_tokens)
      efficiency = windowed_attention_efficiency(static_cast<double>(kind.window));
    // Heads narrower than 128 run at their measured share of the kernel's rate (kernels.yaml
    // head_dim_tflops); the score and output products split the FLOPs, so the mean of the q/k
    // and v head sizes stands for the pair.
    if (kind.mixer == MixerKind::attention && in.r.attention_head_dims != nullptr)
      efficiency *= hw::attention_head_dim_efficiency(*in.r.attention_head_dims, head_dim);
    // A full causal layer under the fused attention runs at that kernel's measured rate at the
    // length each call attends over, the row over context parallelism, against the 8k the
    // fractions stand for (kernels.yaml attention_length); a window bounds each query's keys and
    // keeps the terms above; FlashAttention-2 is not measured by length.
    if (in.r.fused_attention && full_attention(kind, in.c.row_tokens))
      efficiency *= length_efficiency(in.r, static_cast<double>(in.c.row_tokens) / static_cast<double>(in.l.cp));
  }
  w.s = in.tokens * (kind.attention_flops / in.tp / efficiency + kind.indexer_flops) / in.r.attention_flops +
        2 * in.r.kernel;
  w.launches = 2;
  return w;
}

}  // namespace ladle::plan::timing
