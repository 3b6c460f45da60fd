// DeepSeek-V4's layer kinds (deepseek_v4 row): the compressed attention's pooled-key context
// against a direct sum, its tensors by compress ratio, hash routing, hyper-connections, and the
// config contradictions refused, on the real DeepSeek-V4-Flash config of tests/data/model/ (its
// .source.txt names where it came from). Shapes follow sglang's
// python/sglang/srt/models/deepseek_v4.py @ f8101ac7.
#include <gtest/gtest.h>

#include <string>

#include "ladle/model/config_json.hpp"
#include "ladle/model/flops.hpp"
#include "ladle/model/params.hpp"
#include "ladle/model/tensor_inventory.hpp"
#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::model {
namespace {

std::string flash_path() { return test::source_path("tests/data/model/real_deepseek-v4-flash-nvfp4.json"); }

const TensorInfo* find(const std::vector<TensorInfo>& all, const std::string& name) {
  for (const TensorInfo& t : all) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// sum over i = 1..S of min(floor(i / r), cap), divided by S, summed one query at a time.
double pooled_by_hand(int64_t s, int64_t r, int64_t cap) {
  double sum = 0;
  for (int64_t i = 1; i <= s; ++i) {
    int64_t keys = i / r;
    if (cap > 0 && keys > cap) keys = cap;
    sum += static_cast<double>(keys);
  }
  return sum / static_cast<double>(s);
}

TEST(DeepSeekVFour, PooledContextMatchesTheDirectSum) {
  for (int64_t s : {1, 3, 4, 5, 127, 128, 129, 1000, 8192}) {
    for (int64_t r : {4, 128}) {
      for (int64_t cap : {0, 2, 512}) {
        EXPECT_NEAR(mean_pooled_context(s, r, cap), pooled_by_hand(s, r, cap), 1e-9)
            << "S " << s << " ratio " << r << " cap " << cap;
      }
    }
  }
  EXPECT_EQ(mean_pooled_context(100, 0, 0), 0.0);
}

TEST(DeepSeekVFour, LayersByCompressRatio) {
  const ModelSpec spec = read_config_file(flash_path());
  ASSERT_EQ(spec.compress_ratio.size(), 44u);  // 43 layers + the MTP layer
  EXPECT_EQ(spec.compress_ratio_of(0), 0);
  EXPECT_EQ(spec.compress_ratio_of(2), 4);
  EXPECT_EQ(spec.compress_ratio_of(3), 128);
  EXPECT_EQ(spec.compress_ratio_of(43), 0);  // the MTP layer's
  EXPECT_EQ(spec.count_indexers(), 21);
  EXPECT_EQ(spec.num_hash_layers, 3);
  EXPECT_EQ(spec.hc_mult, 4);
  const std::vector<TensorInfo> all = tensor_inventory(spec);
  // Ratio 0: no compressor; ratio 4: overlapping windows (coff 2) and an indexer; ratio 128: coff 1.
  EXPECT_EQ(find(all, "model.layers.0.self_attn.compressor.wkv.weight"), nullptr);
  ASSERT_NE(find(all, "model.layers.2.self_attn.compressor.wkv.weight"), nullptr);
  EXPECT_EQ(find(all, "model.layers.2.self_attn.compressor.wkv.weight")->shape, (std::vector<int64_t>{1024, 4096}));
  EXPECT_EQ(find(all, "model.layers.3.self_attn.compressor.wkv.weight")->shape, (std::vector<int64_t>{512, 4096}));
  EXPECT_EQ(find(all, "model.layers.3.self_attn.compressor.ape")->shape, (std::vector<int64_t>{128 * 512}));
  ASSERT_NE(find(all, "model.layers.2.self_attn.indexer.wq_b.weight"), nullptr);
  EXPECT_EQ(find(all, "model.layers.2.self_attn.indexer.wq_b.weight")->shape, (std::vector<int64_t>{64 * 128, 1024}));
  EXPECT_EQ(find(all, "model.layers.3.self_attn.indexer.wq_b.weight"), nullptr);
  // The grouped output: wo_a [groups x rank, heads x d / groups], wo_b [h, groups x rank].
  EXPECT_EQ(find(all, "model.layers.5.self_attn.wo_a.weight")->shape, (std::vector<int64_t>{8192, 4096}));
  EXPECT_EQ(find(all, "model.layers.5.self_attn.wo_b.weight")->shape, (std::vector<int64_t>{4096, 8192}));
  EXPECT_EQ(find(all, "model.layers.5.self_attn.wkv.weight")->shape, (std::vector<int64_t>{512, 4096}));
  // Hash-routed layers keep the router weight and no correction bias.
  EXPECT_NE(find(all, "model.layers.2.mlp.gate.weight"), nullptr);
  EXPECT_EQ(find(all, "model.layers.2.mlp.gate.e_score_correction_bias"), nullptr);
  EXPECT_NE(find(all, "model.layers.3.mlp.gate.e_score_correction_bias"), nullptr);
  // Hyper-connections: [(2 + m) m, m h] per sublayer, [m, m h] before the head.
  EXPECT_EQ(find(all, "model.layers.0.hc_attn_fn")->shape, (std::vector<int64_t>{24, 16384}));
  EXPECT_EQ(find(all, "model.hc_head_fn")->shape, (std::vector<int64_t>{4, 16384}));
  EXPECT_EQ(count_params(spec).hyper_connections, 43 * 786'486 + 65'541);
}

TEST(DeepSeekVFour, CompressedAttentionFlopsByHand) {
  const ModelSpec spec = read_config_file(flash_path());
  const int64_t s = 8192;
  // 2 heads (d + d) per key, keys = the window's mean plus the pooled keys' mean.
  const double per_key = 2.0 * 64 * (512 + 512);
  const double window = mean_causal_context(s, 128);
  EXPECT_DOUBLE_EQ(csa_attention_forward(spec, 0, s), per_key * window);
  EXPECT_DOUBLE_EQ(csa_attention_forward(spec, 3, s),
                   per_key * (window + mean_pooled_context(s, 128, 0)) + 4.0 * 512);
  EXPECT_DOUBLE_EQ(csa_attention_forward(spec, 2, s),
                   per_key * (window + mean_pooled_context(s, 4, 512)) + 4.0 * 2 * 512 + 4.0 * 2 * 128);
  EXPECT_DOUBLE_EQ(csa_indexer_forward(spec, 2, s), (2.0 * 64 * 128 + 2.0 * 64) * mean_pooled_context(s, 4, 0));
  EXPECT_EQ(csa_indexer_forward(spec, 3, s), 0.0);
  // Longer rows: the pooled keys grow; a window-only layer never sees more than its 128 keys.
  EXPECT_LT(csa_attention_forward(spec, 3, s), csa_attention_forward(spec, 3, 4 * s));
  EXPECT_LE(csa_attention_forward(spec, 0, 4 * s), per_key * 128);
  // Hyper-connection mixing: 2 x ((7 m + 2 m^2) h + 20 x 4 m^2).
  EXPECT_DOUBLE_EQ(hyper_connection_forward(spec), 2.0 * ((28.0 + 32.0) * 4096 + 20.0 * 64));
  const FlopsPerToken f = flops_per_token(spec, s);
  EXPECT_DOUBLE_EQ(f.mixing_forward, 43 * hyper_connection_forward(spec));
  EXPECT_DOUBLE_EQ(f.training, 3.0 * (f.matmul_forward + f.attention_forward + f.indexer_forward + f.mixing_forward));
}

TEST(DeepSeekVFour, ContradictoryKeysAreRefused) {
  std::string text = util::read_file(flash_path());
  std::string shorter = text;
  shorter.replace(shorter.find("\"num_hidden_layers\": 43"), 23, "\"num_hidden_layers\": 42");
  EXPECT_LADLE_ERROR(parse_config(shorter, "v4.json", "v4"), input,
                     "compress_ratios: has 44 entries but num_hidden_layers 42 + num_nextn_predict_layers 1 is 43");
  std::string kv = text;
  kv.replace(kv.find("\"num_key_value_heads\": 1"), 24, "\"num_key_value_heads\": 2");
  EXPECT_LADLE_ERROR(parse_config(kv, "v4.json", "v4"), input, "num_key_value_heads: 2 (expected 1");
  // DeepSeek-V4's keys under deepseek_v32 would lose the compressed attention: refused.
  std::string renamed = text;
  renamed.replace(renamed.find("\"deepseek_v4\""), 13, "\"deepseek_v32\"");
  EXPECT_LADLE_ERROR(parse_config(renamed, "v32.json", "v32"), input,
                     "compress_ratios: a key of compressed attention or hyper-connections, which model_type "
                     "'deepseek_v32' does not read");
}

}  // namespace
}  // namespace ladle::model
