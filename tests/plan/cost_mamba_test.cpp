// The hybrid layers' cost terms (plan/cost_mamba, plan/cost_linear_attention) and how model_costs
// groups the layers of Nemotron-H, Nemotron-NAS and Qwen3.5, on real configs of
// tests/data/model/ (their .source.txt name where each came from). Expectations are computed by
// hand from the configs in the comments.
#include <gtest/gtest.h>

#include "ladle/model/config_json.hpp"
#include "ladle/model/flops.hpp"
#include "ladle/plan/cost_linear_attention.hpp"
#include "ladle/plan/cost_mamba.hpp"
#include "ladle/plan/model_costs.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

ModelSpec real(const std::string& name) {
  return model::read_config_file(test::source_path("tests/data/model/real_" + name + ".json"));
}

const LayerKind* kind_with(const ModelCosts& c, MixerKind mixer, bool has_mlp) {
  for (const LayerKind& k : c.kinds) {
    if (k.mixer == mixer && k.has_mlp == has_mlp) return &k;
  }
  return nullptr;
}

// Nemotron-H-56B: Mamba-2 of 256 heads x 64, 8 groups, state 256, chunks of 128.
// SSD scan per token: 2 x 128 x (8 x 256 + 256 x 64) + 4 x 256 x 64 x 256
//   = 4,718,592 + 16,777,216 = 21,495,808 FLOPs.
TEST(CostMamba, NemotronHScanFlopsAndKinds) {
  const ModelSpec spec = real("nemotron-h-56b");
  EXPECT_DOUBLE_EQ(model::mamba_scan_forward(spec), 21495808.0);
  const ModelCosts c = model_costs(spec, 8192);
  ASSERT_EQ(c.kinds.size(), 3u);  // mamba, attention, MLP: one block each
  const LayerKind* mamba = kind_with(c, MixerKind::mamba, false);
  const LayerKind* attention = kind_with(c, MixerKind::attention, false);
  const LayerKind* mlp = kind_with(c, MixerKind::none, true);
  ASSERT_NE(mamba, nullptr);
  ASSERT_NE(attention, nullptr);
  ASSERT_NE(mlp, nullptr);
  EXPECT_DOUBLE_EQ(mamba->attention_flops, 21495808.0);
  EXPECT_DOUBLE_EQ(mlp->attention_flops, 0.0);
  // Causal attention over 8,192 tokens: 2 x 64 heads x (128 + 128) x 8193 / 2.
  EXPECT_DOUBLE_EQ(attention->attention_flops, 2.0 * 64 * 256 * 8193.0 / 2.0);
  // The MLP kind multiplies through up and down, 2 x 8192 x 32768.
  EXPECT_DOUBLE_EQ(mlp->dense_matmul_params, 2.0 * 8192 * 32768);
  EXPECT_EQ(c.count(0, 0, c.num_layers) + c.count(1, 0, c.num_layers) + c.count(2, 0, c.num_layers), 118);
}

// Per token at TP 8 with the norm's output split by SP (8192 / 8 = 1024): in_proj's output
// (16384 + 20480 + 256) / 8 = 4640, the conv output 20480 / 8 = 2560, the scan output and the
// gated norm's output 16384 / 8 = 2048 each: 12,320 elements.
TEST(CostMamba, ActivationElementsByHand) {
  const ModelCosts c = model_costs(real("nemotron-h-56b"), 8192);
  EXPECT_EQ(c.mamba_inner, 16384);
  EXPECT_EQ(c.mamba_conv, 20480);
  EXPECT_DOUBLE_EQ(mamba_activation_elements(c, 8.0, 1024.0, 1.0), 12320.0);
  // Under FP8 the out_proj input is kept at 1 byte: half a BF16 element.
  EXPECT_DOUBLE_EQ(mamba_activation_elements(c, 8.0, 1024.0, 0.5), 12320.0 - 1024.0);
}

// Qwen3.5-35B-A3B's Gated DeltaNet: 16 key heads x 128 (key 2048), 32 value heads x 128 (value
// 4096). At TP 1 with the 2048-wide input: 2048 + (4096 + 8192 + 64) + (4096 + 4096) + 4096 + 4096
// = 30,784 elements. Its recurrence: 3 x 2 x 32 x 128 x 128 + 2 x 4 x (4096 + 4096) = 3,211,264
// FLOPs per token.
TEST(CostLinearAttention, QwenThreeFiveByHand) {
  const ModelSpec spec = real("qwen3.5-35b-a3b");
  const ModelCosts c = model_costs(spec, 4096);
  EXPECT_DOUBLE_EQ(linear_attention_activation_elements(c, 1.0, 2048.0, 1.0), 30784.0);
  const LayerKind* linear = kind_with(c, MixerKind::linear, true);
  ASSERT_NE(linear, nullptr);
  EXPECT_DOUBLE_EQ(linear->attention_flops, 3211264.0);
  EXPECT_TRUE(linear->moe);
}

// Nemotron-NAS: one kind per (attention or none, MLP width) pair; the no_op layers keep no q/k/v.
TEST(CostMamba, NemotronNasKindsByWidth) {
  const ModelCosts c = model_costs(real("llama-3.3-nemotron-super-49b"), 8192);
  int layers = 0;
  for (size_t k = 0; k < c.kinds.size(); ++k) {
    layers += c.count(k, 0, c.num_layers);
    if (c.kinds[k].mixer == MixerKind::none) {
      EXPECT_DOUBLE_EQ(c.kinds[k].attention_flops, 0.0);
    }
    EXPECT_EQ(c.kinds[k].dense_matmul_params, 3.0 * 8192 * static_cast<double>(c.kinds[k].ffn) +
                                                  (c.kinds[k].mixer == MixerKind::attention
                                                       ? 2.0 * 8192 * 8192 + 2.0 * 8192 * 1024
                                                       : 0.0));
  }
  EXPECT_EQ(layers, 80);
  EXPECT_EQ(c.kinds.size(), 8u);  // the eight distinct block configs of the file
}

}  // namespace
}  // namespace ladle::plan
