// The unfused gated activation (swiglu_fusion=off; plan/time_elementwise.cpp): the extra bytes by
// hand, then how the time model moves with them on a dense and a MoE catalog model.
#include "ladle/plan/time_elementwise.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/time_rates.hpp"

namespace ladle::plan {
namespace {

struct Case {
  ModelSpec model;
  ModelCosts costs;
  Cluster cluster;
  Layout layout;
  std::vector<int64_t> stages;
  int64_t microbatches = 0;
};

Case setup(const std::string& model_name, const std::string& spec, int64_t gpus) {
  Case s;
  s.model = model::load_model(model_name);
  s.costs = model_costs(s.model, 4096);
  s.cluster = make_cluster("h200", gpus);
  const layout::LayoutContext context{gpus, 8, 4096, 64};
  s.layout = layout::resolve_layout(layout::parse_layout_spec(spec), context);
  s.stages = layout::stage_layers(s.layout, s.model.num_layers);
  s.microbatches = layout::microbatches_per_step(s.layout, context);
  return s;
}

double step_s(const Case& s, const Calibration& cal) {
  return estimate_time(s.costs, s.layout, s.stages, s.microbatches, s.cluster, Workload{4096, 64}, cal).step_s;
}

// Forward: silu 2 + the offset's add 2 + the product 3 passes where the fused kernel makes 3, so
// 4 extra BF16 passes = 8 bytes per element of one half of the FFN width; nothing when fused or
// when the MLP is not gated (GPT's fc1 -> GELU).
TEST(TimeElementwise, UnfusedGluBytesByHand) {
  ModelCosts c;
  c.gated_mlp = true;
  Layout l;
  EXPECT_DOUBLE_EQ(timing::unfused_glu_bytes_per_element(l, c), 0.0);
  l.swiglu_fusion = false;
  EXPECT_DOUBLE_EQ(timing::unfused_glu_bytes_per_element(l, c), 8.0);
  c.gated_mlp = false;
  EXPECT_DOUBLE_EQ(timing::unfused_glu_bytes_per_element(l, c), 0.0);
}

// Llama-3.1-8B at TP 2, one stage, microbatches of four 4,096-token rows (enough work that the GPU,
// not the host's launches, sets each layer's pace): each of the 32 layers moves 8 x 16,384 x 14,336
// / 2 extra bytes forward and twice that backward, at the achieved HBM rate.
TEST(TimeElementwise, UnfusedSwigluIsSlowerByTheDerivedBytes) {
  const Case fused = setup("llama-3.1-8b", "tp=2,pp=1,ep=1,etp=1,sp=on,recompute=none,dist_opt=on,rows_per_mb=4", 8);
  Case unfused = fused;
  unfused.layout.swiglu_fusion = false;
  const Calibration cal;
  const double hbm = fused.cluster.gpu.hbm_tb_per_s * 1e12 * cal.hbm_efficiency;
  ASSERT_EQ(fused.costs.ffn, 14336);
  ASSERT_EQ(fused.layout.rows_per_mb, 4);
  const double tokens = 4096.0 * 4;
  const double per_layer = 3 * 8.0 * tokens * 14336.0 / 2 / hbm;
  const double expected = static_cast<double>(fused.microbatches) * 32 * per_layer;
  EXPECT_GT(expected, 0.01);  // tens of milliseconds a step: worth pricing
  EXPECT_NEAR(step_s(unfused, cal) - step_s(fused, cal), expected, 1e-9);
}

// A MoE model: the routed experts' activation (every routed token copy at one expert's width over
// ETP) is unfused as well, so the step slows by more than its dense layers' share.
TEST(TimeElementwise, UnfusedActivationOfRoutedExpertsIsPriced) {
  const Case fused = setup("qwen3-30b-a3b", "tp=1,pp=1,ep=8,etp=1,recompute=none,dist_opt=on,rows_per_mb=4", 8);
  ASSERT_EQ(fused.costs.shared_ffn, 0);
  Case unfused = fused;
  unfused.layout.swiglu_fusion = false;
  const Calibration& cal = default_calibration();
  ASSERT_TRUE(std::isfinite(step_s(fused, cal)));
  EXPECT_GT(step_s(unfused, cal), step_s(fused, cal));
}

// Selective recompute of the MLP (recompute_modules=mlp) reruns the activation: unfused, its
// forward once more (4 extra BF16 passes, as above) and two more kernels (silu, the offset's add
// and the product where the fused path launches one), on top of the unfused forward and backward.
TEST(TimeElementwise, RecomputedMlpRerunsTheUnfusedActivation) {
  const std::string spec = "tp=2,pp=1,ep=1,etp=1,sp=on,dist_opt=on,rows_per_mb=4";
  const Case plain = setup("llama-3.1-8b", spec + ",recompute=none", 8);
  const Case redo = setup("llama-3.1-8b", spec + ",recompute=selective,recompute_modules=mlp", 8);
  Case plain_unfused = plain;
  plain_unfused.layout.swiglu_fusion = false;
  Case redo_unfused = redo;
  redo_unfused.layout.swiglu_fusion = false;
  const Calibration cal;
  const double hbm = plain.cluster.gpu.hbm_tb_per_s * 1e12 * cal.hbm_efficiency;
  const double kernel = timing::time_rates(redo.layout, redo.cluster, Workload{4096, 64}, cal).kernel;
  const double tokens = 4096.0 * 4;
  const double per_layer = 8.0 * tokens * 14336.0 / 2 / hbm + 2 * kernel;
  const double expected = static_cast<double>(redo.microbatches) * 32 * per_layer;
  const double unfused_cost_plain = step_s(plain_unfused, cal) - step_s(plain, cal);
  const double unfused_cost_redo = step_s(redo_unfused, cal) - step_s(redo, cal);
  EXPECT_GT(expected, 0.005);
  EXPECT_NEAR(unfused_cost_redo - unfused_cost_plain, expected, 1e-9);
}

// torchtitan without torch.compile (eager): Llama-3.1-8B's layer op by op as torchtitan's model
// code runs it (time_elementwise.cpp). Per token, forward, beyond the fused stream: two RMSNorms
// at 36 bytes per hidden element where a fused norm moves 4, rotary at 20 bytes per q and k
// element (32 + 8 heads of 128) where fused moves 4, SwiGLU at 10 per FFN element where fused
// moves 6.
TEST(TimeElementwise, EagerTorchtitanBytesByHand) {
  const ModelCosts c = model_costs(model::load_model("llama-3.1-8b"), 8192);
  ASSERT_EQ(c.hidden, 4096);
  ASSERT_EQ(c.heads * c.head_dim + c.kv_heads * c.head_dim, 4096 + 1024);
  ASSERT_EQ(c.ffn, 14336);
  Workload compiled{8192, 16};
  compiled.stack = Stack::torchtitan;
  compiled.compiled = true;
  Workload eager = compiled;
  eager.compiled = false;
  const double extra = 2 * (36.0 - 4) * 4096 + (20.0 - 4) * (4096 + 1024) + (10.0 - 6) * 14336;
  EXPECT_DOUBLE_EQ(timing::stream_bytes_per_token(c, eager) - timing::stream_bytes_per_token(c, compiled), extra);
  // torchtitan, compiled or not, copies K and V (8 heads of 128) out to the 32 query heads
  // before SDPA (repeat_kv): read 2 x 1,024 and write 2 x 4,096 BF16 elements a token, which
  // Megatron-LM's attention does not.
  const double repeat_kv = 2.0 * 2 * (1024 + 4096);
  EXPECT_DOUBLE_EQ(timing::stream_bytes_per_token(c, compiled) - timing::stream_bytes_per_token(c, Workload{8192, 16}),
                   repeat_kv);
}

// The fused activation moves over the MLP's width: for Llama-3.1-8B's dense layer (SwiGLU, one
// half 14,336 wide) at TP 2, one kernel reads gate and up and writes the product, 3 BF16 passes
// over 7,168 elements a token, besides the hidden-size stream and the layer's 20 launches.
TEST(TimeElementwise, FusedActivationMovesTheMlpWidth) {
  const Case s = setup("llama-3.1-8b", "tp=2,pp=1,ep=1,etp=1,sp=on,recompute=none,dist_opt=on,rows_per_mb=4", 8);
  const Workload w{4096, 64};
  const timing::Rates r = timing::time_rates(s.layout, s.cluster, w, Calibration{});
  const LayerKind& kind = s.costs.kinds.at(0);
  ASSERT_TRUE(kind.has_mlp);
  ASSERT_FALSE(kind.moe);
  const double tokens = 4096.0 * 4;
  const timing::KindInputs in{.c = s.costs,
                              .kind = kind,
                              .l = s.layout,
                              .r = r,
                              .w = w,
                              .tokens = tokens,
                              .tp = 2,
                              .sp_div = 2,
                              .h = 4096};
  timing::LayerForward f;
  timing::elementwise(in, f);
  const double stream = tokens / 2 * timing::stream_bytes_per_token(s.costs, w);
  const double activation = 3 * 2.0 * tokens * 14336.0 / 2;
  EXPECT_NEAR(f.elementwise, (stream + activation) / r.hbm + 20 * r.kernel, 1e-12);
}

}  // namespace
}  // namespace ladle::plan
