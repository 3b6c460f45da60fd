// DeepSeek-V4's cost terms (plan/cost_compressed_attention) and how model_costs groups its layers,
// on the real DeepSeek-V4-Flash config of tests/data/model/ (its .source.txt names where it came
// from). Expectations are computed by hand from the config in the comments.
#include <gtest/gtest.h>

#include <string>

#include "ladle/model/config_json.hpp"
#include "ladle/model/flops.hpp"
#include "ladle/plan/cost_compressed_attention.hpp"
#include "ladle/plan/model_costs.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

ModelSpec flash() {
  return model::read_config_file(test::source_path("tests/data/model/real_deepseek-v4-flash-nvfp4.json"));
}

const LayerKind* kind_named(const ModelCosts& c, const std::string& name) {
  for (const LayerKind& k : c.kinds) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

TEST(CostCompressedAttention, FlashKindsByCompressRatio) {
  const ModelSpec spec = flash();
  const ModelCosts c = model_costs(spec, 8192);
  EXPECT_TRUE(c.csa);
  EXPECT_EQ(c.hc_mult, 4);
  const LayerKind* window = kind_named(c, "csa-window+moe");
  const LayerKind* c4 = kind_named(c, "csa-c4+indexer+moe");
  const LayerKind* c128 = kind_named(c, "csa-c128+moe");
  ASSERT_NE(window, nullptr);
  ASSERT_NE(c4, nullptr);
  ASSERT_NE(c128, nullptr);
  EXPECT_EQ(c.count(static_cast<size_t>(c4 - c.kinds.data()), 0, c.num_layers), 21);
  EXPECT_EQ(c.count(static_cast<size_t>(c128 - c.kinds.data()), 0, c.num_layers), 20);
  EXPECT_DOUBLE_EQ(c4->attention_flops, model::csa_attention_forward(spec, 2, 8192));
  EXPECT_DOUBLE_EQ(c4->indexer_flops, model::csa_indexer_forward(spec, 2, 8192));
  EXPECT_EQ(c128->indexer_flops, 0.0);
  EXPECT_EQ(c4->window, 0);  // no sliding-window tile loss: the window is one part of the keys
  EXPECT_EQ(c.mtp.compress_ratio, 0);
  // The hyper-connection mixing weights are replicated GEMMs of [24, 16384] on every layer.
  int hc = 0;
  for (const Gemm& g : c4->gemms) hc += g.out == 24 && g.in == 16384 && g.split == GemmSplit::replicated ? 1 : 0;
  EXPECT_EQ(hc, 2);
}

// h 4096, m 4: per sublayer (m h + h) + (h + 2 m h) = 14 h elements, two sublayers, BF16:
// 2 x 2 x 14 x 4096 = 229,376 bytes per token and layer. Saved: 2 ((m - 1) h + 2 (2 + m) m).
TEST(CostCompressedAttention, HyperConnectionTermsByHand) {
  const ModelCosts c = model_costs(flash(), 8192);
  EXPECT_DOUBLE_EQ(hyper_connection_stream_bytes(c), 229'376.0);
  EXPECT_DOUBLE_EQ(hyper_connection_activation_elements(c, 1.0), 2 * (3 * 4096.0 + 2 * 24.0));
  EXPECT_DOUBLE_EQ(hyper_connection_activation_elements(c, 2.0), 2 * (3 * 4096.0 / 2 + 2 * 24.0));
  ModelCosts plain = c;
  plain.hc_mult = 0;
  EXPECT_EQ(hyper_connection_stream_bytes(plain), 0.0);
  EXPECT_EQ(hyper_connection_activation_elements(plain, 1.0), 0.0);
}

// A ratio-128 layer at TP 1 without SP or FP8: input 4096, q latent 2 x 1024, key head 2 x 512,
// q 64 x 512, output 64 x 512, wo_b's input 8 x 1024, the compressor's FP32 scores 2 x 2 x 512.
TEST(CostCompressedAttention, ActivationElementsByHand) {
  const ModelCosts c = model_costs(flash(), 8192);
  const LayerKind* c128 = kind_named(c, "csa-c128+moe");
  ASSERT_NE(c128, nullptr);
  const double expected = 4096 + 2 * 1024 + 2 * 512 + 2 * 64 * 512 + 8 * 1024 + 2 * 2 * 512;
  EXPECT_DOUBLE_EQ(compressed_attention_activation_elements(c, *c128, 1, 1, 4096, 1), expected);
  const LayerKind* c4 = kind_named(c, "csa-c4+indexer+moe");
  ASSERT_NE(c4, nullptr);
  // Ratio 4: coff 2 doubles the compressor's scores; the indexer adds its 64 weights and its own
  // compressor's 2 x 2 x 2 x 128 FP32 scores.
  const double c4_expected = expected + 2 * 2 * 512 + 64 + 2 * 2 * 2 * 128;
  EXPECT_DOUBLE_EQ(compressed_attention_activation_elements(c, *c4, 1, 1, 4096, 1), c4_expected);
  // TP 8 splits the heads' tensors only.
  EXPECT_LT(compressed_attention_activation_elements(c, *c4, 8, 1, 4096, 1), c4_expected);
}

}  // namespace
}  // namespace ladle::plan
