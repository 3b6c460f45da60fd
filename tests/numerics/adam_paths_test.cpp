#include "ladle/numerics/adam_paths.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <vector>

#include "ladle/numerics/low_precision.hpp"
#include "ladle/numerics/param_remainder.hpp"
#include "support/test_support.hpp"

namespace ladle::numerics {
namespace {

TEST(AdamPaths, TeScalarsRoundLikeTheLauncher) {
  const AdamHyper h;
  const TeAdamScalars s = te_adam_scalars(h, 3);
  EXPECT_EQ(s.lr, 1e-5f);
  EXPECT_EQ(s.beta2, 0.98f);
  // float(1 - pow(double(0.9f), 3)), not 1 - 0.9^3 in double.
  const double b1 = static_cast<double>(0.9f);
  EXPECT_EQ(s.bias_correction1, static_cast<float>(1.0 - b1 * b1 * b1));
  const TeAdamScalars none = te_adam_scalars(h, 3, false);
  EXPECT_EQ(none.bias_correction1, 1.0f);
  EXPECT_EQ(none.bias_correction2, 1.0f);
}

TEST(AdamPaths, TeStepFollowsTheKernelExpression) {
  const AdamHyper h;
  const TeAdamScalars s = te_adam_scalars(h, 1);
  std::vector<float> g = {3e-4f}, p = {0.0234375f}, m = {0.0f}, v = {0.0f};
  te_adam_step(s, g, p, m, v);
  volatile float em = s.beta1 * 0.0f + (1.0f - s.beta1) * 3e-4f;
  volatile float ev = s.beta2 * 0.0f + (1.0f - s.beta2) * 3e-4f * 3e-4f;
  const float denom = std::sqrt(ev / s.bias_correction2) + s.eps;
  const float update = (em / s.bias_correction1) / denom + s.weight_decay * 0.0234375f;
  EXPECT_EQ(m[0], em);
  EXPECT_EQ(v[0], ev);
  EXPECT_EQ(p[0], 0.0234375f - s.lr * update);
}

TEST(AdamPaths, TorchStepFollowsSingleTensorAdam) {
  const AdamHyper h;
  const TorchAdamWScalars s = torch_adamw_scalars(h, 2);
  EXPECT_EQ(s.decay, static_cast<float>(1.0 - 1e-5 * 0.1));
  EXPECT_EQ(s.neg_step_size, static_cast<float>(-(1e-5 / (1.0 - 0.9 * 0.9))));
  EXPECT_EQ(s.bias_correction2_sqrt, static_cast<float>(std::sqrt(1.0 - 0.98 * 0.98)));
  std::vector<float> g = {-2e-4f}, p = {0.5f}, m = {1e-4f}, v = {1e-8f};
  torch_adamw_step(s, g, p, m, v);
  float ep = 0.5f * s.decay;
  const float em = 1e-4f + s.lerp_weight * (-2e-4f - 1e-4f);
  float ev = 1e-8f * s.beta2;
  ev = ev + s.one_minus_beta2 * -2e-4f * -2e-4f;
  const float denom = std::sqrt(ev) / s.bias_correction2_sqrt + s.eps;
  ep = ep + s.neg_step_size * em / denom;
  EXPECT_EQ(m[0], em);
  EXPECT_EQ(v[0], ev);
  EXPECT_EQ(p[0], ep);
}

TEST(AdamPaths, Fp64ReferenceFirstStepIsSignSizedStep) {
  // After one bias-corrected step with eps negligible, the update is lr * (sign(g) + wd * p).
  AdamHyper h;
  h.eps = 1e-30;
  std::vector<float> g = {1e-3f, -1e-3f};
  std::vector<double> p = {0.5, 0.5}, m = {0, 0}, v = {0, 0};
  fp64_adamw_step(h, 1, g, p, m, v);
  EXPECT_NEAR(p[0], 0.5 - 1e-5 * (1.0 + 0.05), 1e-15);
  EXPECT_NEAR(p[1], 0.5 - 1e-5 * (-1.0 + 0.05), 1e-15);
}

TEST(AdamPaths, RemainderStepRebuildsTheExplicitMasterBitwise) {
  const AdamHyper h;
  std::vector<float> master = {0.02f, -0.013671875f, 1.5f, 0.0f};
  std::vector<uint16_t> bf16;
  for (const float x : master) bf16.push_back(bf16_from_float_rne(x));
  for (size_t i = 0; i < master.size(); ++i) master[i] = float_from_bf16(bf16[i]);
  std::vector<int16_t> rem(master.size(), 0);
  std::vector<float> m1(4, 0.0f), v1(4, 0.0f), m2(4, 0.0f), v2(4, 0.0f);
  const std::vector<float> g = {1e-4f, -3e-5f, 2e-6f, 7e-4f};
  for (int step = 1; step <= 5; ++step) {
    const TeAdamScalars s = te_adam_scalars(h, step);
    te_adam_step(s, g, master, m1, v1);
    te_adam_step_remainder(s, g, bf16, rem, m2, v2);
    for (size_t i = 0; i < master.size(); ++i) {
      const float rebuilt = join_master({bf16[i], rem[i]});
      EXPECT_EQ(std::bit_cast<uint32_t>(rebuilt), std::bit_cast<uint32_t>(master[i])) << step << " " << i;
    }
  }
}

TEST(AdamPaths, ScaledFp16StateUsesTheRangeAndUnscales) {
  EXPECT_EQ(fp16_state_scale(32752.0f), 1.0f);
  std::vector<float> values = {1e-9f, -3e-10f, 0.0f};
  const float scale = fp16_state_scale(1e-9f);
  store_as_fp16_scaled(values, scale);
  EXPECT_NEAR(values[0], 1e-9f, 1e-9f * 1e-3f);
  EXPECT_NEAR(values[1], -3e-10f, 3e-10f * 1e-3f);
  EXPECT_EQ(values[2], 0.0f);
  std::vector<float> zero = {0.0f};
  store_as_fp16_scaled(zero, 0.0f);
  EXPECT_EQ(zero[0], 0.0f);
}

TEST(AdamPaths, ParsesStateDtypes) {
  EXPECT_EQ(parse_state_dtype("bfloat16", "--x"), StateDtype::bf16);
  EXPECT_EQ(parse_state_dtype("fp16", "--x"), StateDtype::fp16);
  EXPECT_LADLE_ERROR(parse_state_dtype("fp8", "--exp-avg-dtype"), usage,
                     "--exp-avg-dtype: unknown dtype 'fp8', expected fp32, bf16 or fp16");
}

}  // namespace
}  // namespace ladle::numerics
