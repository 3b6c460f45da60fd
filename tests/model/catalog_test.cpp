#include "ladle/model/catalog.hpp"

#include <gtest/gtest.h>

#include "ladle/model/params.hpp"
#include "support/test_support.hpp"

namespace ladle::model {
namespace {

TEST(ModelCatalog, FindsByNameAliasAndHuggingFaceIdIgnoringCase) {
  for (const char* name : {"GLM-4.7-Flash", "glm-4.7-flash", "zai-org/GLM-4.7-Flash"}) {
    const auto spec = find_model(name);
    ASSERT_TRUE(spec.has_value()) << name;
    EXPECT_EQ(spec->name, "glm-4.7-flash");
    EXPECT_EQ(spec->source, "data/models/glm-4.7-flash.json");
  }
  for (const char* name : {"glm-5.2", "GLM-5.2-744B-A40B", "glm5.2", "zai-org/GLM-5.2-FP8"}) {
    const auto spec = find_model(name);
    ASSERT_TRUE(spec.has_value()) << name;
    EXPECT_EQ(spec->name, "glm-5.2");
  }
  EXPECT_EQ(find_model("DeepSeek-V3")->model_type, "deepseek_v3");
  EXPECT_FALSE(find_model("glm-9").has_value());
}

TEST(ModelCatalog, EveryEmbeddedModelIsListedAndLoads) {
  const std::vector<std::string> names = model_names();
  // 17 published checkpoints, MLPerf's gpt-oss-20b and 12 GPT-3-style shapes of Megatron-LM's papers
  EXPECT_EQ(names.size(), 30u);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const std::string& name : names) {
    EXPECT_GT(active_params(load_model(name)), 0) << name;
  }
}

// OpenAI's gpt-oss model card (arXiv 2508.10925, Table 1): gpt-oss-20b has 20.91B parameters, 3.61B
// active per token. MLPerf's variant differs only in its vocabulary (128,256 rows, not 201,088), so
// its active count drops by the output layer's missing rows, 2,880 wide each (the card's active
// figure counts the unembedding and not the input embedding, a lookup; so does ladle).
TEST(ModelCatalog, GptOss20bAndItsMlperfVariantDifferOnlyInTheVocabulary) {
  const double full = active_params(load_model("gpt-oss-20b"));
  const double mlperf = active_params(load_model("gpt-oss-20b-mlperf"));
  EXPECT_NEAR(full / 1e9, 3.61, 0.02);
  EXPECT_NEAR(full - mlperf, 2880.0 * (201088.0 - 128256.0), 1.0);
}

TEST(ModelCatalog, UnknownNameSuggestsTheNearest) {
  EXPECT_LADLE_ERROR(load_model("glm-5.3"), usage, "unknown model 'glm-5.3' (did you mean");
  EXPECT_LADLE_ERROR(load_model("no-such-model"), usage, "embedded: deepseek-v3, deepseek-v3-no-mtp, glm-4.7-flash");
}

TEST(ModelCatalog, ListsAliases) {
  const std::vector<std::string> aliases = model_aliases("glm-5.2");
  EXPECT_EQ(aliases.front(), "zai-org/GLM-5.2");
  EXPECT_NE(std::find(aliases.begin(), aliases.end(), "glm-5.2-744b-a40b"), aliases.end());
}

}  // namespace
}  // namespace ladle::model

namespace ladle::model {
namespace {

TEST(ModelCatalog, DisplayNamesAreTheRecipesSpelling) {
  EXPECT_EQ(model_display_name("glm-5.2"), "GLM-5.2-744B-A40B");
  EXPECT_EQ(model_display_name("zai-org/GLM-4.7-Flash"), "GLM-4.7-Flash");
  EXPECT_EQ(model_display_name("not-a-model"), "not-a-model");
  // Every display name leads back to its own model, so recipes and the site never split one.
  for (const std::string& name : model_names()) {
    EXPECT_EQ(canonical_model_name(model_display_name(name)), name) << name;
  }
}

}  // namespace
}  // namespace ladle::model
