#include "ladle/model/tensor_inventory.hpp"

#include <gtest/gtest.h>

#include <set>

#include "ladle/model/catalog.hpp"
#include "ladle/model/params.hpp"
#include "support/test_support.hpp"

namespace ladle::model {
namespace {

int64_t sum_if(const std::vector<TensorInfo>& tensors, bool (*keep)(const TensorInfo&)) {
  int64_t sum = 0;
  for (const TensorInfo& t : tensors) {
    if (keep(t)) sum += t.total_numel();
  }
  return sum;
}

TEST(TensorInventory, SumsToThePublishedCheckpointTotals) {
  const auto all = [](const TensorInfo&) { return true; };
  EXPECT_EQ(sum_if(tensor_inventory(load_model("glm-4.7-flash")), all), 31'221'488'576);
  EXPECT_EQ(sum_if(tensor_inventory(load_model("glm-5.1")), all), 753'864'139'008);
  EXPECT_EQ(sum_if(tensor_inventory(load_model("llama-3.1-8b")), all), 8'030'261'248);
  const auto no_bias = [](const TensorInfo& t) { return t.role != TensorRole::correction_bias; };
  EXPECT_EQ(sum_if(tensor_inventory(load_model("glm-5.2")), no_bias), 753'329'921'024);
}

TEST(TensorInventory, ActiveMatricesOutsideEmbeddingAndMtpSumToN) {
  for (const char* name : {"glm-4.7-flash", "glm-5.2", "deepseek-v3", "gpt-oss-120b"}) {
    const ModelSpec spec = load_model(name);
    int64_t n = 0;
    for (const TensorInfo& t : tensor_inventory(spec)) {
      if (t.is_matrix() && t.section != TensorSection::embedding &&
          t.section != TensorSection::mtp) {
        n += t.numel() * t.active_copies;
      }
    }
    EXPECT_EQ(n, active_params(spec)) << name;
  }
}

TEST(TensorInventory, NamesAreUnique) {
  for (const std::string& name : model_names()) {
    std::set<std::string> seen;
    for (const TensorInfo& t : tensor_inventory(load_model(name))) {
      EXPECT_TRUE(seen.insert(t.name).second) << name << ": " << t.name;
    }
  }
}

TEST(TensorInventory, GlmFiveTwoHasIndexersOnTwentyOneLayersPlusMtp) {
  const ModelSpec spec = load_model("glm-5.2");
  std::set<int> layers;
  for (const TensorInfo& t : tensor_inventory(spec)) {
    if (t.role == TensorRole::indexer) layers.insert(t.layer);
  }
  EXPECT_EQ(layers.size(), 22u);  // 21 decoder layers + the MTP layer (78)
  EXPECT_TRUE(layers.count(0) && layers.count(6) && layers.count(74) && layers.count(78));
  EXPECT_FALSE(layers.count(3));
}

TEST(TensorInventory, ExpertsAreSplitByEpAndCountTopK) {
  const ModelSpec spec = load_model("glm-5.2");
  bool found = false;
  for (const TensorInfo& t : tensor_inventory(spec)) {
    if (t.name == "model.layers.3.mlp.experts.{e}.down_proj.weight") {
      found = true;
      EXPECT_EQ(t.shape, (std::vector<int64_t>{6144, 2048}));
      EXPECT_EQ(t.copies, 256);
      EXPECT_EQ(t.active_copies, 8);
      EXPECT_TRUE(t.is_expert());
      EXPECT_EQ(t.expert_split, TensorSplit::tp_row);
      EXPECT_EQ(t.section, TensorSection::layer);
      EXPECT_EQ(t.layer, 3);
    }
  }
  EXPECT_TRUE(found);
}

TEST(TensorInventory, MlaShapesAndSplits) {
  const ModelSpec spec = load_model("glm-4.7-flash");
  const std::vector<TensorInfo> tensors = tensor_inventory(spec);
  const auto find = [&](const std::string& name) -> const TensorInfo& {
    for (const TensorInfo& t : tensors) {
      if (t.name == name) return t;
    }
    ADD_FAILURE() << "no tensor " << name;
    return tensors.front();
  };
  const TensorInfo& q_b = find("model.layers.0.self_attn.q_b_proj.weight");
  EXPECT_EQ(q_b.shape, (std::vector<int64_t>{20 * 256, 768}));
  EXPECT_EQ(q_b.split, TensorSplit::tp_column);
  const TensorInfo& kv_a = find("model.layers.0.self_attn.kv_a_proj_with_mqa.weight");
  EXPECT_EQ(kv_a.shape, (std::vector<int64_t>{512 + 64, 2048}));
  EXPECT_EQ(kv_a.split, TensorSplit::replicated);
  EXPECT_EQ(find("model.layers.0.self_attn.o_proj.weight").split, TensorSplit::tp_row);
  EXPECT_EQ(find("model.layers.0.mlp.gate_proj.weight").role, TensorRole::dense_mlp);
  EXPECT_EQ(find("model.embed_tokens.weight").split, TensorSplit::vocab);
  EXPECT_EQ(find("lm_head.weight").section, TensorSection::head);
  const TensorInfo& eh = find("model.layers.47.eh_proj.weight");
  EXPECT_EQ(eh.section, TensorSection::mtp);
  EXPECT_EQ(eh.shape, (std::vector<int64_t>{2048, 4096}));
  EXPECT_EQ(find("model.layers.47.shared_head.head.weight").section, TensorSection::mtp);
}

TEST(TensorInventory, GptOssHasBiasesSinksAndStackedExperts) {
  const ModelSpec spec = load_model("gpt-oss-120b");
  int sinks = 0;
  int router_biases = 0;
  for (const TensorInfo& t : tensor_inventory(spec)) {
    if (t.name.ends_with("self_attn.sinks")) ++sinks;
    if (t.name.ends_with("mlp.router.bias")) ++router_biases;
    if (t.name == "model.layers.0.mlp.experts.gate_up_proj") {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{2880, 5760}));
      EXPECT_EQ(t.copies, 128);
    }
  }
  EXPECT_EQ(sinks, 36);
  EXPECT_EQ(router_biases, 36);
}

TEST(TensorEnums, HaveNames) {
  EXPECT_STREQ(to_string(TensorSplit::tp_column), "tp_column");
  EXPECT_STREQ(to_string(TensorSplit::ep), "ep");
  EXPECT_STREQ(to_string(TensorSection::mtp), "mtp");
  EXPECT_STREQ(to_string(TensorRole::shared_expert), "shared_expert");
}

}  // namespace
}  // namespace ladle::model
