// The Megatron-Core release as an input (data/hw/stacks.yaml, plan/stack.hpp): how a release is
// named, what a layout may ask of it, and what the time model prices differently on an older one.
#include <gtest/gtest.h>

#include <string>

#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/report_render.hpp"
#include "ladle/plan/stack.hpp"
#include "ladle/util/error.hpp"
#include "support/measurement_support.hpp"

namespace ladle::plan {
namespace {

TEST(Stack, ReleasesAreFoundByTheirVersionInAnySpelling) {
  for (const char* text : {"0.16", "0.16.1", "v0.16.0", "core_v0.16.0", "core_r0.16.0",
                           "commit 1dcf0daf (megatron-core 0.16.0rc0) with local patches"}) {
    const StackGeneration* s = find_stack(text);
    ASSERT_NE(s, nullptr) << text;
    EXPECT_EQ(s->name, "0.16") << text;
  }
  EXPECT_EQ(find_stack("0.9"), nullptr);  // not in the table
  EXPECT_EQ(find_stack("main"), nullptr);
  EXPECT_EQ(find_stack(""), nullptr);
}

TEST(Stack, TheNewestIsTheDefault) {
  const StackChoice none = choose_stack("");
  EXPECT_EQ(none.generation, &newest_stack());
  EXPECT_EQ(none.origin, "the newest (default)");
  for (const StackGeneration& s : stack_generations()) {
    EXPECT_TRUE(s.major < newest_stack().major ||
                (s.major == newest_stack().major && s.minor <= newest_stack().minor))
        << s.name;
  }
  // A recipe's text picks its release; the flag wins over it.
  EXPECT_EQ(choose_stack("", "radixark/Megatron-LM commit 37f91617 (megatron-core 0.16.0rc0)").generation->name, "0.16");
  EXPECT_EQ(choose_stack("0.13", "megatron-core 0.16.0").generation->name, "0.13");
  EXPECT_EQ(choose_stack("0.13", "megatron-core 0.16.0").origin, "--stack");
  EXPECT_EQ(choose_stack("", "a fork at some commit").generation, &newest_stack());
}

TEST(Stack, AnUnknownReleaseIsOneLineListingTheKnownOnes) {
  try {
    choose_stack("0.9");
    FAIL() << "0.9 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    const std::string message = e.message();
    EXPECT_EQ(message.find('\n'), std::string::npos);
    for (const StackGeneration& s : stack_generations()) EXPECT_NE(message.find(s.name), std::string::npos) << s.name;
  }
}

TEST(Stack, FeaturesComeWithTheirRelease) {
  // Release tags where each argument first appears (stacks.yaml's sources).
  EXPECT_FALSE(require_stack("0.10").has("permute_fusion"));
  EXPECT_TRUE(require_stack("0.11").has("permute_fusion"));
  EXPECT_FALSE(require_stack("0.11").has("flex_dispatcher"));
  EXPECT_TRUE(require_stack("0.12").has("flex_dispatcher"));
  EXPECT_FALSE(require_stack("0.13").has("router_fusion"));
  EXPECT_TRUE(require_stack("0.14").has("router_fusion"));
  EXPECT_FALSE(require_stack("0.15").has("hybridep"));
  EXPECT_TRUE(require_stack("0.16").has("hybridep"));
  EXPECT_FALSE(require_stack("0.17").has("paged_stash"));
  EXPECT_TRUE(require_stack("0.18").has("paged_stash"));
  for (const StackFeature& f : stack_features()) {
    EXPECT_TRUE(newest_stack().has(f.key)) << f.key;
    EXPECT_FALSE(f.source.empty()) << f.key;
  }
}

TEST(Stack, ALayoutAskingForWhatItsReleaseLacksIsRefused) {
  Layout l;
  l.dispatcher = MoeDispatcher::flex;
  const auto v = stack_violation(l, require_stack("0.11"));
  ASSERT_TRUE(v.has_value());
  EXPECT_NE(v->find("--moe-token-dispatcher-type flex"), std::string::npos) << *v;
  EXPECT_NE(v->find("0.12"), std::string::npos) << *v;
  EXPECT_FALSE(stack_violation(l, require_stack("0.12")).has_value());
  l.flex_backend = FlexBackend::hybridep;
  EXPECT_TRUE(stack_violation(l, require_stack("0.15")).has_value());
  EXPECT_FALSE(stack_violation(l, require_stack("0.16")).has_value());
  Layout stash;
  stash.paged_stash = true;
  EXPECT_TRUE(stack_violation(stash, require_stack("0.17")).has_value());
  EXPECT_FALSE(stack_violation(stash, newest_stack()).has_value());
}

TEST(Stack, ApplyStackSaysWhereTheReleaseCameFrom) {
  Measurement m = test::run_of("qwen3-30b-a3b", "h100", 8, "tp=1,ep=8,dispatcher=flex");
  std::vector<ValueSource> sources;
  apply_stack(m, "0.14", sources);
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_EQ(sources[0].name, "stack");
  EXPECT_EQ(sources[0].value, "Megatron-Core 0.14 (core_v0.14.0)");
  EXPECT_EQ(sources[0].source.rfind("--stack", 0), 0u) << sources[0].source;
  EXPECT_EQ(m.workload.stack_generation, &require_stack("0.14"));
  sources.clear();
  EXPECT_THROW(apply_stack(m, "0.11", sources), Error);  // flex is not in 0.11
}

// The router's kernels follow the job's --moe-router-fusion (off by default in Megatron-LM), not
// the release: 72 without it, 31 with it; the flex dispatcher's published 17 router-and-preprocess
// kernels come with the fusion, and without it launch the 72 - 31 it removes as well. Where the
// host binds (short rows, a slow host), the unfused router is slower on either dispatcher; a
// release before 0.14 refuses the flag.
TEST(Stack, TheUnfusedRouterLaunchesOnTheHost) {
  Calibration host_bound = default_calibration();
  host_bound.host_launch_s = 1e-4;
  for (const char* dispatcher : {"flex", "alltoall"}) {
    const std::string spec = std::string("tp=1,ep=8,dispatcher=") + dispatcher;
    Measurement m = test::run_of("qwen3-30b-a3b", "h100", 8, spec, 128, 1024);
    const double unfused = predict_tokens_per_s(m, host_bound);
    m.layout.router_fusion = true;
    const double fused = predict_tokens_per_s(m, host_bound);
    EXPECT_LT(unfused, fused * 0.99) << dispatcher << ": " << unfused << " vs " << fused;
    // Off the host-bound regime the fusion changes nothing the GPU does.
    Measurement long_rows = test::run_of("qwen3-30b-a3b", "h100", 8, spec, 128, 8192);
    const double long_unfused = predict_tokens_per_s(long_rows, default_calibration());
    long_rows.layout.router_fusion = true;
    EXPECT_DOUBLE_EQ(long_unfused, predict_tokens_per_s(long_rows, default_calibration())) << dispatcher;
  }
  Layout l;
  l.router_fusion = true;
  const auto v = stack_violation(l, require_stack("0.13"));
  ASSERT_TRUE(v.has_value());
  EXPECT_NE(v->find("--moe-router-fusion"), std::string::npos) << *v;
  EXPECT_FALSE(stack_violation(l, require_stack("0.14")).has_value());
}

// A host-bound layer runs at its host's pace: on a Grace host (GB200) the same operations take
// gpus.yaml's host_op_ratio times an x86 host's, so the step is slower than with an x86 host's
// cost; off the host-bound regime the host does not matter.
TEST(Stack, AGraceHostIssuesEachOperationMoreSlowly) {
  Calibration host_bound = default_calibration();
  host_bound.host_launch_s = 1e-4;
  Measurement m = test::run_of("qwen3-30b-a3b", "gb200", 8, "tp=1,ep=8,dispatcher=flex", 128, 1024);
  ASSERT_GT(m.cluster.gpu.host_op_ratio, 2);
  const double grace = predict_tokens_per_s(m, host_bound);
  m.cluster.gpu.host_op_ratio = 1;
  const double x86 = predict_tokens_per_s(m, host_bound);
  EXPECT_LT(grace, x86 * 0.9) << grace << " vs " << x86;
  Measurement long_rows = test::run_of("llama-3.1-70b", "gb200", 8, "tp=1", 128, 8192);
  const double long_grace = predict_tokens_per_s(long_rows, default_calibration());
  long_rows.cluster.gpu.host_op_ratio = 1;
  EXPECT_DOUBLE_EQ(long_grace, predict_tokens_per_s(long_rows, default_calibration()));
}


// Each release runs the Transformer Engine its lock file names, and a Transformer Engine module
// call costs the host 2.69 times PyTorch's own before 2.11 (TransformerEngine #2053) and the same
// from 2.11 on (#2126): the table's rows, not a fitted figure.
TEST(Stack, TransformerEngineHostRatioFollowsTheRelease) {
  EXPECT_DOUBLE_EQ(*transformer_engine_host_ratio("2.9"), 2.69);
  EXPECT_DOUBLE_EQ(*transformer_engine_host_ratio("2.10.0"), 2.69);
  EXPECT_DOUBLE_EQ(*transformer_engine_host_ratio("2.11"), 1.0);
  EXPECT_DOUBLE_EQ(*transformer_engine_host_ratio("2.12.0+5671fd36"), 1.0);
  EXPECT_FALSE(transformer_engine_host_ratio("0.9").has_value());  // before the table's first row
  EXPECT_FALSE(transformer_engine_host_ratio("latest").has_value());
  EXPECT_EQ(require_stack("0.15").transformer_engine, "2.9.0");
  EXPECT_DOUBLE_EQ(require_stack("0.15").te_module_host_ratio, 2.69);
  EXPECT_EQ(require_stack("0.16").transformer_engine, "2.12.0");
  EXPECT_DOUBLE_EQ(require_stack("0.16").te_module_host_ratio, 1.0);
  EXPECT_DOUBLE_EQ(newest_stack().te_module_host_ratio, 1.0);
}

// Where the host binds (a Grace host, short rows, no CUDA graphs), a release on Transformer Engine
// before 2.11 is slower than one after; a measurement's stated Transformer Engine release
// overrides its stack's. Off the host-bound regime the release does not matter.
TEST(Stack, AnOlderTransformerEngineCostsTheHostMore) {
  Measurement m = test::run_of("qwen3-30b-a3b", "gb200", 8, "tp=1,ep=8,dispatcher=flex", 128, 1024);
  m.workload.stack_generation = &require_stack("0.16");
  const double te_2_12 = predict_tokens_per_s(m, default_calibration());
  m.workload.stack_generation = &require_stack("0.15");
  const double te_2_9 = predict_tokens_per_s(m, default_calibration());
  EXPECT_LT(te_2_9, te_2_12 * 0.9) << te_2_9 << " vs " << te_2_12;
  m.workload.te_module_host_ratio = 1.0;  // the source states a Transformer Engine from 2.11 on
  EXPECT_DOUBLE_EQ(predict_tokens_per_s(m, default_calibration()), te_2_12);
  Measurement long_rows = test::run_of("llama-3.1-70b", "h100", 8, "tp=8", 128, 8192);
  long_rows.workload.stack_generation = &require_stack("0.15");
  const double old_te = predict_tokens_per_s(long_rows, default_calibration());
  long_rows.workload.stack_generation = &require_stack("0.16");
  EXPECT_DOUBLE_EQ(old_te, predict_tokens_per_s(long_rows, default_calibration()));
}

// Transformer Engine's grouped linear issues one GEMM per local expert: with half the expert
// parallelism each GPU holds twice the experts and its host issues twice the expert GEMMs, so a
// host-bound MoE layer slows down although its GPU work per token is the same.
TEST(Stack, TheGroupedLinearIssuesOneGemmPerLocalExpert) {
  Calibration host_bound = default_calibration();
  host_bound.host_launch_s = 1e-4;
  const auto host_part = [&](const std::string& spec) {
    const Measurement m = test::run_of("qwen3-30b-a3b", "gb200", 8, spec, 128, 1024);
    const TimeEstimate t =
        estimate_time(m.costs, m.layout, layout::stage_layers(m.layout, m.model.num_layers),
                      layout::microbatches_per_step(m.layout, m.context()), m.cluster, m.workload, host_bound);
    return t.parts[static_cast<size_t>(TimePart::host_launches)];
  };
  const double ep8 = host_part("tp=1,ep=8,dispatcher=flex");  // 16 local experts
  const double ep4 = host_part("tp=1,ep=4,dispatcher=flex");  // 32
  EXPECT_GT(ep8, 0);
  EXPECT_GT(ep4, ep8 * 1.25) << ep4 << " vs " << ep8;
}

}  // namespace
}  // namespace ladle::plan
