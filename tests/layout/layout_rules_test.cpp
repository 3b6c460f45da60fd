#include "ladle/layout/layout_rules.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "ladle/layout/layout_spec.hpp"
#include "support/test_support.hpp"

namespace ladle::layout {
namespace {

// A small MoE model written by hand, so the rules are tested without the catalog.
ModelSpec tiny_moe() {
  ModelSpec m;
  m.name = "tiny-moe";
  m.num_layers = 12;
  m.hidden_size = 1024;
  m.vocab_size = 32000;
  m.num_heads = 16;
  m.num_kv_heads = 4;
  m.head_dim = 64;
  m.num_experts = 16;
  m.experts_per_token = 2;
  m.moe_intermediate_size = 512;
  m.intermediate_size = 2048;
  m.mlp.assign(12, MlpKind::moe);
  return m;
}

std::optional<std::string> violation(const std::string& spec, int64_t gpus = 16) {
  const LayoutContext context{gpus, 8, 4096, 64};
  return find_layout_violation(resolve_layout(parse_layout_spec(spec), context), tiny_moe(), context);
}

TEST(LayoutRules, AcceptsAValidLayout) {
  EXPECT_EQ(violation("tp=2,pp=2,ep=4,sp=on"), std::nullopt);
  EXPECT_EQ(violation("tp=1,ep=16"), std::nullopt);
}

TEST(LayoutRules, DerivesDataParallelAndMaxTokens) {
  const LayoutContext context{16, 8, 4096, 64};
  const Layout l = resolve_layout(parse_layout_spec("tp=2,pp=2,cp=2,rows_per_mb=2"), context);
  EXPECT_EQ(l.dp, 2);
  EXPECT_EQ(l.max_tokens, 4096);
  EXPECT_LADLE_ERROR(resolve_layout(parse_layout_spec("tp=3"), context), usage, "tp*pp*cp = 3 does not divide the 16 GPUs");
}

TEST(LayoutRules, RejectsTpThatDoesNotDivideHeads) {
  EXPECT_EQ(violation("tp=8,ep=1,sp=on"), "tp 8 does not divide the 4 key/value heads");
}

TEST(LayoutRules, RejectsTpBeyondANode) {
  EXPECT_EQ(violation("tp=16,sp=on"), "tp 16 must divide the 8 GPUs of a node (tensor parallel stays inside NVLink)");
}

TEST(LayoutRules, RejectsExpertsThatDoNotSplit) {
  EXPECT_EQ(violation("tp=1,ep=3", 12), "ep 3 does not divide the 16 routed experts");
  EXPECT_EQ(violation("tp=1,pp=4,ep=16"), "ep*etp = 16 does not divide tp*cp*dp = 4 (expert data parallel must be whole)");
}

TEST(LayoutRules, RequiresSequenceParallelForMoeWithTp) {
  const std::string reason =
      "tp 2 on a MoE model needs sequence parallel (Megatron-LM: \"During training, performance may degrade if MoE "
      "and tensor parallelism are enabled without also enabling sequence parallelism\")";
  EXPECT_EQ(violation("tp=2,ep=4"), reason);
  // MoELayer.forward raises whatever the expert parallel size.
  EXPECT_EQ(violation("tp=2,ep=1"), reason);
  EXPECT_EQ(violation("tp=2,ep=1,sp=on"), std::nullopt);
  EXPECT_EQ(violation("tp=1,sp=on"), "sequence parallel needs tp > 1");
}

TEST(LayoutRules, RejectsUnevenPipelineSplits) {
  // The error suggests a split that works.
  EXPECT_EQ(violation("tp=1,pp=8,ep=2", 16), "pp 8 does not divide the 12 decoder layers; give an uneven split such as "
                                             "first=3,last=3");
  EXPECT_EQ(violation("tp=1,pp=8,first=2,last=2,ep=2", 16),
            "pp 8 with first 2 and last 2 cannot split the 12 decoder layers evenly");
  EXPECT_EQ(violation("tp=1,pp=8,first=3,last=3,ep=2", 16), std::nullopt);
  EXPECT_EQ(stage_layers(parse_layout_spec("pp=4,first=2,last=4"), 12), (std::vector<int64_t>{2, 3, 3, 4}));
}

TEST(LayoutRules, RejectsOffloadWithoutPrecisionAwareOptimizer) {
  EXPECT_EQ(violation("offload=1"), "optimizer offload needs the precision-aware optimizer (Megatron-LM asserts it)");
  EXPECT_EQ(violation("overlap=on"), "overlap needs optimizer offload > 0");
}

TEST(LayoutRules, RejectsMicrobatchesThatDisagreeWithMaxTokens) {
  EXPECT_EQ(violation("rows_per_mb=2,max_tokens=4096"),
            "rows_per_mb 2 disagrees with max_tokens 4096: dynamic batching packs 1 row(s)");
  EXPECT_EQ(violation("max_tokens=1000"), "max_tokens 1000 holds no 4096-token row (cp 1)");
}

TEST(LayoutRules, RejectsBatchThatDoesNotSplit) {
  EXPECT_EQ(violation("tp=1,dp=3,ep=1", 3), "dp 3 does not divide the global batch of 64 rows");
}

TEST(LayoutRules, CountsMicrobatches) {
  const LayoutContext context{16, 8, 4096, 64};
  EXPECT_EQ(microbatches_per_step(resolve_layout(parse_layout_spec("tp=2,pp=2,rows_per_mb=2"), context), context), 8);
}

}  // namespace
}  // namespace ladle::layout

namespace ladle::layout {
namespace {

TEST(LayoutRules, SplitsVirtualStagesAsMegatronLm) {
  // 12 layers, pp 2, vpp 3: rank 0 holds chunks 0, 2, 4 of two layers each.
  EXPECT_EQ(virtual_stage_layers(parse_layout_spec("pp=2,vpp=3"), 12), (std::vector<int64_t>{2, 2, 2, 2, 2, 2}));
  // The embedding and loss counted as layers: 12 + 2 = 14 on pp 2 is 7 a rank, less one at each end.
  EXPECT_EQ(stage_layers(parse_layout_spec("pp=2,account_embedding=on,account_loss=on"), 12),
            (std::vector<int64_t>{6, 6}));
  EXPECT_EQ(stage_layers(parse_layout_spec("pp=2,account_embedding=on"), 12), std::vector<int64_t>{});
  // Uneven first and last stages with vpp: each rank's layers split over its chunks.
  EXPECT_EQ(virtual_stage_layers(parse_layout_spec("pp=3,vpp=2,first=2,last=4"), 12),
            (std::vector<int64_t>{1, 3, 2, 1, 3, 2}));
  // A pipeline layout string: stage order is virtual-stage major.
  EXPECT_EQ(stage_layers(parse_layout_spec("pp=2,vpp=2,pipeline_layout=Et*2|t*4|t*4|t*2L"), 12),
            (std::vector<int64_t>{6, 6}));
}

TEST(LayoutRules, ChecksPipelineLayoutStrings) {
  EXPECT_EQ(violation("tp=1,ep=2,pp=2,vpp=2,pipeline_layout=Et*2|t*4|t*4|t*2L"), std::nullopt);
  EXPECT_EQ(violation("tp=1,ep=2,pp=2,vpp=2,pipeline_layout=Et*2|t*4|t*4|t*3L"),
            "the pipeline layout holds 13 decoder layers (t), but tiny-moe has 12");
  EXPECT_EQ(violation("tp=1,ep=2,pp=2,vpp=4,pipeline_layout=Et*2|t*4|t*4|t*2L"),
            "vpp 4 conflicts with the pipeline layout's 4 stages on pp 2 (vpp 2)");
  EXPECT_EQ(violation("tp=1,ep=2,pp=2,vpp=2,pipeline_layout=t*2|Et*4|t*4|t*2L"),
            "the pipeline layout must start with the embedding E, given exactly once");
  EXPECT_EQ(violation("tp=1,ep=2,pp=2,vpp=2,pipeline_layout=Et*2|t*4|t*4|t*2L,first=2"),
            "pipeline_model_parallel_layout cannot be set with other pipeline layout arguments (first, last, "
            "account_embedding, account_loss)");
  EXPECT_LADLE_ERROR(violation("tp=1,ep=2,pp=2,pipeline_layout=Et*|tL"), usage,
                     "layout.pipeline_layout: 'Et*|tL': expected a count after '*'");
  EXPECT_LADLE_ERROR(violation("tp=1,ep=2,pp=2,pipeline_layout=E(tt|tL"), usage, "'(' without ')'");
  EXPECT_LADLE_ERROR(violation("tp=1,ep=2,pp=2,pipeline_layout=Ex|tL"), usage, "unknown layer 'x'");
}

TEST(LayoutRules, RejectsWhatMegatronLmRejectsWithItsReason) {
  EXPECT_EQ(violation("tp=1,ep=4,a2a_overlap=on,dispatcher=allgather"),
            "overlap_moe_expert_parallel_comm is supported with alltoall/flex token dispatcher");
  EXPECT_EQ(violation("tp=1,ep=1,a2a_overlap=on"), "overlap_moe_expert_parallel_comm is only supported with expert "
                                                    "model parallelism");
  EXPECT_EQ(violation("tp=1,ep=4,a2a_overlap=on,recompute=full"),
            "disable full recomputation when enabling overlap_moe_expert_parallel_comm");
  EXPECT_EQ(violation("tp=1,ep=4,pp=2,a2a_overlap=on"),
            "If enabling EP A2A overlap, virtual_pipeline_model_parallel_size must be specified when "
            "pipeline_model_parallel_size > 1");
  EXPECT_EQ(violation("tp=1,ep=4,delay_wgrad=on"),
            "overlap_moe_expert_parallel_comm must be enabled when enabling delay_wgrad_compute");
  EXPECT_EQ(violation("tp=1,ep=4,a2a_overlap=on,delay_wgrad=on"), std::nullopt);
  EXPECT_EQ(violation("tp=1,ep=4,cuda_graph=local,recompute=full"),
            "full recompute is only supported with full iteration CUDA graph");
  EXPECT_EQ(violation("tp=1,ep=4,cuda_graph=transformer_engine,graph_modules=attn+moe_router"), std::nullopt);
  EXPECT_EQ(violation("tp=1,ep=4,cuda_graph=transformer_engine,graph_modules=moe+moe_router"),
            "cuda_graph_modules must not contain both moe and moe_router");
  EXPECT_EQ(violation("tp=1,ep=4,recompute=selective,recompute_modules=mla_up_proj"),
            "mla_up_proj in recompute_modules is only supported with multi_latent_attention");
  EXPECT_EQ(violation("tp=1,ep=4,main_grads=bf16,precision_aware=on"),
            "--main-grads-dtype can only be fp32 when --accumulate-allreduce-grads-in-fp32 is set");
  EXPECT_EQ(violation("tp=1,ep=4,cp_comm=a2a+p2p"),
            "--hierarchical-context-parallel-sizes must be set when a2a+p2p is used in cp comm");
  EXPECT_EQ(violation("tp=1,ep=4,fp8=hybrid,fp8_bf16_edges=on"),
            "Delayed scaling does not support first / last layer in BF16");
}

// Megatron-LM's recompute loop clamps to the layers a chunk holds (megatron/core/recompute.py,
// checkpointed_forward), so an empty chunk (the loss-only stage of Et*3|(tt|)*29m|L) or a chunk
// with fewer layers than --recompute-num-layers runs.
TEST(LayoutRules, AcceptsFullRecomputeOverChunksWithFewerLayers) {
  EXPECT_EQ(violation("tp=1,ep=2,pp=2,vpp=2,pipeline_layout=Et*4|t*4|t*4|L,recompute=full:uniform:1"), std::nullopt);
  EXPECT_EQ(violation("tp=1,ep=2,pp=2,vpp=2,pipeline_layout=Et*4|t*4|t*4|L,recompute=full:block:2"), std::nullopt);
  EXPECT_EQ(violation("tp=1,ep=2,pp=2,recompute=full:uniform:8"), std::nullopt);
}

TEST(LayoutRules, RejectsFp8OnAGpuWithoutIt) {
  const ModelSpec m = tiny_moe();
  LayoutContext context{16, 8, 4096, 64};
  context.gpu_fp8 = false;
  const Layout l = resolve_layout(parse_layout_spec("tp=1,ep=4,fp8=hybrid"), context);
  EXPECT_EQ(find_layout_violation(l, m, context), "FP8 (--fp8-format) needs a GPU with FP8 tensor cores");
}

TEST(LayoutRules, RejectsNvfp4OnAGpuWithoutItAndWithFp8) {
  const ModelSpec m = tiny_moe();
  LayoutContext context{16, 8, 4096, 64};
  EXPECT_EQ(violation("tp=1,ep=4,fp4=e2m1"), std::nullopt);
  EXPECT_EQ(violation("tp=1,ep=4,fp4=e2m1,fp4_param_gather=on"), std::nullopt);
  EXPECT_EQ(violation("tp=1,ep=4,fp4=e2m1,fp8=e4m3"),
            "--fp4-format and --fp8-format cannot be used simultaneously. Please choose one.");
  EXPECT_EQ(violation("tp=1,ep=4,fp4=e2m1,fp4_recipe=custom"),
            "--fp4-recipe custom runs the user's --fp4-quantizer-factory, which ladle does not price");
  context.gpu_nvfp4 = false;
  const Layout l = resolve_layout(parse_layout_spec("tp=1,ep=4,fp4=e2m1"), context);
  EXPECT_EQ(find_layout_violation(l, m, context), "--fp4-format with --fp4-recipe nvfp4 needs a Blackwell GPU");
}

// transformer_config.py __post_init__ (d98e8a64): layer-level CPU offloading, the expert-rank
// capacity factor and the paged stash, each with Megatron-LM's reason.
TEST(LayoutRules, RejectsOffloadAndPagedStashAsMegatronLmDoes) {
  EXPECT_EQ(violation("tp=1,ep=4,cpu_offload_layers=4"), std::nullopt);
  EXPECT_EQ(violation("tp=1,ep=4,cpu_offload_layers=12"), "CPU offloading can be done only for layers less than 12");
  EXPECT_EQ(violation("tp=1,ep=4,pp=2,cpu_offload_layers=2"),
            "Currently there is no support for Pipeline parallelism with CPU offloading");
  EXPECT_EQ(violation("tp=1,ep=4,cpu_offload_layers=2,recompute=selective"),
            "CPU offloading does not work when activation recomputation is enabled");
  EXPECT_EQ(violation("tp=1,ep=4,cpu_offload_layers=2,cuda_graph=transformer_engine"),
            "CUDA graphs not supported with CPU offloading.");
  EXPECT_EQ(violation("tp=1,ep=4,dispatcher=flex,flex_backend=hybridep,rank_capacity=1.5"), std::nullopt);
  EXPECT_EQ(violation("tp=1,ep=4,dispatcher=flex,flex_backend=deepep,rank_capacity=1.5"),
            "moe_expert_rank_capacity_factor requires moe_flex_dispatcher_backend to be 'hybridep' or 'ncclep'.");
  EXPECT_EQ(violation("tp=1,ep=4,dispatcher=flex,flex_backend=hybridep,rank_capacity=1.5,paged_stash=on"), std::nullopt);
  EXPECT_EQ(violation("tp=1,ep=4,paged_stash=on"),
            "moe_paged_stash requires moe_expert_rank_capacity_factor to be set; there is no need to use paged "
            "stashing without it.");
}

TEST(LayoutRules, ResolvesVppFromLayersPerVirtualStage) {
  LayoutContext context{16, 8, 4096, 64};
  context.num_layers = 12;
  EXPECT_EQ(resolve_layout(parse_layout_spec("tp=1,pp=2,vpp_layers=2"), context).vpp, 3);
  EXPECT_EQ(resolve_layout(parse_layout_spec("tp=1,pp=2,pipeline_layout=Et*2|t*4|t*4|t*2L"), context).vpp, 2);
}

TEST(LayoutRules, SuggestsASplitThatWorks) {
  // Qwen3-235B-A22B: 94 layers on pp 8 with vpp 4 fit once the embedding and loss count as layers.
  const std::string split = suggest_split(8, 4, 94);
  EXPECT_EQ(split, "account_embedding=on,account_loss=on");
  EXPECT_FALSE(virtual_stage_layers(parse_layout_spec("pp=8,vpp=4," + split), 94).empty());
  EXPECT_EQ(suggest_split(8, 1, 12), "first=3,last=3");
  EXPECT_FALSE(virtual_stage_layers(parse_layout_spec("pp=8,first=3,last=3"), 12).empty());
}

TEST(LayoutRules, ListsEverySplitMegatronLmAcceptsOnce) {
  // Qwen3-235B-A22B: 94 decoder layers on pp 8.
  const std::vector<Layout> splits = candidate_splits(parse_layout_spec("pp=8"), 94);
  ASSERT_FALSE(splits.empty());
  std::vector<std::vector<int64_t>> seen;
  for (const Layout& l : splits) {
    const std::vector<int64_t> stages = stage_layers(l, 94);
    ASSERT_EQ(stages.size(), 8u) << format_layout_spec(l);
    int64_t total = 0;
    for (int64_t n : stages) {
      EXPECT_GE(n, 1);
      total += n;
    }
    EXPECT_EQ(total, 94);
    EXPECT_TRUE(std::find(seen.begin(), seen.end(), stages) == seen.end()) << "twice: " << format_layout_spec(l);
    seen.push_back(stages);
    // Megatron-LM's middle stages split evenly.
    for (size_t r = 2; r + 1 < stages.size(); ++r) EXPECT_EQ(stages[r], stages[1]);
  }
  // The embedding and loss counted as layers: 96 / 8, the first and last stage one decoder layer short.
  EXPECT_TRUE(splits.front().account_embedding && splits.front().account_loss);
  EXPECT_EQ(stage_layers(splits.front(), 94).front(), 11);
  // 11 + 6 x 12 + 11 is that same split, so it is not listed again; 10 + 6 x 12 + 12 is new.
  EXPECT_FALSE(std::any_of(splits.begin(), splits.end(), [](const Layout& l) { return l.first == 11 && l.last == 11; }));
  EXPECT_TRUE(std::any_of(splits.begin(), splits.end(), [](const Layout& l) { return l.first == 10 && l.last == 12; }));
  EXPECT_TRUE(candidate_splits(parse_layout_spec("pp=1"), 94).empty());
}

TEST(LayoutRules, ListsSplitsWhoseStagesTheVirtualStagesDivide) {
  for (const Layout& l : candidate_splits(parse_layout_spec("pp=4,vpp=2"), 78)) {
    const std::vector<int64_t> chunks = virtual_stage_layers(l, 78);
    ASSERT_EQ(chunks.size(), 8u) << format_layout_spec(l);
    EXPECT_EQ(l.first % 2, 0);
    EXPECT_EQ(l.last % 2, 0);
  }
}

TEST(LayoutRules, WritesASplitAsMegatronArgumentsAndSpecItems) {
  const Layout uneven = parse_layout_spec("pp=8,first=11,last=11");
  EXPECT_EQ(split_arguments(uneven), "--decoder-first-pipeline-num-layers 11 --decoder-last-pipeline-num-layers 11");
  EXPECT_EQ(split_spec(uneven), "first=11,last=11");
  const Layout counted = parse_layout_spec("pp=8,account_embedding=on,account_loss=on");
  EXPECT_EQ(split_arguments(counted),
            "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split");
  EXPECT_EQ(split_spec(counted), "account_embedding=on,account_loss=on");
  EXPECT_EQ(split_arguments(parse_layout_spec("pp=8")), "");
  EXPECT_TRUE(has_split(uneven));
  EXPECT_FALSE(has_split(parse_layout_spec("pp=8,vpp=2")));
}

}  // namespace
}  // namespace ladle::layout
