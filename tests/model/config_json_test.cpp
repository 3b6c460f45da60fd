#include "ladle/model/config_json.hpp"
#include "ladle/model/params.hpp"

#include <gtest/gtest.h>

#include "ladle/model/catalog.hpp"
#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::model {
namespace {

std::string fixture(const std::string& name) { return test::source_path("tests/data/model/" + name); }

TEST(ConfigJson, ReadsGlmFiveTwoArchitecture) {
  const ModelSpec spec = load_model("glm-5.2");
  EXPECT_EQ(spec.model_type, "glm_moe_dsa");
  EXPECT_EQ(spec.num_layers, 78);
  EXPECT_EQ(spec.num_mtp_layers, 1);
  EXPECT_EQ(spec.attention, AttentionKind::mla);
  EXPECT_EQ(spec.hidden_size, 6144);
  EXPECT_EQ(spec.num_heads, 64);
  EXPECT_EQ(spec.q_lora_rank, 2048);
  EXPECT_EQ(spec.kv_lora_rank, 512);
  EXPECT_EQ(spec.first_k_dense, 3);
  EXPECT_EQ(spec.count_mlp(MlpKind::dense), 3);
  EXPECT_EQ(spec.count_mlp(MlpKind::moe), 75);
  EXPECT_EQ(spec.num_experts, 256);
  EXPECT_EQ(spec.experts_per_token, 8);
  EXPECT_EQ(spec.count_indexers(), 21);
  EXPECT_EQ(spec.index_topk, 2048);
  EXPECT_TRUE(spec.router_correction_bias);
  EXPECT_FALSE(spec.mtp_stores_embedding_and_head);
}

TEST(ConfigJson, IndexerOnEveryLayerWithoutIndexerTypes) {
  EXPECT_EQ(load_model("glm-5").count_indexers(), 78);
  EXPECT_EQ(load_model("glm-5.1").count_indexers(), 78);
}

TEST(ConfigJson, IndexTopkFreqReproducesIndexerTypes) {
  std::string text = util::read_file(test::source_path("data/models/glm-5.2.json"));
  const std::size_t begin = text.find("\"indexer_types\"");
  const std::size_t end = text.find(']', begin);
  text.erase(begin, end - begin + 2);  // the key, its list and the comma
  const ModelSpec derived = parse_config(text, "glm-5.2-no-indexer-types.json", "x");
  EXPECT_EQ(derived.has_indexer, load_model("glm-5.2").has_indexer);
}

TEST(ConfigJson, ReadsGptOssSlidingWindows) {
  const ModelSpec spec = load_model("gpt-oss-120b");
  EXPECT_EQ(spec.sliding_window[0], 128);
  EXPECT_EQ(spec.sliding_window[1], 0);
  EXPECT_TRUE(spec.attention_sinks);
  EXPECT_EQ(spec.head_dim, 64);
  EXPECT_EQ(spec.num_kv_heads, 8);
}

TEST(ConfigJson, KimiK2IsReadAsDeepSeekV3) {
  const ModelSpec spec = load_model("kimi-k2");
  EXPECT_EQ(spec.attention, AttentionKind::mla);
  EXPECT_EQ(spec.num_experts, 384);
  EXPECT_EQ(spec.num_mtp_layers, 0);
}

TEST(ConfigJson, RejectsMissingField) {
  EXPECT_LADLE_ERROR(read_config_file(fixture("glm_missing_hidden_size.json")), input,
                     "glm_missing_hidden_size.json:1:1: error: hidden_size: missing required field");
}

TEST(ConfigJson, RejectsMoreExpertsPerTokenThanExperts) {
  EXPECT_LADLE_ERROR(read_config_file(fixture("glm_experts_fewer_than_topk.json")), input,
                     "num_experts_per_tok: 128 experts per token exceeds the 64 experts");
}

TEST(ConfigJson, RejectsHeadsThatDoNotDivide) {
  EXPECT_LADLE_ERROR(read_config_file(fixture("llama_kv_heads_do_not_divide.json")), input,
                     "num_key_value_heads: num_attention_heads 32 is not divisible by "
                     "num_key_value_heads 6");
}

TEST(ConfigJson, RejectsUnknownModelTypeNamingSupportedOnes) {
  EXPECT_LADLE_ERROR(read_config_file(fixture("unknown_model_type.json")), input,
                     "unsupported model_type 'mamba'; nearest by its keys (dense attention and MLP): "
                     "gpt2, llama, mistral, phi3; supported: bailing_moe, deepseek_v2, deepseek_v3");
}

TEST(ConfigJson, RejectsWrongType) {
  EXPECT_LADLE_ERROR(read_config_file(fixture("llama_hidden_size_string.json")), input,
                     "hidden_size: expected an integer, got \"4096\"");
}

TEST(ConfigJson, RejectsNonJsonWithLineAndColumn) {
  EXPECT_LADLE_ERROR(read_config_file(fixture("not_json.json")), input, "not_json.json:3:");
  EXPECT_LADLE_ERROR(read_config_file(fixture("not_json.json")), input, "not valid JSON");
}

// The embedded Qwen3.5-397B-A17B text config (data/models/README.md gives its provenance) reads as
// Qwen3.5's hybrid: 45 of 60 layers Gated DeltaNet, the name's 397B total and 17B active.
TEST(ConfigJson, ReadsQwenThreeFiveHybrid) {
  const ModelSpec spec = load_model("qwen3.5-397b-a17b");
  EXPECT_EQ(spec.count_linear_attention(), 45);
  const ParamCounts c = count_params(spec);
  EXPECT_NEAR(static_cast<double>(c.total), 397e9, 0.01 * 397e9);
  EXPECT_NEAR(static_cast<double>(c.active), 17e9, 0.5e9);
}

TEST(ConfigJson, RejectsContradictoryMlpLayerTypes) {
  const std::string text = R"({"model_type": "glm_moe_dsa", "num_hidden_layers": 2,
    "hidden_size": 64, "vocab_size": 10, "num_attention_heads": 2, "kv_lora_rank": 8,
    "q_lora_rank": 16, "qk_nope_head_dim": 4, "qk_rope_head_dim": 4, "v_head_dim": 4,
    "intermediate_size": 32, "moe_intermediate_size": 8, "n_routed_experts": 4,
    "num_experts_per_tok": 2, "first_k_dense_replace": 1, "mlp_layer_types": ["sparse", "sparse"],
    "index_n_heads": 2, "index_head_dim": 4, "index_topk": 4})";
  EXPECT_LADLE_ERROR(parse_config(text, "tiny.json", "tiny"), input,
                     "mlp_layer_types: layer 0 is 'sparse' but first_k_dense_replace 1 says dense");
}

// Every per-layer list (mlp_layer_types, indexer_types, layer_types) is read by one rule: one
// entry per layer, each a known name.
TEST(ConfigJson, PerLayerListsNeedOneKnownEntryPerLayer) {
  const std::string dsa = R"({"model_type": "glm_moe_dsa", "num_hidden_layers": 2,
    "hidden_size": 64, "vocab_size": 10, "num_attention_heads": 2, "kv_lora_rank": 8,
    "q_lora_rank": 16, "qk_nope_head_dim": 4, "qk_rope_head_dim": 4, "v_head_dim": 4,
    "intermediate_size": 32, "moe_intermediate_size": 8, "n_routed_experts": 4,
    "num_experts_per_tok": 2, "first_k_dense_replace": 1, "mlp_layer_types": MLP,
    "index_n_heads": 2, "index_head_dim": 4, "index_topk": 4, "indexer_types": IDX})";
  const auto with = [&dsa](const std::string& mlp, const std::string& idx) {
    std::string text = dsa;
    text.replace(text.find("MLP"), 3, mlp);
    text.replace(text.find("IDX"), 3, idx);
    return text;
  };
  EXPECT_LADLE_ERROR(parse_config(with(R"(["dense"])", R"(["full", "full"])"), "t.json", "t"), input,
                     "mlp_layer_types: has 1 entries for 2 layers");
  EXPECT_LADLE_ERROR(parse_config(with(R"(["dense", "hybrid"])", R"(["full", "full"])"), "t.json",
                                  "t"),
                     input, "unknown layer type 'hybrid' (expected dense, sparse or moe)");
  EXPECT_LADLE_ERROR(parse_config(with(R"(["dense", "moe"])", R"(["full", "half"])"), "t.json", "t"),
                     input, "unknown indexer type 'half' (expected full or shared)");
  const ModelSpec ok = parse_config(with(R"(["dense", "moe"])", R"(["full", "shared"])"), "t.json", "t");
  EXPECT_EQ(ok.mlp[1], MlpKind::moe);
  EXPECT_TRUE(ok.has_indexer[0]);
  EXPECT_FALSE(ok.has_indexer[1]);
  const std::string qwen = R"({"model_type": "qwen3", "num_hidden_layers": 2, "hidden_size": 64,
    "vocab_size": 10, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 32,
    "intermediate_size": 32, "sliding_window": 16,
    "layer_types": ["sliding_attention", "local"]})";
  EXPECT_LADLE_ERROR(parse_config(qwen, "q.json", "q"), input,
                     "unknown layer type 'local' (expected full_attention or sliding_attention)");
}

TEST(ConfigJson, RejectsNonObject) {
  EXPECT_LADLE_ERROR(parse_config("[1, 2]", "list.json", "x"), input, "expected a JSON object");
}

TEST(ConfigJson, SupportedTypesAreListed) {
  const std::vector<std::string> types = supported_model_types();
  for (const char* t : {"glm4_moe_lite", "glm_moe_dsa", "deepseek_v3", "glm4_moe", "qwen3_moe",
                        "qwen3", "llama", "mixtral", "gpt_oss", "llama4", "bailing_moe",
                        "qwen3_next", "deepseek_v2"}) {
    EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << t;
  }
}

}  // namespace
}  // namespace ladle::model
