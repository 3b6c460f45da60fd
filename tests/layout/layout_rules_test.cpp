#include "ladle/layout/layout_rules.hpp"

#include <gtest/gtest.h>

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

TEST(LayoutRules, RequiresSequenceParallelForTpWithEp) {
  EXPECT_EQ(violation("tp=2,ep=4"), "tp 2 with ep 4 needs sequence parallel (Megatron-LM asserts it for MoE)");
  EXPECT_EQ(violation("tp=1,sp=on"), "sequence parallel needs tp > 1");
}

TEST(LayoutRules, RejectsUnevenPipelineSplits) {
  EXPECT_EQ(violation("tp=1,pp=8,ep=2", 16), "pp 8 with first 0 and last 0 cannot split the 12 decoder layers evenly");
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
