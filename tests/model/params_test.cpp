// Parameter counts against the figures published for each model (data/models/README.md).
#include "ladle/model/params.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "ladle/model/catalog.hpp"
#include "ladle/model/config_json.hpp"
#include "ladle/model/tensor_inventory.hpp"
#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::model {
namespace {

struct Published {
  const char* model;  // embedded short name; the file is data/models/<model>.json
  ParamConvention convention;
  int64_t expected;
};

// Each figure as its publisher prints it (see data/models/README.md for where).
const Published kPublished[] = {
    {"glm-4.7-flash", ParamConvention::n, 3'579'314'176},
    {"glm-4.7-flash", ParamConvention::checkpoint, 31'221'488'576},
    {"glm-5.2", ParamConvention::n, 40'297'758'720},
    {"glm-5.2", ParamConvention::checkpoint_without_correction_bias, 753'329'921'024},
    {"glm-5", ParamConvention::n, 40'831'942'656},
    {"glm-5.1", ParamConvention::n, 40'831'942'656},
    {"glm-5.1", ParamConvention::checkpoint, 753'864'139'008},
    {"llama-3.1-8b", ParamConvention::total, 8'030'261'248},
    {"llama-3.1-70b", ParamConvention::total, 70'553'706'496},
    {"qwen3-30b-a3b", ParamConvention::total, 30'532'122'624},
    {"qwen3-235b-a22b", ParamConvention::total, 235'093'634'560},
    {"gpt-oss-120b", ParamConvention::total, 116'829'156'672},
};

TEST(ParamCounts, ReproducesPublishedFiguresFromEmbeddedConfigs) {
  for (const Published& p : kPublished) {
    const ModelSpec spec = load_model(p.model);
    EXPECT_EQ(count_params(spec).get(p.convention), p.expected)
        << p.model << " " << to_string(p.convention);
  }
}

TEST(ParamCounts, ReproducesPublishedFiguresFromConfigFiles) {
  for (const Published& p : kPublished) {
    const std::string path = test::source_path(std::string("data/models/") + p.model + ".json");
    const ModelSpec spec = load_model(path);
    EXPECT_EQ(spec.source, path);
    EXPECT_EQ(count_params(spec).get(p.convention), p.expected)
        << path << " " << to_string(p.convention);
  }
}

// Architectures without an embedded config, from the values of their published config.json.
TEST(ParamCounts, ReproducesPublishedTotalsOfOtherArchitectures) {
  // mistralai/Mixtral-8x7B-v0.1: 46,702,792,704 parameters.
  const ModelSpec mixtral = parse_config(R"({"model_type": "mixtral", "hidden_size": 4096,
      "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
      "intermediate_size": 14336, "num_local_experts": 8, "num_experts_per_tok": 2,
      "vocab_size": 32000, "tie_word_embeddings": false, "sliding_window": null})",
                                         "mixtral.json", "mixtral");
  EXPECT_EQ(count_params(mixtral).total, 46'702'792'704);
  // Qwen/Qwen3-8B: 8,190,735,360 parameters.
  const ModelSpec qwen3 = parse_config(R"({"model_type": "qwen3", "hidden_size": 4096,
      "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8,
      "head_dim": 128, "intermediate_size": 12288, "vocab_size": 151936,
      "tie_word_embeddings": false})",
                                       "qwen3.json", "qwen3");
  EXPECT_EQ(count_params(qwen3).total, 8'190'735'360);
  // zai-org/GLM-4.5-Air: "106B total"; its checkpoint with the MTP layer "110B".
  const ModelSpec air = parse_config(R"({"model_type": "glm4_moe", "hidden_size": 4096,
      "num_hidden_layers": 46, "num_attention_heads": 96, "num_key_value_heads": 8,
      "head_dim": 128, "intermediate_size": 10944, "moe_intermediate_size": 1408,
      "n_routed_experts": 128, "n_shared_experts": 1, "num_experts_per_tok": 8,
      "first_k_dense_replace": 1, "vocab_size": 151552, "attention_bias": true,
      "use_qk_norm": false, "num_nextn_predict_layers": 1, "tie_word_embeddings": false})",
                                     "glm-4.5-air.json", "glm-4.5-air");
  EXPECT_EQ(count_params(air).total / 1'000'000'000, 106);
  EXPECT_EQ((count_params(air).checkpoint + 500'000'000) / 1'000'000'000, 110);
}

TEST(ParamCounts, ReadsAFolderHoldingConfigJson) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path() / "GLM-4.7-Flash");
  std::filesystem::copy_file(test::source_path("data/models/glm-4.7-flash.json"),
                             dir.path() / "GLM-4.7-Flash" / "config.json");
  const ModelSpec spec = load_model((dir.path() / "GLM-4.7-Flash").string());
  EXPECT_EQ(spec.name, "GLM-4.7-Flash");
  EXPECT_EQ(active_params(spec), 3'579'314'176);
}

TEST(ParamCounts, ActiveParamsIsTheNConvention) {
  const ModelSpec spec = load_model("glm-5.2");
  EXPECT_EQ(active_params(spec), count_params(spec).n);
}

TEST(ParamCounts, ConventionsAreConsistent) {
  for (const std::string& name : model_names()) {
    const ParamCounts c = count_params(load_model(name));
    EXPECT_EQ(c.total_without_embedding, c.total - c.embedding) << name;
    EXPECT_EQ(c.checkpoint, c.total + c.mtp) << name;
    EXPECT_LE(c.checkpoint_without_correction_bias, c.checkpoint) << name;
    EXPECT_LT(c.n, c.active) << name;
    EXPECT_LE(c.active, c.total) << name;
    EXPECT_EQ(c.attention + c.indexer + c.dense_mlp + c.routed_experts + c.shared_experts +
                  c.router + c.norms + c.head + c.embedding,
              c.total)
        << name;
  }
}

TEST(ParamCounts, DenseModelNIsTotalLessEmbeddingAndNorms) {
  const ParamCounts c = count_params(load_model("llama-3.1-8b"));
  EXPECT_EQ(c.n, c.total - c.embedding - c.norms);
  EXPECT_EQ(c.active, c.total);
}

TEST(ParamCounts, TiedEmbeddingStillCountsTheHeadInN) {
  std::string text = util::read_file(test::source_path("data/models/llama-3.1-8b.json"));
  const std::string untied = "\"tie_word_embeddings\": false";
  text.replace(text.find(untied), untied.size(), "\"tie_word_embeddings\": true");
  const ModelSpec tied = parse_config(text, "tied.json", "tied");
  const ModelSpec untied_spec = load_model("llama-3.1-8b");
  const ParamCounts a = count_params(tied);
  const ParamCounts b = count_params(untied_spec);
  EXPECT_EQ(a.total, b.total - 128256LL * 4096);
  EXPECT_EQ(a.n, b.n);
}

TEST(ParamConventionNames, RoundTripAndRejectUnknown) {
  for (ParamConvention c : param_conventions()) {
    EXPECT_EQ(parse_param_convention(to_string(c)), c);
    EXPECT_NE(std::string(describe(c)), "");
  }
  EXPECT_EQ(parse_param_convention("total-without-embedding"),
            ParamConvention::total_without_embedding);
  EXPECT_LADLE_ERROR(parse_param_convention("totl"), usage, "did you mean 'total'");
}

}  // namespace
}  // namespace ladle::model
