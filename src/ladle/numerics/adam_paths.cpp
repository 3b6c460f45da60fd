#include "ladle/numerics/adam_paths.hpp"

#include <cmath>

#include "ladle/numerics/low_precision.hpp"
#include "ladle/numerics/param_remainder.hpp"
#include "ladle/util/error.hpp"

namespace ladle::numerics {

namespace {
// torch.finfo(torch.float16).max / 2.0: FusedAdam's target range for scaled FP16 states.
constexpr float kFp16StateRange = 65504.0f / 2.0f;

// TE's moment updates for one element, parenthesised as adam.cu writes them.
inline void te_moments(const TeAdamScalars& s, float g, float& m, float& v) {
  m = s.beta1 * m + (1.0f - s.beta1) * g;
  v = s.beta2 * v + (1.0f - s.beta2) * g * g;
}

// One element of TE's AdamW-mode update.
inline void te_update(const TeAdamScalars& s, float g, float& p, float& m, float& v) {
  te_moments(s, g, m, v);
  const float m_unbiased = m / s.bias_correction1;
  const float v_unbiased = v / s.bias_correction2;
  const float denom = std::sqrt(v_unbiased) + s.eps;
  const float update = (m_unbiased / denom) + (s.weight_decay * p);
  p = p - (s.lr * update);
}
}  // namespace

std::string to_string(StateDtype dtype) {
  switch (dtype) {
    case StateDtype::fp32: return "fp32";
    case StateDtype::bf16: return "bf16";
    case StateDtype::fp16: return "fp16";
  }
  return "fp32";
}

StateDtype parse_state_dtype(const std::string& text, const std::string& flag) {
  if (text == "fp32" || text == "float32") return StateDtype::fp32;
  if (text == "bf16" || text == "bfloat16") return StateDtype::bf16;
  if (text == "fp16" || text == "float16") return StateDtype::fp16;
  throw_usage("{}: unknown dtype '{}', expected fp32, bf16 or fp16", flag, text);
}

TeAdamScalars te_adam_scalars(const AdamHyper& hyper, int step, bool bias_correction) {
  TeAdamScalars s;
  s.lr = static_cast<float>(hyper.lr);
  s.beta1 = static_cast<float>(hyper.beta1);
  s.beta2 = static_cast<float>(hyper.beta2);
  s.eps = static_cast<float>(hyper.eps);
  s.weight_decay = static_cast<float>(hyper.weight_decay);
  if (bias_correction) {
    // adam.cu: `1 - std::pow(beta1, step)` with a float beta and an int step is a double pow.
    s.bias_correction1 = static_cast<float>(1.0 - std::pow(static_cast<double>(s.beta1), step));
    s.bias_correction2 = static_cast<float>(1.0 - std::pow(static_cast<double>(s.beta2), step));
  }
  return s;
}

TorchAdamWScalars torch_adamw_scalars(const AdamHyper& hyper, int step) {
  TorchAdamWScalars s;
  const double bias_correction1 = 1.0 - std::pow(hyper.beta1, step);
  const double bias_correction2 = 1.0 - std::pow(hyper.beta2, step);
  s.decay = static_cast<float>(1.0 - hyper.lr * hyper.weight_decay);
  s.lerp_weight = static_cast<float>(1.0 - hyper.beta1);
  s.beta2 = static_cast<float>(hyper.beta2);
  s.one_minus_beta2 = static_cast<float>(1.0 - hyper.beta2);
  s.bias_correction2_sqrt = static_cast<float>(std::pow(bias_correction2, 0.5));
  s.eps = static_cast<float>(hyper.eps);
  s.neg_step_size = static_cast<float>(-(hyper.lr / bias_correction1));
  return s;
}

void fp64_adamw_step(const AdamHyper& hyper, int step, std::span<const float> grad,
                     std::span<double> param, std::span<double> exp_avg,
                     std::span<double> exp_avg_sq) {
  LADLE_ASSERT(param.size() == grad.size() && exp_avg.size() == grad.size() &&
                   exp_avg_sq.size() == grad.size(),
               "spans of one slice have one length");
  const double b1 = hyper.beta1;
  const double b2 = hyper.beta2;
  const double bc1 = 1.0 - std::pow(b1, step);
  const double bc2 = 1.0 - std::pow(b2, step);
  const size_t n = grad.size();
  for (size_t i = 0; i < n; ++i) {
    const double g = grad[i];
    const double m = b1 * exp_avg[i] + (1.0 - b1) * g;
    const double v = b2 * exp_avg_sq[i] + (1.0 - b2) * g * g;
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
    const double p = param[i];
    param[i] = p - hyper.lr * ((m / bc1) / (std::sqrt(v / bc2) + hyper.eps) + hyper.weight_decay * p);
  }
}

void te_adam_moments(const TeAdamScalars& s, std::span<const float> grad, std::span<float> exp_avg,
                     std::span<float> exp_avg_sq) {
  LADLE_ASSERT(exp_avg.size() == grad.size() && exp_avg_sq.size() == grad.size(),
               "spans of one slice have one length");
  for (size_t i = 0; i < grad.size(); ++i) te_moments(s, grad[i], exp_avg[i], exp_avg_sq[i]);
}

void te_adam_step(const TeAdamScalars& s, std::span<const float> grad, std::span<float> master,
                  std::span<float> exp_avg, std::span<float> exp_avg_sq) {
  LADLE_ASSERT(master.size() == grad.size() && exp_avg.size() == grad.size() &&
                   exp_avg_sq.size() == grad.size(),
               "spans of one slice have one length");
  const size_t n = grad.size();
  float* p = master.data();
  float* m = exp_avg.data();
  float* v = exp_avg_sq.data();
  const float* g = grad.data();
  for (size_t i = 0; i < n; ++i) te_update(s, g[i], p[i], m[i], v[i]);
}

void te_adam_step_remainder(const TeAdamScalars& s, std::span<const float> grad,
                            std::span<uint16_t> bf16, std::span<int16_t> remainder,
                            std::span<float> exp_avg, std::span<float> exp_avg_sq,
                            bool truncating_split) {
  LADLE_ASSERT(bf16.size() == grad.size() && remainder.size() == grad.size() &&
                   exp_avg.size() == grad.size() && exp_avg_sq.size() == grad.size(),
               "spans of one slice have one length");
  const RemainderSplit mode =
      truncating_split ? RemainderSplit::truncating : RemainderSplit::te_rounding;
  // The truncating control keeps TE's join: a split that does not round up, read back by a join
  // that undoes a round-up, is the inconsistency the control stands for.
  const size_t n = grad.size();
  for (size_t i = 0; i < n; ++i) {
    float p = join_master({bf16[i], remainder[i]});
    te_update(s, grad[i], p, exp_avg[i], exp_avg_sq[i]);
    const SplitMaster split = split_master(p, mode);
    bf16[i] = split.bf16;
    remainder[i] = split.remainder;
  }
}

void torch_adamw_step(const TorchAdamWScalars& s, std::span<const float> grad,
                      std::span<float> master, std::span<float> exp_avg,
                      std::span<float> exp_avg_sq) {
  LADLE_ASSERT(master.size() == grad.size() && exp_avg.size() == grad.size() &&
                   exp_avg_sq.size() == grad.size(),
               "spans of one slice have one length");
  const size_t n = grad.size();
  float* p = master.data();
  float* m = exp_avg.data();
  float* v = exp_avg_sq.data();
  const float* g = grad.data();
  // Each statement is one tensor op of _single_tensor_adam, applied to the element.
  for (size_t i = 0; i < n; ++i) {
    p[i] = p[i] * s.decay;                                        // param.mul_(1 - lr * wd)
    m[i] = m[i] + s.lerp_weight * (g[i] - m[i]);                  // exp_avg.lerp_(grad, 1 - b1)
    v[i] = v[i] * s.beta2;                                        // exp_avg_sq.mul_(b2)
    v[i] = v[i] + s.one_minus_beta2 * g[i] * g[i];                // .addcmul_(g, g, value=1 - b2)
    const float denom = std::sqrt(v[i]) / s.bias_correction2_sqrt + s.eps;  // (sqrt / c).add_(eps)
    p[i] = p[i] + s.neg_step_size * m[i] / denom;                 // addcdiv_(m, denom, -step)
  }
}

void copy_to_bf16_rne(std::span<const float> master, std::span<uint16_t> bf16) {
  LADLE_ASSERT(master.size() == bf16.size(), "spans of one slice have one length");
  for (size_t i = 0; i < master.size(); ++i) bf16[i] = bf16_from_float_rne(master[i]);
}

void store_as_bf16(std::span<float> values) {
  for (float& x : values) x = float_from_bf16(bf16_from_float_rne(x));
}

float fp16_state_scale(float absmax) { return absmax / kFp16StateRange; }

void store_as_fp16_scaled(std::span<float> values, float scale) {
  const float rscale = scale > 0.0f ? 1.0f / scale : 0.0f;
  for (float& x : values) x = float_from_fp16(fp16_from_float_rne(x * rscale)) * scale;
}

}  // namespace ladle::numerics
