// time_elementwise.cpp: memory-bound work (see time_elementwise.hpp).
#include "ladle/plan/time_elementwise.hpp"

#include "ladle/plan/cost_compressed_attention.hpp"
#include "ladle/plan/stack.hpp"
#include "ladle/plan/time_gemm.hpp"

namespace ladle::plan::timing {

// Eager PyTorch (torchtitan without torch.compile) runs torchtitan's model code op by op, each op
// a kernel that reads its inputs from HBM and writes its output back (pytorch/torchtitan
// @ 9dec370ad26b5f8e9a7333a0e36165018262644b, the commit of the eager rows' December 2024
// benchmark: torchtitan/models/norms.py RMSNorm, torchtitan/models/llama/model.py
// apply_rotary_emb and FeedForward). Bytes per element, forward:
// - RMSNorm, `self._norm(x.float()).type_as(x) * self.weight` with `_norm` =
//   `x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)`: the cast to FP32 (read 2, write 4),
//   pow (read 4, write 4), mean (read 4; its per-row output is negligible), the scale (read 4,
//   write 4), the cast back (read 4, write 2), the weight (read 2, write 2): 36, where a fused
//   norm reads 2 and writes 2.
// - Rotary on each q and k element, `view_as_complex(xq.float()...) * freqs_cis` then
//   `.type_as(xq)`: the cast (read 2, write 4), the complex product (read 4, write 4; freqs_cis
//   is broadcast over the batch and the heads), the cast back (read 4, write 2): 20, where a
//   fused rotary reads 2 and writes 2.
// - SwiGLU, `F.silu(self.w1(x)) * self.w3(x)`: silu (read 2, write 2) and the product (read 4,
//   write 2) per element of the FFN width: 10, where a fused kernel reads 4 and writes 2.
// The backward of each op moves about twice its forward, as the time model's 3x assumes.
inline constexpr double kEagerRmsNormBytes = (2 + 4) + (4 + 4) + 4 + (4 + 4) + (4 + 2) + (2 + 2);
inline constexpr double kFusedNormBytes = 2 + 2;
inline constexpr double kEagerRotaryBytes = (2 + 4) + (4 + 4) + (4 + 2);
inline constexpr double kFusedRotaryBytes = 2 + 2;
inline constexpr double kEagerSwigluBytes = (2 + 2) + (4 + 2);
inline constexpr double kFusedSwigluBytes = 4 + 2;

// torchtitan's grouped-query attention copies the keys and the values out to every query head
// before SDPA (`repeat_kv`: unsqueeze, expand, reshape, which materializes the expanded tensor;
// pytorch/torchtitan torchtitan/models/llama/model.py @ 9dec370ad26b5f8e9a7333a0e36165018262644b
// and torchtitan/models/llama3/model.py @ 820504e20d1149fbf0b98c567af24c4b0433b22d), eager or
// compiled alike: SDPA's flash kernel takes the expanded tensors as inputs. Forward, the copy
// reads K and V (kv-head width) and writes them at the query width; backward sums the expanded
// gradients back, the same bytes. Megatron-LM's attention kernels read the grouped K and V as
// they are. 0 without grouping.
namespace {
double repeat_kv_bytes_per_token(const ModelCosts& c) {
  if (c.kv_heads <= 0 || c.kv_heads >= c.heads) return 0;
  const double q_width = static_cast<double>(c.heads * c.head_dim);
  const double kv_width = static_cast<double>(c.kv_heads * c.head_dim);
  return kBf16 * 2 * (kv_width + q_width);  // K and V: read the grouped copy, write the expanded one
}
}  // namespace

// Bytes per token the memory-bound work of one layer moves in the forward pass (norms, residual
// adds, rotary), in BF16. Fused (Megatron-LM's Transformer Engine and apex kernels, or
// torch.compile): each tensor read and written once, 16 hidden-size tensors; torchtitan adds its
// grouped-query copies. The MLP's activation moves over the MLP's width, not the hidden size, and
// is priced over it (elementwise below); eager torchtitan's extra passes over it are counted here.
double stream_bytes_per_token(const ModelCosts& c, const Workload& w) {
  const double h = static_cast<double>(c.hidden);
  // deepseek_v4's hyper-connection mixing (cost_compressed_attention), 0 for other models.
  double fused = kBf16 * 16.0 * h + hyper_connection_stream_bytes(c);
  if (w.stack == Stack::torchtitan) fused += repeat_kv_bytes_per_token(c);
  if (w.stack != Stack::torchtitan || w.compiled) return fused;
  const double qk = static_cast<double>(c.heads * c.head_dim + c.kv_heads * c.head_dim);
  const double ffn = static_cast<double>(c.ffn);
  return fused + 2 * (kEagerRmsNormBytes - kFusedNormBytes) * h + (kEagerRotaryBytes - kFusedRotaryBytes) * qk +
         (kEagerSwigluBytes - kFusedSwigluBytes) * ffn;
}

// The unfused gated activation (swiglu_fusion=off: Megatron-LM --no-bias-swiglu-fusion,
// Megatron-Bridge model.bias_activation_fusion=false), counted in passes over one element of one
// half of the FFN width (the gate's or the up projection's, per token on this GPU), each pass one
// BF16 read or write. Fused (megatron/core/fusions/fused_bias_swiglu.py at d98e8a64, one kernel
// each way): forward reads gate and up and writes the product, 3 passes; backward reads the
// product's gradient, gate and up and writes both halves' gradients, 5. Unfused (glu() in
// megatron/core/transformer/mlp.py and moe/experts.py at d98e8a64, run by autograd op by op):
// forward silu(gate) 2, up + glu_linear_offset 2 (an add kernel even at offset 0), the product 3,
// together 7; backward the product's two gradients 3 + 3, silu's backward 3, and chunk's backward,
// which concatenates the halves' gradients into fc1's output gradient, 4, together 13. The extra is
// 4 passes forward and 8 backward: the backward's is twice the forward's, as the time model's 3x of
// the forward memory-bound work assumes, so the forward's 4 passes are priced here.
// Not counted: the clamps of a clamped GLU (gpt-oss) and the routed experts' separate multiply by
// the routing probabilities, both extra kernels the fused path folds in as well.
inline constexpr double kUnfusedGluExtraPasses = 4;

double unfused_glu_bytes_per_element(const Layout& l, const ModelCosts& c) {
  return l.swiglu_fusion || !c.gated_mlp ? 0.0 : kUnfusedGluExtraPasses * kBf16;
}

// Memory-bound work: norms, residual adds, rotary, activation, router, permutation; half of its
// 20 kernels belong to the attention block, half to the MLP / MoE block.
void elementwise(const KindInputs& in, LayerForward& f) {
  const double quantize_scale = quantize_bytes_per_element(in.l) / 5.0;  // over fp8_cast_bytes' 5
  // The gated activation's width on this GPU: the dense MLP's, or a MoE layer's shared expert's,
  // split by TP, over every token of the microbatch (sequence parallel gathers them before fc1).
  const double unfused_glu = unfused_glu_bytes_per_element(in.l, in.c);
  const double glu_width = !in.kind.has_mlp ? 0.0
                           : in.kind.moe    ? static_cast<double>(in.c.shared_ffn) / in.tp
                                            : static_cast<double>(in.kind.ffn) / in.tp;
  // The fused activation itself, one kernel over fc1's output: SwiGLU reads gate and up and writes
  // their product (3 BF16 passes over one half's width, as the recompute of the MLP and the routed
  // experts' bytes below count it), GELU reads and writes the one width (2).
  const double activation = (in.c.gated_mlp ? 3.0 : 2.0) * kBf16;
  const double stream_bytes = in.tokens / in.sp_div * stream_bytes_per_token(in.c, in.w) +
                              (activation + unfused_glu) * in.tokens * glu_width;
  f.routed_bytes = kBf16 * in.routed_tokens * (4 * in.h + 3 * in.moe_ffn) + unfused_glu * in.routed_tokens * in.moe_ffn;
  f.elementwise = (stream_bytes + f.routed_bytes + (in.fp8 ? quantize_scale * f.cast_bytes / 3.0 : 0.0)) / in.r.hbm +
                  20 * in.r.kernel;
}


double loss_time(const Rates& r, const ModelCosts& c, const Layout& l, double tokens) {
  const double tp = static_cast<double>(l.tp);
  return 4 * kFp32 * tokens * static_cast<double>(c.vocab) / tp / r.hbm;
}

}  // namespace ladle::plan::timing
