#include "ladle/model/flops.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "ladle/model/catalog.hpp"
#include "ladle/model/params.hpp"
#include "support/test_support.hpp"

namespace ladle::model {
namespace {

// The H200 dense BF16 peak of data/hw/gpus.yaml (checked against the catalog in tests/hw).
constexpr double kH200PeakTflops = 989;

double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

TEST(Flops, SixNReproducesTheSeedRecipesMfu) {
  const double flash = six_n_flops_per_token(load_model("glm-4.7-flash"));
  EXPECT_DOUBLE_EQ(round_to(mfu(flash, 6178.46, kH200PeakTflops), 4), 0.1342);
  const double glm52 = six_n_flops_per_token(load_model("glm-5.2"));
  EXPECT_DOUBLE_EQ(round_to(mfu(glm52, 131.12, kH200PeakTflops), 4), 0.0321);
  EXPECT_DOUBLE_EQ(round_to(mfu(glm52, 161.79, kH200PeakTflops), 4), 0.0396);
  // 989.4 does not reproduce the printed digits of the first recipe.
  EXPECT_NE(round_to(mfu(flash, 6178.46, 989.4), 4), 0.1342);
}

TEST(Flops, MeanCausalContext) {
  EXPECT_DOUBLE_EQ(mean_causal_context(4, 0), 2.5);           // (1+2+3+4)/4
  EXPECT_DOUBLE_EQ(mean_causal_context(4, 2), (1 + 2 + 2 + 2) / 4.0);
  EXPECT_DOUBLE_EQ(mean_causal_context(4, 8), 2.5);           // window wider than the sequence
  EXPECT_DOUBLE_EQ(mean_causal_context(1, 0), 1.0);
}

TEST(Flops, DenseModelMatchesTheClosedForm) {
  const ModelSpec spec = load_model("llama-3.1-8b");
  const int64_t seq = 8192;
  const FlopsPerToken f = flops_per_token(spec, seq);
  const double n = static_cast<double>(active_params(spec));
  EXPECT_DOUBLE_EQ(f.six_n, 6 * n);
  EXPECT_DOUBLE_EQ(f.matmul_forward, 2 * n);
  // 32 layers x 2 x 32 heads x (128 + 128) x (S + 1) / 2
  EXPECT_DOUBLE_EQ(f.attention_forward, 32 * 2.0 * 32 * 256 * (seq + 1) / 2.0);
  EXPECT_DOUBLE_EQ(f.indexer_forward, 0);
  EXPECT_DOUBLE_EQ(f.training, 3 * (2 * n + f.attention_forward));
  EXPECT_DOUBLE_EQ(f.training_with_mtp, f.training);
  ASSERT_EQ(f.by_kind.size(), 2u);
  EXPECT_EQ(f.by_kind[0].kind, "gqa+dense");
  EXPECT_EQ(f.by_kind[0].layers, 32);
  EXPECT_EQ(f.by_kind[1].kind, "head");
}

TEST(Flops, KindsSumToTheTotals) {
  for (const char* name : {"glm-5.2", "glm-4.7-flash", "gpt-oss-120b", "deepseek-v3"}) {
    const FlopsPerToken f = flops_per_token(load_model(name), 4096);
    double forward = 0;
    for (const LayerKindFlops& k : f.by_kind) {
      if (k.kind != "mtp") forward += k.forward_total();
    }
    EXPECT_NEAR(forward, f.matmul_forward + f.attention_forward + f.indexer_forward,
                1e-9 * forward)
        << name;
    EXPECT_DOUBLE_EQ(f.matmul_forward, 2.0 * static_cast<double>(f.n)) << name;
  }
}

TEST(Flops, GlmFiveTwoSparseAttentionAndIndexers) {
  const ModelSpec spec = load_model("glm-5.2");
  const FlopsPerToken f = flops_per_token(spec, 65536);
  // Every layer attends to at most 2048 keys; 21 layers score all causal keys with the indexer.
  const double attention = 78 * 2.0 * 64 * (256 + 256) * mean_causal_context(65536, 2048);
  EXPECT_DOUBLE_EQ(f.attention_forward, attention);
  const double indexer = 21 * (2.0 * 32 * 128 + 2.0 * 32) * (65536 + 1) / 2.0;
  EXPECT_NEAR(f.indexer_forward, indexer, 1e-6 * indexer);
  ASSERT_GE(f.by_kind.size(), 3u);
  EXPECT_EQ(f.by_kind[0].kind, "mla-sparse+indexer+dense");
  EXPECT_EQ(f.by_kind[0].layers, 3);
  EXPECT_GT(f.mtp_forward, 0);
}

TEST(Flops, SlidingWindowLayersAttendToTheWindow) {
  const ModelSpec spec = load_model("gpt-oss-120b");
  const FlopsPerToken f = flops_per_token(spec, 4096);
  const double per_head = 2.0 * 64 * (64 + 64);
  const double expected = 18 * per_head * mean_causal_context(4096, 128) +
                          18 * per_head * mean_causal_context(4096, 0);
  EXPECT_DOUBLE_EQ(f.attention_forward, expected);
}

TEST(Flops, RejectsEmptySequence) {
  EXPECT_LADLE_ERROR(flops_per_token(load_model("llama-3.1-8b"), 0), usage, "sequence length");
}

}  // namespace
}  // namespace ladle::model
