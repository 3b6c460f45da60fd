// Unfused gradient accumulation (--no-gradient-accumulation-fusion; plan/cost_grad_accum_fusion):
// the term by hand, then how the memory and time models move with it on a catalog model.
#include <gtest/gtest.h>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cost_grad_accum_fusion.hpp"
#include "ladle/plan/predictor.hpp"

namespace ladle::plan {
namespace {

struct Case {
  ModelCosts costs;
  Cluster cluster;
  Layout layout;
  std::vector<int64_t> stages;
  int64_t microbatches = 0;
};

Case setup(const std::string& spec) {
  Case s;
  const ModelSpec model = model::load_model("llama-3.1-8b");
  s.costs = model_costs(model, 4096);
  s.cluster = make_cluster("h200", 8);
  const layout::LayoutContext context{8, 8, 4096, 64};
  s.layout = layout::resolve_layout(layout::parse_layout_spec(spec), context);
  s.stages = layout::stage_layers(s.layout, model.num_layers);
  s.microbatches = layout::microbatches_per_step(s.layout, context);
  return s;
}

// 1e9 weights at 4e12 B/s: (2 + 4 + 4) x 1e9 / 4e12 = 2.5 ms a microbatch; nothing when fused.
TEST(CostGradAccumFusion, AddPassByHand) {
  EXPECT_DOUBLE_EQ(unfused_grad_accum_seconds(false, 1e9, 4e12), 0.0025);
  EXPECT_DOUBLE_EQ(unfused_grad_accum_seconds(true, 1e9, 4e12), 0.0);
  EXPECT_DOUBLE_EQ(unfused_grad_accum_bytes(false, 1e6, 2.0), 2e6);
  EXPECT_DOUBLE_EQ(unfused_grad_accum_bytes(true, 1e6, 2.0), 0.0);
}

// A Llama-like layer at TP 2: gate and up [11008, 4096] are one linear_fc1 of 2 x 11,008 x 4,096 /
// 2 = 45,088,768 elements a GPU, the largest layer matrix; on the last stage the output head
// [128,256, 4096] / 2 = 262,668,288 is larger.
TEST(CostGradAccumFusion, LargestWeightShardByHand) {
  ModelCosts c;
  c.gated_mlp = true;
  c.head_params = 128256.0 * 4096.0;
  LayerKind k;
  k.gemms = {{4096, 4096, GemmSplit::tp_out, GemmModule::attention},
             {4096, 4096, GemmSplit::tp_in, GemmModule::attention},
             {11008, 4096, GemmSplit::tp_out, GemmModule::dense_mlp},
             {11008, 4096, GemmSplit::tp_out, GemmModule::dense_mlp},
             {4096, 11008, GemmSplit::tp_in, GemmModule::dense_mlp}};
  c.kinds = {k};
  Layout l;
  l.tp = 2;
  EXPECT_DOUBLE_EQ(largest_weight_shard(c, l, false), 45088768.0);
  EXPECT_DOUBLE_EQ(largest_weight_shard(c, l, true), 262668288.0);
  // A routed expert's gate and up (one grouped fc1 per expert) split by ETP.
  LayerKind moe;
  moe.expert_gemms = {{1536, 4096, GemmSplit::expert_out}, {4096, 1536, GemmSplit::expert_in}};
  c.kinds = {moe};
  l.etp = 2;
  EXPECT_DOUBLE_EQ(largest_weight_shard(c, l, false), 2.0 * 1536 * 4096 / 2);
}

// Llama-3.1-8B at TP 2, DP 4, one stage: turning the fusion off adds, each microbatch, the add pass
// over the GPU's weights but the input embedding, and one 16-bit output-head gradient (the largest
// shard) to the backward's working set, which the allocator's slack grows with.
TEST(CostGradAccumFusion, ModelsMoveByTheTerm) {
  const Case fused = setup("tp=2,pp=1,ep=1,etp=1,sp=on,recompute=none,dist_opt=on");
  Case unfused = fused;
  unfused.layout.grad_accum_fusion = false;
  const Workload w{4096, 64};
  const Calibration cal;
  const TimeEstimate a = estimate_time(fused.costs, fused.layout, fused.stages, fused.microbatches, fused.cluster, w, cal);
  const TimeEstimate b =
      estimate_time(unfused.costs, unfused.layout, unfused.stages, unfused.microbatches, unfused.cluster, w, cal);
  const double hbm = fused.cluster.gpu.hbm_tb_per_s * 1e12 * cal.hbm_efficiency;
  const double gpu_params = a.optimizer_shard_params * static_cast<double>(fused.layout.dp);  // every weight of the GPU
  const double linear = gpu_params - fused.costs.embedding_params / 2;
  EXPECT_GT(linear, 3e9);  // about 8 B / 2 less half the embedding
  EXPECT_NEAR(b.step_s - a.step_s, static_cast<double>(fused.microbatches) * 10.0 * linear / hbm, 1e-9);

  const MemoryEstimate ma =
      estimate_memory(fused.costs, fused.layout, fused.stages, fused.microbatches, fused.cluster, cal);
  const MemoryEstimate mb =
      estimate_memory(unfused.costs, unfused.layout, unfused.stages, unfused.microbatches, unfused.cluster, cal);
  const double head_grad = 2.0 * fused.costs.head_params / 2;
  EXPECT_GT(head_grad, 5e8);
  EXPECT_NEAR(mb.worst_bytes - ma.worst_bytes, head_grad * (1.0 + cal.allocator_slack), 1.0);

  // LoRA's frozen base has no weight gradient for the hook to wait on.
  Case lora = fused;
  lora.layout.lora_rank = 8;
  Case lora_unfused = lora;
  lora_unfused.layout.grad_accum_fusion = false;
  EXPECT_DOUBLE_EQ(estimate_memory(lora.costs, lora.layout, lora.stages, lora.microbatches, lora.cluster, cal).worst_bytes,
                   estimate_memory(lora_unfused.costs, lora_unfused.layout, lora_unfused.stages,
                                   lora_unfused.microbatches, lora_unfused.cluster, cal)
                       .worst_bytes);
}

}  // namespace
}  // namespace ladle::plan
