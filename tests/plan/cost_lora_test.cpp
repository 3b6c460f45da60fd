// LoRA, colocation and FP16 cost terms (plan/cost_lora, cost_colocate, cost_fp16): each term by
// hand, then how the memory and time models move with it on a catalog model. Expectations are
// computed by hand in the comments.
#include <gtest/gtest.h>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cost_colocate.hpp"
#include "ladle/plan/cost_fp16.hpp"
#include "ladle/plan/cost_lora.hpp"
#include "ladle/hw/memory_facts.hpp"
#include "ladle/plan/predictor.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// A Llama-like layer: q [4096, 4096], k and v [1024, 4096] (column parallel), o [4096, 4096]
// (row parallel), gate and up [11008, 4096], down [4096, 11008].
LayerKind dense_layer() {
  LayerKind k;
  k.gemms = {{4096, 4096, GemmSplit::tp_out, GemmModule::attention},
             {1024, 4096, GemmSplit::tp_out, GemmModule::attention},
             {1024, 4096, GemmSplit::tp_out, GemmModule::attention},
             {4096, 4096, GemmSplit::tp_in, GemmModule::attention},
             {11008, 4096, GemmSplit::tp_out, GemmModule::dense_mlp},
             {11008, 4096, GemmSplit::tp_out, GemmModule::dense_mlp},
             {4096, 11008, GemmSplit::tp_in, GemmModule::dense_mlp},
             {16, 4096, GemmSplit::replicated, GemmModule::router}};
  return k;
}

TEST(CostLora, TargetNames) {
  ModelCosts gqa;
  const uint32_t standard = bit(LoraTarget::qkv) | bit(LoraTarget::proj) | bit(LoraTarget::fc1) | bit(LoraTarget::fc2);
  EXPECT_EQ(lora_target_bits("all-linear", gqa), standard);
  EXPECT_EQ(lora_target_bits("", gqa), standard);  // Megatron-Bridge's default targets
  ModelCosts mla;
  mla.mla = true;
  EXPECT_EQ(lora_target_bits("all-linear", mla), standard | bit(LoraTarget::mla_down) | bit(LoraTarget::mla_up));
  // Hugging Face names fold into Megatron-Core's fused linears.
  EXPECT_EQ(lora_target_bits("q_proj,v_proj", gqa), bit(LoraTarget::qkv));
  EXPECT_EQ(lora_target_bits("linear_qkv, linear_fc2", gqa), bit(LoraTarget::qkv) | bit(LoraTarget::fc2));
  EXPECT_LADLE_ERROR(lora_target_bits("q_proj,lm_head", gqa), input, "unknown LoRA target module 'lm_head'");
}

// Rank 8 at TP 2, every standard target: linear_qkv 8 x (4096 + 4096 + 1024 + 1024) = 81,920;
// linear_proj 8 x (4096 + 4096) = 65,536; linear_fc1 8 x (4096 + 22,016) = 208,896; linear_fc2
// 8 x (11,008 + 4096) = 120,832; the router is no target. 477,184 / 2 = 238,592 a GPU.
TEST(CostLora, AdapterParamsByHand) {
  ModelCosts c;
  Layout l;
  l.tp = 2;
  l.lora_rank = 8;
  const LayerKind kind = dense_layer();
  EXPECT_DOUBLE_EQ(lora_layer(c, kind, l, lora_target_bits("all-linear", c)).dense_params, 238592.0);
  // linear_qkv alone: 81,920 / 2.
  EXPECT_DOUBLE_EQ(lora_layer(c, kind, l, lora_target_bits("k_proj", c)).dense_params, 40960.0);
  // Rank 0 trains no adapter.
  l.lora_rank = 0;
  EXPECT_DOUBLE_EQ(lora_layer(c, kind, l, lora_target_bits("all-linear", c)).dense_params, 0.0);
}

// Routed experts: gate and up [768, 2048] (fused fc1), down [2048, 768]; rank 4, 16 experts on
// EP 4, ETP 1. One expert: fc1 4 x (2048 + 1536) = 14,336, fc2 4 x (768 + 2048) = 11,264, 25,600;
// the rank's 4 local experts 102,400.
TEST(CostLora, ExpertAdaptersArePerExpert) {
  ModelCosts c;
  c.experts = 16;
  LayerKind kind;
  kind.moe = true;
  kind.expert_gemms = {{768, 2048, GemmSplit::expert_out}, {768, 2048, GemmSplit::expert_out},
                       {2048, 768, GemmSplit::expert_in}};
  Layout l;
  l.ep = 4;
  l.lora_rank = 4;
  const LoraLayer a = lora_layer(c, kind, l, lora_target_bits("all-linear", c));
  EXPECT_DOUBLE_EQ(a.expert_params_one, 25600.0);
  EXPECT_DOUBLE_EQ(a.expert_params, 102400.0);
  EXPECT_DOUBLE_EQ(lora_layer(c, kind, l, lora_target_bits("linear_fc2", c)).expert_params_one, 11264.0);
}

// 1,000,000 dense and 400,000 expert adapter elements, FP32 gradients, 12 bytes of optimizer
// state, nothing offloaded, 8 dense and 2 expert shards: weights 2 x 1.4M = 2.8 MB, gradients
// 4 x 1.4M = 5.6 MB, states 12 x (125,000 + 200,000) = 3.9 MB.
TEST(CostLora, MemoryAndGemmTermsByHand) {
  const LoraMemory m = lora_memory(LoraParams{1e6, 4e5}, 4, 12, 0, 8, 2);
  EXPECT_DOUBLE_EQ(m.adapter_weights, 2.8e6);
  EXPECT_DOUBLE_EQ(m.gradients, 5.6e6);
  EXPECT_DOUBLE_EQ(m.optimizer_states, 3.9e6);
  // Half offloaded: half the states.
  EXPECT_DOUBLE_EQ(lora_memory(LoraParams{1e6, 4e5}, 4, 12, 0.5, 8, 2).optimizer_states, 1.95e6);
  // A frozen layer of 1 s forward GEMMs: 2 s (forward, input gradient), plus the adapters'
  // 6 TFLOP at 1 PFLOP/s three times: 2 + 0.018 s.
  EXPECT_DOUBLE_EQ(lora_gemm_seconds(1.0, 6e12, 1e15), 2.018);
}

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

double part(const MemoryEstimate& m, MemoryPart p) { return m.worst[static_cast<size_t>(p)]; }

// Llama-3.1-8B at TP 2, DP 4, rank 16 on every linear: per layer 16 x (linear_qkv 4096 + 6144,
// linear_proj 4096 + 4096, linear_fc1 4096 + 28,672, linear_fc2 14,336 + 4096) = 16 x 69,632 =
// 1,114,112; 32 layers / TP 2 = 17,825,792 adapter elements a GPU. Gradients (FP32): 71,303,168
// bytes; states (12 bytes, sharded over DP 4): 53,477,376; weights: the frozen base plus
// 2 x 17,825,792.
TEST(CostLora, MemoryModelKeepsNoGradientOrStateForFrozenWeights) {
  Case full = setup("tp=2,pp=1,ep=1,etp=1,sp=on,recompute=full,dist_opt=on");
  Case lora = full;
  lora.layout.lora_rank = 16;
  lora.layout.lora_targets = "all-linear";
  const MemoryEstimate a = estimate_memory(full.costs, full.layout, full.stages, full.microbatches, full.cluster, Calibration{});
  const MemoryEstimate b = estimate_memory(lora.costs, lora.layout, lora.stages, lora.microbatches, lora.cluster, Calibration{});
  EXPECT_DOUBLE_EQ(part(b, MemoryPart::gradients), 71303168.0);
  EXPECT_DOUBLE_EQ(part(b, MemoryPart::optimizer_states), 53477376.0);
  EXPECT_DOUBLE_EQ(part(b, MemoryPart::weights) - part(a, MemoryPart::weights), 2 * 17825792.0);
  EXPECT_DOUBLE_EQ(part(b, MemoryPart::activations), part(a, MemoryPart::activations));
  EXPECT_LT(b.worst_bytes, a.worst_bytes);
}

// The frozen base skips its weight-gradient GEMMs: dense GEMM time goes from 3x to 2x the
// forward, plus the adapters' (16 x 69,632 / 2 elements against about 218M / 2 a layer, 0.5%,
// three passes): about 2/3 + 0.8% of the full fine-tune's. Only the adapters are reduced over DP
// and updated, so the optimizer's share falls by the parameters' ratio (~1/450).
TEST(CostLora, TimeModelDropsWeightGradients) {
  Case full = setup("tp=2,pp=1,ep=1,etp=1,sp=on,recompute=none,dist_opt=on");
  Case lora = full;
  lora.layout.lora_rank = 16;
  const Workload w{4096, 64};
  const TimeEstimate a = estimate_time(full.costs, full.layout, full.stages, full.microbatches, full.cluster, w, Calibration{});
  const TimeEstimate b = estimate_time(lora.costs, lora.layout, lora.stages, lora.microbatches, lora.cluster, w, Calibration{});
  const double ratio = b.parts[static_cast<size_t>(TimePart::dense_gemm)] / a.parts[static_cast<size_t>(TimePart::dense_gemm)];
  EXPECT_GT(ratio, 2.0 / 3.0);
  EXPECT_LT(ratio, 2.0 / 3.0 + 0.02);
  EXPECT_LT(b.optimizer_shard_params * 100, a.optimizer_shard_params);
  EXPECT_DOUBLE_EQ(b.optimizer_shard_params, 17825792.0 / 4);
  EXPECT_LT(b.step_s, a.step_s);
}

// A colocated engine keeps its process's CUDA context (memory_facts.yaml: 512 MiB) on every
// training GPU: exactly that much less for training.
TEST(CostColocate, EngineContextLowersUsableMemory) {
  Case alone = setup("tp=2,pp=1,ep=1,etp=1,sp=on,recompute=full,dist_opt=on");
  Case shared = alone;
  shared.layout.colocate = true;
  EXPECT_DOUBLE_EQ(colocated_engine_bytes(shared.layout, hw::memory_facts()), 512 * kMiB);
  EXPECT_DOUBLE_EQ(colocated_engine_bytes(alone.layout, hw::memory_facts()), 0.0);
  const MemoryEstimate a = estimate_memory(alone.costs, alone.layout, alone.stages, alone.microbatches, alone.cluster, Calibration{});
  const MemoryEstimate b = estimate_memory(shared.costs, shared.layout, shared.stages, shared.microbatches, shared.cluster, Calibration{});
  EXPECT_DOUBLE_EQ(b.worst_bytes - a.worst_bytes, 512 * kMiB);
  // The rollout phase at fraction 0.7 of 140 GiB: 98 GiB, two contexts (1 GiB) and the default
  // 512 MiB bucket: 99.5 GiB; no fraction given: SGLang's own choice, not priced.
  Layout l;
  l.colocate = true;
  l.sglang_mem_fraction = 0.7;
  EXPECT_DOUBLE_EQ(colocated_rollout_bytes(l, 140 * 1024 * kMiB, hw::memory_facts()), (98 * 1024 + 1024 + 512) * kMiB);
  l.sglang_mem_fraction = 0;
  EXPECT_DOUBLE_EQ(colocated_rollout_bytes(l, 140 * 1024 * kMiB, hw::memory_facts()), 0.0);
}

// FP16's grad scaler reads and writes the FP32 main gradients of the rank's shard once a step:
// 1e9 of them at 4 TB/s take 8e9 / 4e12 = 2 ms. The step grows by exactly that term.
TEST(CostFp16, UnscalePassOncePerStep) {
  EXPECT_DOUBLE_EQ(fp16_unscale_seconds(true, 1e9, 4e12), 0.002);
  EXPECT_DOUBLE_EQ(fp16_unscale_seconds(false, 1e9, 4e12), 0.0);
  Case bf16 = setup("tp=2,pp=1,ep=1,etp=1,sp=on,recompute=none,dist_opt=on");
  Case fp16 = bf16;
  fp16.layout.fp16 = true;
  const Workload w{4096, 64};
  const Calibration cal;
  const TimeEstimate a = estimate_time(bf16.costs, bf16.layout, bf16.stages, bf16.microbatches, bf16.cluster, w, cal);
  const TimeEstimate b = estimate_time(fp16.costs, fp16.layout, fp16.stages, fp16.microbatches, fp16.cluster, w, cal);
  const double expected =
      8 * a.optimizer_shard_params / (bf16.cluster.gpu.hbm_tb_per_s * 1e12 * cal.hbm_efficiency);
  EXPECT_GT(expected, 0.0);
  EXPECT_NEAR(b.step_s - a.step_s, expected, 1e-12);
  // FP16 weights take BF16's bytes: memory does not move.
  EXPECT_DOUBLE_EQ(estimate_memory(fp16.costs, fp16.layout, fp16.stages, fp16.microbatches, fp16.cluster, cal).worst_bytes,
                   estimate_memory(bf16.costs, bf16.layout, bf16.stages, bf16.microbatches, bf16.cluster, cal).worst_bytes);
}

}  // namespace
}  // namespace ladle::plan
