// FP8 delayed scaling's amax history (--fp8-amax-history-len; plan/cost_fp8_amax_history): the
// GEMM count and the terms by hand, then how the memory and time models move with the length.
#include <gtest/gtest.h>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cost_fp8_amax_history.hpp"
#include "ladle/plan/predictor.hpp"

namespace ladle::plan {
namespace {

// 100 GEMMs, history 1024: 5 quantizers each, (1024 rows + 1 scale) x 4 bytes = 2,050,000 bytes;
// the roll reads and writes 1024 x 500 FP32 values: 4,096,000 bytes, 1.024 us at 4e12 B/s.
TEST(CostFp8AmaxHistory, TermsByHand) {
  EXPECT_DOUBLE_EQ(amax_history_bytes(true, 1024, 100), 2050000.0);
  EXPECT_DOUBLE_EQ(amax_history_bytes(false, 1024, 100), 0.0);
  EXPECT_DOUBLE_EQ(amax_history_seconds(true, 1024, 100, 4e12), 4096000.0 / 4e12);
  EXPECT_DOUBLE_EQ(amax_history_seconds(false, 1024, 100, 4e12), 0.0);
  Layout l;
  EXPECT_FALSE(fp8_delayed(l));  // BF16
  l.fp8 = Fp8Format::hybrid;
  EXPECT_TRUE(fp8_delayed(l));  // the recipe's default is delayed
  l.fp8_recipe = Fp8Recipe::tensorwise;
  EXPECT_FALSE(fp8_delayed(l));
}

// Megatron-Core's modules: GQA 2 (linear_qkv, linear_proj) + MLP 2; MLA with q LoRA 5; a MoE layer
// of 128 experts at EP 8 has 16 local experts, each a GEMM in fc1 and in fc2, plus the shared
// expert's 2.
TEST(CostFp8AmaxHistory, GemmsPerLayer) {
  ModelCosts c;
  Layout l;
  LayerKind dense;
  EXPECT_DOUBLE_EQ(fp8_layer_gemms(dense, c, l), 4.0);
  c.mla = true;
  c.q_lora_rank = 1536;
  c.experts = 128;
  c.shared_ffn = 2048;
  l.ep = 8;
  LayerKind moe;
  moe.moe = true;
  EXPECT_DOUBLE_EQ(fp8_layer_gemms(moe, c, l), 5.0 + 2.0 * 16 + 2.0);
  LayerKind mamba;
  mamba.mixer = MixerKind::mamba;
  mamba.has_mlp = false;
  EXPECT_DOUBLE_EQ(fp8_layer_gemms(mamba, c, l), 2.0);
}

// Qwen3-30B-A3B (48 layers, 128 experts, no shared expert) at EP 8 on one stage: 48 x (2 + 2 x 16)
// = 1,632 GEMMs. From history 1 to 1024 the workspaces grow by 1023 x 5 x 1,632 x 4 bytes and each
// microbatch by the roll of the longer histories.
TEST(CostFp8AmaxHistory, ModelsMoveWithTheLength) {
  const ModelSpec model = model::load_model("qwen3-30b-a3b");
  const ModelCosts costs = model_costs(model, 4096);
  const Cluster cluster = make_cluster("h200", 8);
  const layout::LayoutContext context{8, 8, 4096, 64};
  Layout one = layout::resolve_layout(layout::parse_layout_spec("tp=1,pp=1,ep=8,etp=1,recompute=full,dist_opt=on"), context);
  one.fp8 = Fp8Format::hybrid;
  Layout long_history = one;
  long_history.fp8_amax_history = 1024;
  const std::vector<int64_t> stages = layout::stage_layers(one, model.num_layers);
  const int64_t m = layout::microbatches_per_step(one, context);
  const Calibration cal;
  double gemms = 0;
  for (size_t k = 0; k < costs.kinds.size(); ++k) gemms += costs.count(k, 0, model.num_layers) * fp8_layer_gemms(costs.kinds[k], costs, one);
  EXPECT_DOUBLE_EQ(gemms, 48.0 * (2 + 2 * 16));
  const MemoryEstimate ma = estimate_memory(costs, one, stages, m, cluster, cal);
  const MemoryEstimate mb = estimate_memory(costs, long_history, stages, m, cluster, cal);
  EXPECT_NEAR(mb.worst_bytes - ma.worst_bytes, 1023.0 * 5 * gemms * 4, 1.0);
  const Workload w{4096, 64};
  const TimeEstimate ta = estimate_time(costs, one, stages, m, cluster, w, cal);
  const TimeEstimate tb = estimate_time(costs, long_history, stages, m, cluster, w, cal);
  const double hbm = cluster.gpu.hbm_tb_per_s * 1e12 * cal.hbm_efficiency;
  EXPECT_NEAR(tb.step_s - ta.step_s, static_cast<double>(m) * 2 * 4 * 1023.0 * 5 * gemms / hbm, 1e-12);
  // The current-scaling recipe keeps no history: the length moves nothing.
  one.fp8_recipe = Fp8Recipe::tensorwise;
  long_history.fp8_recipe = Fp8Recipe::tensorwise;
  EXPECT_DOUBLE_EQ(estimate_memory(costs, one, stages, m, cluster, cal).worst_bytes,
                   estimate_memory(costs, long_history, stages, m, cluster, cal).worst_bytes);
}

}  // namespace
}  // namespace ladle::plan
