// The JSON form of the model module's value types: which keys each object has, and that the
// figures are the value type's own.
#include "ladle/model/model_json.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ladle/model/catalog.hpp"

namespace ladle::model {
namespace {

std::set<std::string> keys(const nlohmann::ordered_json& j) {
  std::set<std::string> out;
  for (const auto& item : j.items()) out.insert(item.key());
  return out;
}

TEST(ModelJson, DenseModelShowsNoMoeOrMlaFields) {
  const nlohmann::ordered_json j = to_json(load_model("llama-3.1-8b"));
  EXPECT_EQ(keys(j), (std::set<std::string>{"name", "model_type", "source", "architecture"}));
  const nlohmann::ordered_json& a = j["architecture"];
  EXPECT_EQ(a["attention"], "gqa");
  EXPECT_FALSE(a.contains("num_experts"));
  EXPECT_FALSE(a.contains("kv_lora_rank"));
  EXPECT_EQ(a["moe_layers"], 0);
  EXPECT_EQ(a["num_layers"], a["dense_layers"]);
}

TEST(ModelJson, MoeMlaModelShowsItsExpertAndLatentFields) {
  const ModelSpec spec = load_model("deepseek-v3");
  const nlohmann::ordered_json a = to_json(spec)["architecture"];
  EXPECT_EQ(a["attention"], "mla");
  EXPECT_EQ(a["num_experts"], spec.num_experts);
  EXPECT_EQ(a["kv_lora_rank"], spec.kv_lora_rank);
  EXPECT_EQ(a["first_k_dense"], spec.first_k_dense);
  EXPECT_TRUE(a.contains("mtp_stores_embedding_and_head"));
}

TEST(ModelJson, ParamCountsHaveOneEntryPerConvention) {
  const ParamCounts counts = count_params(load_model("qwen3-30b-a3b"));
  const nlohmann::ordered_json j = to_json(counts);
  EXPECT_EQ(j["n"], counts.n);
  std::set<std::string> conventions;
  for (ParamConvention c : param_conventions()) {
    conventions.insert(to_string(c));
    EXPECT_EQ(j["params"][to_string(c)], counts.get(c)) << to_string(c);
  }
  EXPECT_EQ(keys(j["params"]), conventions);
  EXPECT_EQ(j["params_by_role"]["routed_experts"], counts.routed_experts);
  EXPECT_FALSE(j.contains("vision_encoder_params"));  // a text-only model
  EXPECT_FALSE(j["params_by_role"].contains("hyper_connections"));
}

TEST(ModelJson, FlopsListEveryLayerKind) {
  const FlopsPerToken flops = flops_per_token(load_model("deepseek-v3"), 4096);
  const nlohmann::ordered_json j = to_json(flops);
  EXPECT_EQ(j["seq_len"], 4096);
  ASSERT_EQ(j["by_kind"].size(), flops.by_kind.size());
  for (size_t i = 0; i < flops.by_kind.size(); ++i) {
    EXPECT_EQ(j["by_kind"][i]["kind"], flops.by_kind[i].kind);
    EXPECT_DOUBLE_EQ(j["by_kind"][i]["forward_total"].get<double>(), flops.by_kind[i].forward_total());
  }
  EXPECT_DOUBLE_EQ(j["training_over_six_n"].get<double>(), flops.training / flops.six_n);
}

TEST(ModelJson, OnlyExpertTensorsNameAnExpertSplit) {
  for (const TensorInfo& t : tensor_inventory(load_model("qwen3-30b-a3b"))) {
    const nlohmann::ordered_json j = to_json(t);
    EXPECT_EQ(j.contains("expert_split"), t.is_expert()) << t.name;
    EXPECT_EQ(j["shape"].size(), t.shape.size()) << t.name;
  }
}

}  // namespace
}  // namespace ladle::model
