#include <gtest/gtest.h>

#include <tuple>

#include "ladle/hw/hw_facts.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/time_attention.hpp"
#include "ladle/plan/time_ep.hpp"
#include "ladle/plan/time_rates.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

struct Timed {
  TimeEstimate time;
  Layout layout;
};

Timed time_of(const std::string& model_name, int64_t gpus, const std::string& spec, const Calibration& cal = Calibration{},
              const std::string& gpu = "h200", Precision precision = Precision::bf16) {
  const ModelSpec model = model::load_model(model_name);
  const ModelCosts costs = model_costs(model, 8192);
  const Cluster cluster = make_cluster(gpu, gpus);
  const layout::LayoutContext context{gpus, 8, 8192, 128};
  const Layout l = layout::resolve_layout(layout::parse_layout_spec(spec), context);
  EXPECT_EQ(layout::find_layout_violation(l, model, context), std::nullopt) << spec;
  return {estimate_time(costs, l, layout::stage_layers(l, model.num_layers), layout::microbatches_per_step(l, context),
                        cluster, Workload{8192, 128, precision}, cal),
          l};
}

double part(const TimeEstimate& t, TimePart p) { return t.parts[static_cast<size_t>(p)]; }

TEST(TimeModel, Nvfp4GemmsRunAtTheirMeasuredRateAndTheRecipesQuantizeApart) {
  // On B200 (FP4 9,000 and FP8 4,500 dense TFLOP/s, gpus.yaml) NVFP4's decoder GEMMs run at their
  // measured rate, 1.43 times FP8's (kernels.yaml), not the peaks' 2 times; the output layer stays
  // BF16, so the dense GEMMs take between half and 0.9 of the FP8 time. The recipes' quantisation
  // bytes per element differ (delayed 5, MXFP8 5.0625 with its E8M0 scales, NVFP4 5.6875 with its
  // amax pass, current scaling 7 with its), so the elementwise parts order the same way.
  const std::string spec = "tp=1";
  const Calibration cal;
  const TimeEstimate fp8 = time_of("llama-3.1-8b", 8, spec + ",fp8=e4m3", cal, "b200", Precision::fp8).time;
  const TimeEstimate current =
      time_of("llama-3.1-8b", 8, spec + ",fp8=e4m3,fp8_recipe=tensorwise", cal, "b200", Precision::fp8).time;
  const TimeEstimate mx = time_of("llama-3.1-8b", 8, spec + ",fp8=e4m3,fp8_recipe=mxfp8", cal, "b200", Precision::fp8).time;
  const TimeEstimate fp4 = time_of("llama-3.1-8b", 8, spec + ",fp4=e2m1", cal, "b200").time;
  EXPECT_LT(part(fp4, TimePart::dense_gemm), 0.9 * part(fp8, TimePart::dense_gemm));
  EXPECT_GT(part(fp4, TimePart::dense_gemm), 0.5 * part(fp8, TimePart::dense_gemm));
  EXPECT_LT(fp4.step_s, fp8.step_s);
  EXPECT_GT(part(current, TimePart::elementwise), part(fp8, TimePart::elementwise));
  EXPECT_GT(part(mx, TimePart::elementwise), part(fp8, TimePart::elementwise));
  EXPECT_LT(part(mx, TimePart::elementwise), part(fp4, TimePart::elementwise));
  EXPECT_GT(part(fp4, TimePart::elementwise), part(fp8, TimePart::elementwise));
  EXPECT_LT(part(fp4, TimePart::elementwise), part(current, TimePart::elementwise));
  // MXFP8 runs on the block-scaled tensor cores at their measured rate, 0.94 of per-tensor FP8's on
  // a B200 (kernels.yaml fp8_block); delayed and current scaling share the per-tensor rate.
  EXPECT_NEAR(part(mx, TimePart::dense_gemm) / part(fp8, TimePart::dense_gemm), 0.763 / 0.714,
              0.02);
  EXPECT_EQ(part(current, TimePart::dense_gemm), part(fp8, TimePart::dense_gemm));
}

TEST(TimeModel, BlockwiseFp8OnHopperTakesThePerTensorRate) {
  // No block-scaled MMA on Hopper and no single measured rate for its blockwise kernels
  // (kernels.yaml): the blockwise recipe's GEMMs run at the FP8 MAMF there.
  const TimeEstimate fp8 =
      time_of("llama-3.1-8b", 8, "tp=1,fp8=e4m3", Calibration{}, "h200", Precision::fp8).time;
  const TimeEstimate block = time_of("llama-3.1-8b", 8, "tp=1,fp8=e4m3,fp8_recipe=blockwise",
                                     Calibration{}, "h200", Precision::fp8)
                                 .time;
  EXPECT_EQ(part(block, TimePart::dense_gemm), part(fp8, TimePart::dense_gemm));
}

TEST(TimeModel, Fp8AttentionRunsAtFlashAttention3sFp8Rate) {
  // FlashAttention-3: 740 of 989 BF16 TFLOP/s, close to 1,200 of 1,979 FP8 on H100.
  const TimeEstimate off = time_of("llama-3.1-8b", 8, "tp=1,fp8=e4m3", Calibration{}, "h200", Precision::fp8).time;
  const TimeEstimate on = time_of("llama-3.1-8b", 8, "tp=1,fp8=e4m3,fp8_dpa=on", Calibration{}, "h200", Precision::fp8).time;
  EXPECT_LT(part(on, TimePart::attention), 0.7 * part(off, TimePart::attention));
}

// gpt-oss's heads of 64 do the same FLOPs as heads of 128 at cuDNN's measured 379 of 529 TFLOP/s
// (kernels.yaml head_dim_tflops), forward and backward; torchtitan's FlashAttention-2 at 295 of 333.
TEST(TimeModel, NarrowHeadsRunAtTheirKernelsMeasuredRate) {
  const ModelSpec model = model::load_model("gpt-oss-20b");
  const ModelCosts narrow = model_costs(model, 8192);
  ModelCosts wide = narrow;  // the same FLOPs priced as heads of 128
  for (LayerKind& kind : wide.kinds) {
    ASSERT_EQ(kind.head_dim, 64);
    kind.head_dim = kind.v_head_dim = 128;
  }
  const Cluster cluster = make_cluster("h200", 8);
  const layout::LayoutContext context{8, 8, 8192, 128};
  const Layout l = layout::resolve_layout(layout::parse_layout_spec("tp=1,ep=8"), context);
  const auto attention = [&](const ModelCosts& c, Stack stack) {
    Workload w{8192, 128, Precision::bf16};
    w.stack = stack;
    const TimeEstimate t = estimate_time(c, l, layout::stage_layers(l, model.num_layers),
                                         layout::microbatches_per_step(l, context), cluster, w, Calibration{});
    return part(t, TimePart::attention);
  };
  EXPECT_NEAR(attention(narrow, Stack::megatron) / attention(wide, Stack::megatron), 529.0 / 379, 0.01);
  EXPECT_NEAR(attention(narrow, Stack::torchtitan) / attention(wide, Stack::torchtitan), 333.0 / 295, 0.01);
  const timing::HeadDimPricing heads = timing::narrowest_head_dim(narrow, Workload{8192, 128, Precision::bf16}, "h200");
  EXPECT_EQ(heads.head_dim, 64);
  EXPECT_NEAR(heads.efficiency, 379.0 / 529, 1e-12);
  EXPECT_EQ(heads.measured_on, "h100-sxm");
  EXPECT_EQ(timing::narrowest_head_dim(wide, Workload{8192, 128, Precision::bf16}, "h200").head_dim, 0);
  // AITER's kernel on an MI355X: its own 492.6 of 1173.2 at heads of 64.
  const timing::HeadDimPricing amd = timing::narrowest_head_dim(narrow, Workload{8192, 128, Precision::bf16}, "mi355x");
  EXPECT_NEAR(amd.efficiency, 492.6 / 1173.2, 1e-12);
  EXPECT_EQ(amd.measured_on, "mi355x");
}

// A measured window (kernels.yaml window_attention) prices forward and backward at their own
// ratios to the causal rate: on a GB200, 166 / 1,646 forward and 189 / 1,344 backward, so a
// windowed layer takes (1 / rf + 2.5 / rb) / 3.5 times what its FLOPs cost at heads of 128
// causal; the H100, with no row, keeps the tile count and the head-size ratio.
TEST(TimeModel, AMeasuredWindowPricesEachPassAtItsRatio) {
  const ModelSpec model = model::load_model("gpt-oss-20b");
  ModelCosts windowed = model_costs(model, 8192);
  ModelCosts causal = windowed;  // the same FLOPs at the reference shape
  for (LayerKind& kind : windowed.kinds) kind.window = 128;
  for (LayerKind& kind : causal.kinds) {
    kind.window = 0;
    kind.head_dim = kind.v_head_dim = 128;
  }
  const layout::LayoutContext context{8, 8, 8192, 128};
  const auto attention = [&](const ModelCosts& c, const std::string& gpu, const std::string& spec) {
    const Layout l = layout::resolve_layout(layout::parse_layout_spec(spec), context);
    const Precision precision = l.fp8_dpa ? Precision::fp8 : Precision::bf16;
    const TimeEstimate t = estimate_time(c, l, layout::stage_layers(l, model.num_layers),
                                         layout::microbatches_per_step(l, context), make_cluster(gpu, 8),
                                         Workload{8192, 128, precision}, Calibration{});
    return part(t, TimePart::attention);
  };
  // Each layer's two kernels cost their launch whatever the FLOPs: taken off both.
  ModelCosts launches = windowed;
  for (LayerKind& kind : launches.kinds) kind.attention_flops = 0;
  const auto ratio = [&](const std::string& gpu, const std::string& spec = "tp=1,ep=8") {
    const double o = attention(launches, gpu, spec);
    return (attention(windowed, gpu, spec) - o) / (attention(causal, gpu, spec) - o);
  };
  const double rf = 166.0 / 1646, rb = 189.0 / 1344;
  EXPECT_NEAR(ratio("gb200"), (1 / rf + 2.5 / rb) / 3.5, 1e-6);
  // No row on the H100, nor for FP8 attention (the rows are BF16): two key tiles visited for one
  // of band, at heads of 64.
  EXPECT_NEAR(ratio("h100"), 2 * 529.0 / 379, 1e-6);
  EXPECT_NEAR(ratio("gb200", "tp=1,ep=8,fp8=e4m3,fp8_dpa=on"), 2 * 529.0 / 379, 1e-6);
}

// A context-parallel rank's attention calls attend over its share of the row: CP 2 over rows of
// 8,192 prices the same tokens' attention at cuDNN's measured rates at 4,096 (kernels.yaml
// attention_length), each pass at its own ratio; FlashAttention-2 (torchtitan) is not measured by
// length and keeps its rate.
TEST(TimeModel, AttentionRunsAtTheRateOfTheLengthEachCallAttendsOver) {
  const ModelSpec model = model::load_model("llama-3.1-8b");
  const ModelCosts costs = model_costs(model, 8192);
  ModelCosts launches = costs;  // each layer's two kernels cost their launch whatever the FLOPs
  for (LayerKind& kind : launches.kinds) kind.attention_flops = 0;
  const layout::LayoutContext context{8, 8, 8192, 128};
  const auto attention = [&](const ModelCosts& c, const std::string& gpu, const std::string& spec, bool fa2) {
    const Layout l = layout::resolve_layout(layout::parse_layout_spec(spec), context);
    Workload w{8192, 128, Precision::bf16};
    w.flash_attention_2 = fa2;
    const TimeEstimate t = estimate_time(c, l, layout::stage_layers(l, model.num_layers),
                                         layout::microbatches_per_step(l, context), make_cluster(gpu, 8), w,
                                         Calibration{});
    return part(t, TimePart::attention);
  };
  // The same tokens per GPU either way: the FLOPs' seconds change by the rates alone.
  const auto ratio = [&](const std::string& gpu, bool fa2 = false) {
    return (attention(costs, gpu, "tp=1,cp=2", fa2) - attention(launches, gpu, "tp=1,cp=2", fa2)) /
           (attention(costs, gpu, "tp=1", fa2) - attention(launches, gpu, "tp=1", fa2));
  };
  const double back = 2.5;
  EXPECT_NEAR(ratio("gb200"), (1598.0 / 1335 + back * 1311.0 / 1132) / (1 + back), 1e-9);
  EXPECT_NEAR(ratio("h200"), (644.0 / 591 + back * 541.0 / 474) / (1 + back), 1e-9);
  EXPECT_NEAR(ratio("h200", true), 1.0, 1e-9);
}

// The softmax model (kernels.yaml softmax_exp, from NVIDIA's FP8 forward speedup) against cuDNN's
// own training benchmark, GB300 over GB200 in one run (NVIDIA/cudnn-frontend
// benchmark/sdpa_benchmark_training/results/llama3.1/{gb200,gb300}/llama3.1_20260724_*.csv @ e99b0d0b,
// cuDNN 9.26, BF16, causal, 8k, 64 heads of 128): forward 1,991 over 1,646 TFLOP/s (1.210),
// backward 1,448 over 1,344 (1.077), at the same BF16 peak.
TEST(TimeModel, BlackwellUltrasSoftmaxSpeedupMatchesCudnnsMeasurement) {
  const layout::LayoutContext context{8, 8, 8192, 128};
  const Layout l = layout::resolve_layout(layout::parse_layout_spec("tp=1"), context);
  const Workload w{8192, 128, Precision::bf16};
  const timing::Rates gb200 = timing::time_rates(l, make_cluster("gb200", 8), w, Calibration{});
  const timing::Rates gb300 = timing::time_rates(l, make_cluster("gb300", 8), w, Calibration{});
  EXPECT_NEAR(gb300.attention_flops / gb200.attention_flops, 1991.0 / 1646, 0.02);
  const double backward = (gb200.attention_backward / gb200.attention_flops) /
                          (gb300.attention_backward / gb300.attention_flops);
  EXPECT_NEAR(backward, 1448.0 / 1344, 0.03);
}

// The host's per-step share (the optimizer's host-side passes and the loop between steps, behind
// the gradient-norm sync) is one fitted number of seconds a step, whatever the layout, model or
// GPU count: a part of its own, added once.
TEST(TimeModel, EachStepWaitsTheFittedHostTimeOnce) {
  Calibration cal;
  for (double host : {0.0, 0.05}) {
    cal.step_host_s = host;
    for (const auto& [model, gpus, spec] : {std::tuple{"llama-3.1-8b", 8, "tp=1"}, std::tuple{"llama-3.1-8b", 64, "tp=2,cp=4"},
                                             std::tuple{"qwen3-30b-a3b", 16, "tp=1,ep=8,pp=2"}}) {
      const TimeEstimate t = time_of(model, gpus, spec, cal).time;
      EXPECT_DOUBLE_EQ(part(t, TimePart::step_host), host) << model << " " << spec;
      double sum = 0;
      for (double p : t.parts) sum += p;
      EXPECT_NEAR(t.step_s, sum, 1e-12);
    }
  }
  cal.step_host_s = 0;
  const double without = time_of("llama-3.1-8b", 8, "tp=1", cal).time.step_s;
  cal.step_host_s = 0.05;
  EXPECT_NEAR(time_of("llama-3.1-8b", 8, "tp=1", cal).time.step_s - without, 0.05, 1e-12);
}

TEST(TimeModel, AnExpertRankBudgetRunsMoeWithoutTheHostSync) {
  // paged_stash.md: a pre-sized expert-rank budget is sync-free (no per-step device query).
  Calibration cal;
  cal.moe_layer_sync_flex_s = 1e-3;
  const std::string base = "tp=1,ep=8,dispatcher=flex,flex_backend=hybridep,force_balance=on";
  const TimeEstimate sync = time_of("qwen3-30b-a3b", 8, base, cal).time;
  const TimeEstimate free = time_of("qwen3-30b-a3b", 8, base + ",rank_capacity=1.2", cal).time;
  EXPECT_LT(free.step_s, sync.step_s - 1e-3);
}

TEST(TimeModel, TheEpOverlapHidesTheTokenCountSyncAsItHidesTheComm) {
  // While the host waits for one microbatch's token counts, the other microbatch's compute is
  // already queued: --overlap-moe-expert-parallel-comm hides the same share of the sync as of the
  // all-to-all, where the compute beside them is the longer.
  const std::string base = "tp=1,ep=8,dispatcher=flex,flex_backend=hybridep,force_balance=on";
  auto sync_cost = [&](const std::string& spec) {
    Calibration with;
    with.moe_layer_sync_flex_s = 1e-4;
    Calibration without = with;
    without.moe_layer_sync_flex_s = 0;
    return part(time_of("qwen3-30b-a3b", 8, spec, with).time, TimePart::ep_comm) -
           part(time_of("qwen3-30b-a3b", 8, spec, without).time, TimePart::ep_comm);
  };
  const double exposed = sync_cost(base);
  ASSERT_GT(exposed, 0);
  EXPECT_NEAR(sync_cost(base + ",a2a_overlap=on"),
              exposed * (1 - Calibration{}.a2a_overlap_hidden_fraction), 1e-9 * exposed);
}

TEST(TimeModel, PartsSumToTheStep) {
  const TimeEstimate t = time_of("glm-5.2", 128, "tp=4,pp=4,ep=32,sp=on,first=18,last=20,recompute=selective,"
                                                 "offload=1,overlap=on,precision_aware=on").time;
  double sum = 0;
  for (double v : t.parts) sum += v;
  EXPECT_NEAR(sum, t.step_s, 1e-9);
  EXPECT_GT(part(t, TimePart::pipeline_bubble), 0);
  EXPECT_GT(part(t, TimePart::optimizer_cpu), 0);
  EXPECT_EQ(part(t, TimePart::optimizer_gpu), 0);
}

TEST(TimeModel, NoCollectivesWithoutTheParallelismThatNeedsThem) {
  const TimeEstimate t = time_of("llama-3.1-8b", 8, "tp=1").time;
  EXPECT_EQ(part(t, TimePart::tp_comm), 0);
  EXPECT_EQ(part(t, TimePart::ep_comm), 0);
  EXPECT_EQ(part(t, TimePart::pipeline_bubble), 0);
  EXPECT_EQ(part(t, TimePart::optimizer_cpu), 0);
  EXPECT_GT(part(t, TimePart::dp_comm), 0);
}

TEST(TimeModel, AllToAllLeavingTheNodeCostsMore) {
  // EP 8 stays inside a node; EP 16 sends half of each GPU's tokens over the network.
  const TimeEstimate in_node = time_of("qwen3-30b-a3b", 16, "tp=1,ep=8").time;
  const TimeEstimate across = time_of("qwen3-30b-a3b", 16, "tp=1,ep=16").time;
  EXPECT_GT(part(across, TimePart::ep_comm), 2 * part(in_node, TimePart::ep_comm));
}

TEST(TimeModel, FlexDispatcherSendsFewerCopiesAcrossNodes) {
  const TimeEstimate a2a = time_of("glm-5.2", 128, "tp=4,pp=4,ep=32,sp=on,first=18,last=20,offload=1,precision_aware=on").time;
  const TimeEstimate flex = time_of("glm-5.2", 128, "tp=4,pp=4,ep=32,sp=on,first=18,last=20,offload=1,precision_aware=on,"
                                                    "dispatcher=flex").time;
  EXPECT_LT(part(flex, TimePart::ep_comm), part(a2a, TimePart::ep_comm));
}

TEST(TimeModel, TheDsaIndexerGathersItsInputsOnEveryTpRank) {
  // Megatron-LM duplicates the DSA indexer on every TP rank: under sequence parallel it gathers
  // the hidden state and the q latent first, in each layer that owns an indexer (GLM-5.2: 21 of
  // 78; the others reuse the previous top-k).
  const ModelSpec dsa = model::load_model("glm-5.2");
  ModelSpec without = dsa;
  without.has_indexer.assign(without.has_indexer.size(), false);
  const Cluster cluster = make_cluster("h200", 128);
  const layout::LayoutContext context{128, 8, 8192, 128};
  const Layout l = layout::resolve_layout(
      layout::parse_layout_spec(
          "tp=8,pp=4,ep=32,sp=on,first=18,last=20,offload=1,precision_aware=on"),
      context);
  auto tp_comm = [&](const ModelSpec& m) {
    return part(estimate_time(model_costs(m, 8192), l, layout::stage_layers(l, m.num_layers),
                              layout::microbatches_per_step(l, context), cluster, Workload{},
                              Calibration{}),
                TimePart::tp_comm);
  };
  const double with_indexer = tp_comm(dsa);
  const double no_indexer = tp_comm(without);
  EXPECT_GT(with_indexer, 1.03 * no_indexer);
  // Two gathers (hidden 6,144 and q latent 2,048) in a fifth of the layers, against four
  // hidden-size collectives in each: well under half as much again.
  EXPECT_LT(with_indexer, 1.3 * no_indexer);
}

TEST(TimeModel, RecomputeCostsTime) {
  const TimeEstimate none = time_of("glm-4.7-flash", 8, "tp=1,ep=8").time;
  const TimeEstimate selective = time_of("glm-4.7-flash", 8, "tp=1,ep=8,recompute=selective").time;
  const TimeEstimate full = time_of("glm-4.7-flash", 8, "tp=1,ep=8,recompute=full").time;
  EXPECT_EQ(part(none, TimePart::recompute), 0);
  EXPECT_LT(part(selective, TimePart::recompute), part(full, TimePart::recompute));
  // Full recompute re-runs the forward: about a third of forward + backward compute.
  const double compute = part(none, TimePart::dense_gemm) + part(none, TimePart::expert_gemm) +
                         part(none, TimePart::attention) + part(none, TimePart::elementwise);
  EXPECT_NEAR(part(full, TimePart::recompute) / compute, 0.30, 0.05);
}

TEST(TimeModel, ReducingTokensPerExpertLowersGroupedGemmEfficiency) {
  // Same routed work per GPU, but 4x more local experts share it: the weights' traffic stays.
  const TimeEstimate few = time_of("qwen3-30b-a3b", 8, "tp=1,ep=8").time;
  const TimeEstimate many = time_of("qwen3-30b-a3b", 8, "tp=1,ep=2").time;
  EXPECT_GT(part(many, TimePart::expert_gemm), part(few, TimePart::expert_gemm));
}

TEST(TimeModel, ApplyOffloadMatchesAFreshEstimate) {
  const std::string base = "tp=2,sp=on,ep=8,precision_aware=on";
  Timed gpu = time_of("glm-4.7-flash", 8, base);
  const Timed host = time_of("glm-4.7-flash", 8, base + ",offload=0.5,overlap=on");
  apply_offload(gpu.time, 0.5, true, StateDtype::fp32, make_cluster("h200", 8), Calibration{});
  EXPECT_NEAR(gpu.time.step_s, host.time.step_s, 1e-9);
}

TEST(TimeModel, OffloadedOptimizerCopiesGoOverTheGpusOwnHostLink) {
  // Gradients down and parameters up (FP32 each way) for the offloaded shard, not overlapped:
  // PCIe on a B200, NVLink-C2C on a GB200 (collectives.yaml host_links).
  const Calibration cal;
  auto copies = [&](const char* gpu) {
    TimeEstimate t;
    t.optimizer_shard_params = 1e9;
    apply_offload(t, 1.0, false, StateDtype::fp32, make_cluster(gpu, 8), cal);
    return t.parts[static_cast<size_t>(TimePart::host_copies)];
  };
  const double c2c = hw::host_link_bytes_per_s("gb200");
  ASSERT_GT(c2c, cal.host_link_gb_per_s * 1e9);
  EXPECT_NEAR(copies("b200"), 8e9 / (cal.host_link_gb_per_s * 1e9), 1e-12);
  EXPECT_NEAR(copies("gb200"), 8e9 / c2c, 1e-12);
}

TEST(TimeModel, InterleavingShrinksTheBubble) {
  const TimeEstimate plain = time_of("llama-3.1-70b", 16, "tp=8,sp=on,pp=2").time;
  const TimeEstimate interleaved = time_of("llama-3.1-70b", 16, "tp=8,sp=on,pp=2,vpp=2").time;
  // Half the fill and drain; the extra point-to-point of the second chunk adds a little back.
  EXPECT_NEAR(part(interleaved, TimePart::pipeline_bubble) / (part(plain, TimePart::pipeline_bubble) / 2), 1.0, 0.01);
}

TEST(TimeModel, DualPipeBubbleByHand) {
  // llama-3.1-8b, pp 4, 8 layers per stage, 32 microbatches. 1F1B's slowest stage is the last
  // (its layers plus the head and loss): its time t3 sets the pace, and the fill and drain are the
  // other three stages, 3 x t_mid. Under DualPipe ranks 0 and 3 hold stages 0 and 3, ranks 1 and 2
  // stages 1 and 2; the slowest pair runs m / 2 microbatches through each of its two chunks, and
  // the bubble is (PP/2 - 1)(F&B + B - 3W) = F&B + B - 3W of one chunk (DeepSeek-V3, Table 2).
  const std::string spec = "tp=2,sp=on,pp=4,recompute=selective";
  const Timed plain = time_of("llama-3.1-8b", 32, spec);
  const Timed dual = time_of("llama-3.1-8b", 32, spec + ",schedule=dualpipe");
  const double m = 32;
  auto steady = [](const TimeEstimate& t) {
    double sum = 0;
    for (size_t i = 0; i <= static_cast<size_t>(TimePart::activation_offload); ++i)
      sum += t.parts[i];
    return sum;
  };
  const double t3 = steady(plain.time) / m;
  const double t_mid = part(plain.time, TimePart::pipeline_bubble) / 3;
  ASSERT_GT(t3, t_mid);
  EXPECT_NEAR(steady(dual.time), m / 2 * (t_mid + t3), 1e-9 * steady(dual.time));
  // One chunk (the pair's mean): F is a third of the GEMMs and the memory-bound work, 1 / 3.5 of
  // flash attention, half of each transfer; W the weight-gradient third of the GEMMs; F&B = F + B.
  const double chunk = (t_mid + t3) / 2;
  const double per_chunk = 1 / m;  // m / 2 microbatches x 2 chunks
  const double gemm =
      (part(dual.time, TimePart::dense_gemm) + part(dual.time, TimePart::expert_gemm)) * per_chunk;
  const double forward =
      (gemm + part(dual.time, TimePart::elementwise) * per_chunk) / 3 +
      part(dual.time, TimePart::attention) * per_chunk / 3.5 +
      (part(dual.time, TimePart::tp_comm) + part(dual.time, TimePart::pp_p2p)) * per_chunk / 2;
  const double backward = chunk - forward;
  const double weight = gemm / 3;
  EXPECT_NEAR(part(dual.time, TimePart::pipeline_bubble),
              (forward + backward) + backward - 3 * weight, 1e-9 * chunk);
  // Far smaller than 1F1B's three stages of fill and drain.
  EXPECT_LT(part(dual.time, TimePart::pipeline_bubble),
            part(plain.time, TimePart::pipeline_bubble) / 2);
}

TEST(TimeModel, DualPipeHidesTheAllToAllButNotTheSmsItHolds) {
  // DeepSeek-V3 report: DualPipe's F&B overlap hides the all-to-all fully (section 3.2.1) on 20 of
  // the H800's 132 SMs (section 3.2.2; DeepEP's Buffer.num_sms, memory_facts.yaml), so the compute
  // it hides behind runs on the other 112: the hidden time costs 20 / 132 of itself, and on a B200
  // (148 SMs, gpus.yaml sm_count) 20 / 148. Megatron-LM's --overlap-moe-expert-parallel-comm hides
  // the fitted share of the comm, or of the compute where that is the shorter.
  const ModelSpec model = model::load_model("deepseek-v3");
  const ModelCosts costs = model_costs(model, 4096);
  const layout::LayoutContext context{2048, 8, 4096, 15360};
  const std::string spec = "tp=1,pp=16,ep=64,dispatcher=flex";
  auto exposed = [&](const std::string& gpu, const std::string& extra, double comm, double compute) {
    const Layout l = layout::resolve_layout(layout::parse_layout_spec(spec + extra), context);
    const Workload w{4096, 15360, Precision::bf16};
    const timing::Rates r = timing::time_rates(l, make_cluster(gpu, 2048), w, Calibration{});
    const timing::KindInputs in{.c = costs, .kind = costs.kinds.back(), .l = l, .r = r, .w = w};
    return timing::ep_exposed(in, 2 * comm, compute);
  };
  const double comm = 1e-3;    // one forward's dispatch and combine
  const double ample = 1e-2;   // forward compute: three times it hides the forward and backward
  EXPECT_NEAR(exposed("h100-sxm", ",schedule=dualpipe", comm, ample), 2 * comm * 20 / 132, 1e-12);
  EXPECT_NEAR(exposed("b200", ",schedule=dualpipe", comm, ample), 2 * comm * 20 / 148, 1e-12);
  EXPECT_NEAR(exposed("h100-sxm", "", comm, ample), 2 * comm, 1e-12);
  // Too little compute to hide behind: the rest stays exposed.
  EXPECT_NEAR(exposed("h100-sxm", ",schedule=dualpipe", comm, 2e-4), 2 * comm - 6e-4 * 112 / 132, 1e-12);
  Calibration cal;
  EXPECT_NEAR(exposed("h100-sxm", ",a2a_overlap=on", comm, ample), 2 * comm * (1 - cal.a2a_overlap_hidden_fraction),
              1e-12);
  // Comm longer than the compute beside it (EP16 across two H100 nodes): the share applies to
  // the compute, not to the comm.
  EXPECT_NEAR(exposed("h100-sxm", ",a2a_overlap=on", comm, 2e-4),
              2 * comm - 6e-4 * cal.a2a_overlap_hidden_fraction, 1e-12);
}

}  // namespace
}  // namespace ladle::plan
