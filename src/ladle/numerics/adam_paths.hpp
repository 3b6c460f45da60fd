#pragma once
// The optimizer paths as elementwise functions over one slice of a tensor. Each follows the
// arithmetic of the code it stands for, operation by operation, in FP32 (or FP64 for the reference):
//
// - te_adam_step: Transformer Engine's FusedAdam kernel in AdamW mode (adam_w_mode=1), the
//   AdamFunctor / AdamFunctorMaster bodies of transformer_engine/common/multi_tensor/adam.cu:
//     m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g*g;  denom = sqrtf(v/bc2) + eps;
//     update = (m/bc1)/denom + wd*p;  p = p - lr*update
//   with float lr, betas, eps and wd, and bc1 = float(1 - pow(double(float b1), step)) as the host
//   launcher computes it (multi_tensor_adam_cuda). Megatron's default mixed-precision optimizer runs
//   this on FP32 main params and copies them to the BF16 model params (round to nearest even).
// - te_adam_step_remainder: AdamFunctorMasterParamRemainder, the same update on the FP32 master
//   rebuilt from the BF16 weight and its remainder, split again afterwards (param_remainder.hpp).
//   Megatron passes store_param_remainders=True with --use-precision-aware-optimizer (TE >= 2.1).
// - torch_adamw_step: PyTorch's CPU AdamW, `_single_tensor_adam` with decoupled weight decay
//   (torch/optim/adam.py), one tensor op at a time in FP32 with Python-double scalars cast to float:
//     p *= float(1 - lr*wd);  m = lerp(m, g, float(1-b1));  v *= float(b2);
//     v += float(1-b2)*g*g;  denom = sqrt(v)/float(sqrt(bc2)) + float(eps);
//     p += float(-lr/bc1)*m/denom
//   (lerp with a weight under 0.5 is m + w*(g-m); addcmul and addcdiv evaluate
//   self + value*t1*t2 and self + value*t1/t2 left to right, as aten's CPU kernels do).
// - fp64_adamw_step: the same AdamW in double, the reference.

#include <cstdint>
#include <span>
#include <string>

namespace ladle::numerics {

/// Adam hyper-parameters as the recipe gives them (Python floats, i.e. doubles).
struct AdamHyper {
  double lr = 1e-5;
  double beta1 = 0.9;
  double beta2 = 0.98;
  double eps = 1e-8;  ///< Megatron-LM's default --adam-eps
  double weight_decay = 0.1;

  bool operator==(const AdamHyper&) const = default;
};

/// Storage type of an optimizer state or of the main gradients.
enum class StateDtype { fp32, bf16, fp16 };

/// "fp32", "bf16" or "fp16".
std::string to_string(StateDtype dtype);

/// Parses "fp32", "bf16" or "fp16" (also "float32", "bfloat16", "float16"). Throws Error(usage)
/// naming `flag` otherwise.
StateDtype parse_state_dtype(const std::string& text, const std::string& flag);

/// The scalars one FusedAdam launch receives, already rounded to FP32 as the launcher does.
struct TeAdamScalars {
  float lr = 0;
  float beta1 = 0;
  float beta2 = 0;
  float eps = 0;
  float weight_decay = 0;
  float bias_correction1 = 1;
  float bias_correction2 = 1;
};

/// TE's scalars for step `step` (1-based). Without bias correction both corrections are 1.
TeAdamScalars te_adam_scalars(const AdamHyper& hyper, int step, bool bias_correction = true);

/// The scalars PyTorch's `_single_tensor_adam` hands to its FP32 tensor ops for step `step`.
struct TorchAdamWScalars {
  float decay = 1;           ///< float(1 - lr*wd)
  float lerp_weight = 0;     ///< float(1 - beta1)
  float beta2 = 0;           ///< float(beta2)
  float one_minus_beta2 = 0; ///< float(1 - beta2)
  float bias_correction2_sqrt = 1;  ///< float((1 - beta2**step) ** 0.5)
  float eps = 0;             ///< float(eps)
  float neg_step_size = 0;   ///< float(-(lr / (1 - beta1**step)))
};

/// PyTorch's scalars for step `step` (1-based).
TorchAdamWScalars torch_adamw_scalars(const AdamHyper& hyper, int step);

/// FP64 AdamW (decoupled weight decay, bias-corrected): the reference. All spans have one length.
void fp64_adamw_step(const AdamHyper& hyper, int step, std::span<const float> grad,
                     std::span<double> param, std::span<double> exp_avg,
                     std::span<double> exp_avg_sq);

/// Only the moment updates of TE's kernel (m and v do not depend on the weights in AdamW mode), for
/// finding FP16 state scales ahead of the full step.
void te_adam_moments(const TeAdamScalars& s, std::span<const float> grad, std::span<float> exp_avg,
                     std::span<float> exp_avg_sq);

/// TE FusedAdam on FP32 weights (AdamFunctor / AdamFunctorMaster): updates master, m and v.
void te_adam_step(const TeAdamScalars& s, std::span<const float> grad, std::span<float> master,
                  std::span<float> exp_avg, std::span<float> exp_avg_sq);

/// TE FusedAdam with parameter remainders: rebuilds each FP32 master from `bf16` and `remainder`,
/// updates it, and splits it back with `split` (TE's rounding, or truncation for the control).
void te_adam_step_remainder(const TeAdamScalars& s, std::span<const float> grad,
                            std::span<uint16_t> bf16, std::span<int16_t> remainder,
                            std::span<float> exp_avg, std::span<float> exp_avg_sq,
                            bool truncating_split = false);

/// PyTorch CPU AdamW on FP32 host masters.
void torch_adamw_step(const TorchAdamWScalars& s, std::span<const float> grad,
                      std::span<float> master, std::span<float> exp_avg,
                      std::span<float> exp_avg_sq);

/// Rounds every FP32 master to BF16 (round to nearest even), the copy to the model weights.
void copy_to_bf16_rne(std::span<const float> master, std::span<uint16_t> bf16);

/// Rounds `values` in place to what a BF16 state holds (the FP32 value of its BF16 rounding).
void store_as_bf16(std::span<float> values);

/// FusedAdam's FP16 state scale for a tensor whose largest |value| is `absmax`:
/// absmax / (65504 / 2), in FP32 (fused_adam.py _apply_scale).
float fp16_state_scale(float absmax);

/// Rounds `values` in place to what an FP16 state with `scale` holds and gives back when unscaled:
/// float(fp16(value * (1/scale))) * scale, or 0 where scale is 0.
void store_as_fp16_scaled(std::span<float> values, float scale);

}  // namespace ladle::numerics
