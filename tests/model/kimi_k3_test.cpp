// kimi_k3: moonshotai/Kimi-K3's real config (tests/data/model/real_kimi-k3.json, source and card
// beside it) read and counted against the model card: Kimi Delta Attention and gated MLA layers,
// latent experts and block attention residuals, shapes from sglang's kimi_k3.py (the row's source).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "ladle/model/config_json.hpp"
#include "ladle/model/flops.hpp"
#include "ladle/model/params.hpp"
#include "ladle/model/tensor_inventory.hpp"
#include "ladle/util/error.hpp"
#include "support/test_support.hpp"

namespace ladle::model {
namespace {

std::string k3_path() { return test::source_path("tests/data/model/real_kimi-k3.json"); }

std::string k3_text() {
  std::ifstream in(k3_path());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const TensorInfo* find(const std::vector<TensorInfo>& inv, const std::string& name) {
  const auto it = std::find_if(inv.begin(), inv.end(), [&](const TensorInfo& t) { return t.name == name; });
  return it == inv.end() ? nullptr : &*it;
}

// The card's "2.8T" total and "104B" activated, each within 1% or half its last printed digit
// (the rule of published_cards_test). The text model is counted (the 401M vision tower is not,
// 0.01% of the total). The card's 104B is the activated count without the input embedding table
// (a lookup, 1.17B): ladle's `active` convention adds it and gives 105.36B, 1.3% off, so the test
// compares active - embedding, and states that difference.
TEST(KimiKThree, RealConfigMatchesTheCard) {
  const ModelSpec spec = read_config_file(k3_path());
  EXPECT_EQ(spec.model_type, "kimi_k3");
  const ParamCounts c = count_params(spec);
  const double total = 2.8e12;
  EXPECT_LE(std::abs(static_cast<double>(c.total) - total), std::max(0.01 * total, 0.5 * 0.1e12)) << c.total;
  const double active = 104e9;
  const double without_embedding = static_cast<double>(c.active - c.embedding);
  EXPECT_LE(std::abs(without_embedding - active), std::max(0.01 * active, 0.5e9)) << without_embedding;
  EXPECT_GT(std::abs(static_cast<double>(c.active) - active), 0.01 * active)
      << "the card's 104B now matches `active` itself: the comment above is stale";
  EXPECT_EQ(c.vision, 0);
}

TEST(KimiKThree, LayerKindsFollowTheConfig) {
  const ModelSpec spec = read_config_file(k3_path());
  EXPECT_EQ(spec.num_layers, 93);
  EXPECT_EQ(spec.count_mixer(MixerKind::linear), 69);
  EXPECT_EQ(spec.count_mixer(MixerKind::attention), 24);
  // kda_layers and full_attn_layers are 1-based: layer 0 is KDA, layers 3, 7, ... 91 and 92 MLA.
  EXPECT_EQ(spec.mixer_of(0), MixerKind::linear);
  EXPECT_EQ(spec.mixer_of(3), MixerKind::attention);
  EXPECT_EQ(spec.mixer_of(91), MixerKind::attention);
  EXPECT_EQ(spec.mixer_of(92), MixerKind::attention);
  EXPECT_EQ(spec.mlp[0], MlpKind::dense);
  EXPECT_EQ(spec.count_mlp(MlpKind::moe), 92);
  EXPECT_TRUE(spec.kda);
  EXPECT_TRUE(spec.kda_full_rank_gate);
  EXPECT_TRUE(spec.attention_output_gate);
  EXPECT_EQ(spec.moe_latent_size, 3584);
  EXPECT_TRUE(spec.moe_latent_norm);
  EXPECT_EQ(spec.attn_res_block_size, 12);
  EXPECT_FALSE(spec.silu_glu);  // SiTU-GLU
  EXPECT_EQ(spec.shared_expert_intermediate_size, 2 * 3072);
}

// Shapes as sglang's kimi_k3.py @ 0000e9b4 builds them (KimiK3DeltaAttention, KimiK3MLAAttention,
// KimiK3MoE, KimiK3DecoderLayer, KimiK3LinearModel).
TEST(KimiKThree, TensorShapes) {
  const std::vector<TensorInfo> inv = tensor_inventory(read_config_file(k3_path()));
  const auto shape = [&](const std::string& name) {
    const TensorInfo* t = find(inv, name);
    EXPECT_NE(t, nullptr) << name;
    return t == nullptr ? std::vector<int64_t>{} : t->shape;
  };
  using S = std::vector<int64_t>;
  EXPECT_EQ(shape("model.layers.0.self_attn.q_proj.weight"), (S{12288, 7168}));
  EXPECT_EQ(shape("model.layers.0.self_attn.g_proj.weight"), (S{12288, 7168}));
  EXPECT_EQ(shape("model.layers.0.self_attn.f_a_proj.weight"), (S{128, 7168}));
  EXPECT_EQ(shape("model.layers.0.self_attn.f_b_proj.weight"), (S{12288, 128}));
  EXPECT_EQ(shape("model.layers.0.self_attn.b_proj.weight"), (S{96, 7168}));
  EXPECT_EQ(shape("model.layers.0.self_attn.q_conv1d.weight"), (S{12288, 1, 4}));
  EXPECT_EQ(shape("model.layers.0.self_attn.o_proj.weight"), (S{7168, 12288}));
  EXPECT_EQ(shape("model.layers.0.mlp.gate_proj.weight"), (S{33792, 7168}));
  EXPECT_EQ(shape("model.layers.3.self_attn.g_proj.weight"), (S{96 * 128, 7168}));
  EXPECT_EQ(shape("model.layers.3.self_attn.kv_b_proj.weight"), (S{96 * 256, 512}));
  EXPECT_EQ(shape("model.layers.1.block_sparse_moe.routed_expert_down_proj.weight"), (S{3584, 7168}));
  EXPECT_EQ(shape("model.layers.1.block_sparse_moe.routed_expert_up_proj.weight"), (S{7168, 3584}));
  EXPECT_EQ(shape("model.layers.1.block_sparse_moe.experts.{e}.w1.weight"), (S{3072, 3584}));
  EXPECT_EQ(shape("model.layers.1.block_sparse_moe.gate.weight"), (S{896, 7168}));
  EXPECT_EQ(shape("model.layers.1.block_sparse_moe.shared_experts.down_proj.weight"), (S{7168, 6144}));
  EXPECT_EQ(shape("model.layers.1.self_attention_res_proj.weight"), (S{1, 7168}));
  EXPECT_EQ(shape("model.layers.1.mlp_res_norm.weight"), (S{7168}));
  EXPECT_EQ(shape("model.output_attn_res_proj.weight"), (S{1, 7168}));
  EXPECT_EQ(find(inv, "model.layers.3.self_attn.q_proj.weight"), nullptr);  // MLA's q is low-rank
}

// The FLOPs price the attention residuals' mixing; the layers' matrices are N's.
TEST(KimiKThree, FlopsHaveTheNewParts) {
  const ModelSpec spec = read_config_file(k3_path());
  const FlopsPerToken f = flops_per_token(spec, 8192);
  EXPECT_GT(f.mixing_forward, 0.0);
  EXPECT_LT(f.mixing_forward, 1e-3 * f.matmul_forward);
  // N also holds the output side's [1, hidden] scoring projection, which sits with the final norm
  // and is left out of the layers' matrix FLOPs (2 x hidden).
  EXPECT_DOUBLE_EQ(f.matmul_forward + 2.0 * 7168, 2.0 * static_cast<double>(f.n));
}

// The text model alone (model_type kimi_linear, the verbatim text_config object) reads as the
// same language model.
TEST(KimiKThree, TextConfigReadsAsKimiLinear) {
  const std::string text = k3_text();
  const auto j = nlohmann::json::parse(text);
  const ModelSpec whole = read_config_file(k3_path());
  const ModelSpec inner = parse_config(j["text_config"].dump(), "text_config.json", "k3-text");
  EXPECT_EQ(inner.model_type, "kimi_linear");
  EXPECT_EQ(count_params(inner).total, count_params(whole).total);
}

// A config whose layer lists contradict num_hidden_layers is refused naming the key.
TEST(KimiKThree, LayerListsMustCoverEveryLayer) {
  auto j = nlohmann::json::parse(k3_text());
  j["text_config"]["linear_attn_config"]["kda_layers"].erase(0);
  try {
    (void)parse_config(j.dump(), "k3.json", "k3");
    FAIL() << "read with layer 1 in neither list";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().field_path, "kda_layers");
  }
}

// A config of another type holding latent experts is refused rather than counted without them.
TEST(KimiKThree, LatentExpertsRefusedWhereNotRead) {
  auto j = nlohmann::json::parse(k3_text());
  nlohmann::json text = j["text_config"];
  text["model_type"] = "deepseek_v3";
  text.erase("linear_attn_config");  // else the linear layers are named first
  try {
    (void)parse_config(text.dump(), "k3.json", "k3");
    FAIL() << "read as deepseek_v3";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().field_path, "routed_expert_hidden_size");
    EXPECT_NE(std::string(e.what()).find("kimi_k3"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ladle::model
