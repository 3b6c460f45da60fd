// minimax_m3: MiniMax-M3's text model read from its config (tests/data/model/real_minimax-m3.json,
// source beside it), counted against the model card and by hand from the shapes of sglang's
// python/sglang/srt/models/minimax_m3.py, and its block-sparse attention priced per layer.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ladle/model/config_json.hpp"
#include "ladle/model/flops.hpp"
#include "ladle/model/params.hpp"
#include "ladle/model/tensor_inventory.hpp"
#include "ladle/util/error.hpp"
#include "support/test_support.hpp"

namespace ladle::model {
namespace {

ModelSpec minimax_m3() {
  return read_config_file(test::source_path("tests/data/model/real_minimax-m3.json"));
}

// MiniMaxAI/MiniMax-M3 model card (huggingface.co/MiniMaxAI/MiniMax-M3, "Model Details"): "~428B"
// total parameters, "~23B" activated, 128 experts with 4 active, 60 layers.
TEST(MiniMaxMThree, TotalMatchesTheCard) {
  const ModelSpec spec = minimax_m3();
  EXPECT_EQ(spec.model_type, "minimax_m3");
  EXPECT_EQ(spec.num_layers, 60);
  EXPECT_EQ(spec.num_experts, 128);
  EXPECT_EQ(spec.experts_per_token, 4);
  const ParamCounts c = count_params(spec);
  // Within 1% of 428B (the card's "~" leaves the vision tower and the MTP layer unsaid; total
  // counts neither: the MTP layer is in `mtp` and `checkpoint`, below).
  EXPECT_LE(std::abs(static_cast<double>(c.total) - 428e9), 0.01 * 428e9) << c.total;
  // By hand from the shapes (hidden 6144, vocabulary 200064 untied, 64 query heads and 4 key/value
  // heads of 128 with per-head q/k norms, 3 dense layers of 12288, 57 MoE layers of 128 experts of
  // 3072 plus one shared expert of 3072, a router and its correction bias, and on those 57 layers
  // the index projection of 4 query heads and 1 key head of 128 with their two norms): per layer
  // 106,955,008 attention with its q/k norms and 12,288 of layer norms; 226,492,416 per dense MLP;
  // 7,305,166,976 per MoE block and 3,932,416 of index; the embedding and head 1,229,193,216 each.
  EXPECT_EQ(c.total, 426'174'572'928);
  // The card's "~23B" activated: the activated weight matrices less the output head are
  // 23,503,306,752 here (N 24,732,499,968 less the 1,229,193,216 head), 2.2% above 23B.
  EXPECT_EQ(c.n, 24'732'499'968);
  // One MTP layer (the config's num_nextn_predict_layers 1, what Megatron trains; its
  // num_mtp_modules 7 is the inference engines' draft count, not read when the other is given), of
  // the same shapes: enorm and hnorm 6,144 each, eh_proj 6,144 x 12,288 = 75,497,472, one sparse
  // MoE block 106,955,008 + 12,288 + 7,305,166,976 + 3,932,416, final_layernorm 6,144.
  EXPECT_EQ(spec.num_mtp_layers, 1);
  EXPECT_FALSE(spec.mtp_stores_embedding_and_head);
  EXPECT_EQ(c.mtp, 7'491'582'592);
  EXPECT_EQ(c.checkpoint, c.total + c.mtp);
}

// Each MTP layer named as the checkpoint keeps it (model.mtp.layers.{k}: enorm, hnorm, eh_proj,
// transformer_layer, final_layernorm; sglang minimax_m3.py and NeMo Automodel's minimax_m3_vl
// mtp.py), its block a sparse layer with the block index and the routed and shared experts.
TEST(MiniMaxMThree, MtpLayerHoldsOneSparseMoEBlock) {
  const ModelSpec spec = minimax_m3();
  int seen = 0;
  for (const TensorInfo& t : tensor_inventory(spec)) {
    if (t.section != TensorSection::mtp) continue;
    EXPECT_TRUE(t.name.starts_with("model.mtp.layers.0.")) << t.name;
    EXPECT_NE(t.role, TensorRole::embedding) << t.name;  // the model's own embedding and head
    EXPECT_NE(t.role, TensorRole::head) << t.name;
    if (t.name == "model.mtp.layers.0.eh_proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{6144, 2 * 6144}));
      ++seen;
    }
    if (t.name == "model.mtp.layers.0.transformer_layer.self_attn.index_q_proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{4 * 128, 6144}));
      ++seen;
    }
    if (t.name == "model.mtp.layers.0.transformer_layer.block_sparse_moe.shared_experts.gate_proj.weight") ++seen;
    if (t.name == "model.mtp.layers.0.final_layernorm.weight") ++seen;
  }
  EXPECT_EQ(seen, 4);
  // Its forward: the block's matrices, eh_proj and the shared head (2 x 200,064 x 6,144); its
  // attention reads the selected 2,048 keys, as the sparse layers do.
  const FlopsPerToken f = flops_per_token(spec, 8192);
  const LayerKindFlops* mtp = nullptr;
  const LayerKindFlops* sparse = nullptr;
  for (const LayerKindFlops& k : f.by_kind) {
    if (k.kind == "mtp") mtp = &k;
    if (k.kind == "gqa-sparse+indexer+moe") sparse = &k;
  }
  ASSERT_NE(mtp, nullptr);
  ASSERT_NE(sparse, nullptr);
  EXPECT_EQ(mtp->layers, 1);
  EXPECT_DOUBLE_EQ(mtp->matmul_forward,
                   sparse->matmul_forward + 2.0 * 6144 * 12288 + 2.0 * 200064.0 * 6144.0);
  EXPECT_DOUBLE_EQ(mtp->attention_forward, sparse->attention_forward);
  EXPECT_DOUBLE_EQ(mtp->indexer_forward, sparse->indexer_forward);
}

TEST(MiniMaxMThree, SparseLayersAreTheOnesTheConfigMarks) {
  const ModelSpec spec = minimax_m3();
  EXPECT_EQ(spec.first_k_dense, 3);
  EXPECT_EQ(spec.mlp[2], MlpKind::dense);
  EXPECT_EQ(spec.mlp[3], MlpKind::moe);
  EXPECT_EQ(spec.intermediate_size, 12288);
  EXPECT_EQ(spec.shared_expert_intermediate_size, 3072);
  EXPECT_FALSE(spec.sparse_of(2));
  EXPECT_TRUE(spec.sparse_of(3));
  EXPECT_EQ(spec.count_indexers(), 57);
  EXPECT_EQ(spec.index_topk, 16 * 128);  // sparse_topk_blocks x sparse_block_size
  EXPECT_EQ(spec.index_block_size, 128);
  bool saw_index = false;
  for (const TensorInfo& t : tensor_inventory(spec)) {
    EXPECT_NE(t.name, "model.layers.2.self_attn.index_q_proj.weight");
    if (t.name == "model.layers.3.self_attn.index_q_proj.weight") {
      saw_index = true;
      EXPECT_EQ(t.shape, (std::vector<int64_t>{4 * 128, 6144}));
    }
    if (t.name == "model.layers.3.self_attn.index_k_proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{128, 6144}));
    }
  }
  EXPECT_TRUE(saw_index);
}

// At 8192 tokens a dense layer's queries see 4096.5 keys on average and a sparse layer's at most
// 2048 (the selected blocks), so the dense layers' attention core costs more per layer.
TEST(MiniMaxMThree, SparseLayersAttendToTheSelectedBlocksOnly) {
  const ModelSpec spec = minimax_m3();
  const FlopsPerToken f = flops_per_token(spec, 8192);
  double dense = 0.0;
  double sparse = 0.0;
  double indexer = -1.0;
  for (const LayerKindFlops& k : f.by_kind) {
    if (k.kind == "gqa+dense") dense = k.attention_forward;
    if (k.kind == "gqa-sparse+indexer+moe") {
      sparse = k.attention_forward;
      indexer = k.indexer_forward;
    }
  }
  // 2 x 64 heads x (128 + 128) x context.
  EXPECT_DOUBLE_EQ(dense, 2.0 * 64 * 256 * mean_causal_context(8192, 0));
  EXPECT_DOUBLE_EQ(sparse, 2.0 * 64 * 256 * mean_causal_context(8192, 2048));
  EXPECT_LT(sparse, dense);
  EXPECT_GT(indexer, 0.0);
}

std::string tiny(const std::string& sparse_extra) {
  return R"({"model_type": "minimax_m3", "hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 100,
    "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 16, "intermediate_size": 32,
    "dense_intermediate_size": 128, "num_local_experts": 4, "num_experts_per_tok": 2,
    "n_shared_experts": 1, "first_k_dense_replace": 1, "use_qk_norm": true, "qk_norm_type": "per_head",
    "sparse_attention_config": {"use_sparse_attention": true, "sparse_num_index_heads": 2,
      "sparse_index_dim": 16, "sparse_block_size": 4, "sparse_topk_blocks": 2,
      "sparse_attention_freq": [0, 1])" +
         sparse_extra + "}}";
}

std::string refused_field(const std::string& text) {
  try {
    (void)parse_config(text, "config.json", "tiny");
  } catch (const Error& e) {
    return e.where().field_path;
  }
  return "(read)";
}

// A sparse layer with the index's value branch, or without the per-layer list, is refused by name.
TEST(MiniMaxMThree, UnreadIndexPartsAreRefused) {
  EXPECT_EQ(refused_field(tiny(R"(, "sparse_disable_index_value": [0, 1])")), "(read)");
  EXPECT_EQ(refused_field(tiny(R"(, "sparse_disable_index_value": [0, 0])")), "sparse_disable_index_value");
  EXPECT_EQ(refused_field(tiny("")), "sparse_disable_index_value");
}

// The MTP layers: num_nextn_predict_layers when given, else num_mtp_modules (NVIDIA's
// MiniMax-M3-NVFP4 config holds only num_mtp_modules), else none.
TEST(MiniMaxMThree, MtpLayersFromNextnElseModules) {
  const std::string both =
      R"(, "sparse_disable_index_value": [0, 1]}, "num_nextn_predict_layers": 1, "num_mtp_modules": 7)";
  const std::string modules = R"(, "sparse_disable_index_value": [0, 1]}, "num_mtp_modules": 3)";
  const std::string none = R"(, "sparse_disable_index_value": [0, 1]})";
  // tiny() closes sparse_attention_config and the object; the extras close the former themselves.
  auto mtp_of = [](const std::string& extra) {
    std::string text = tiny(extra);
    text.pop_back();
    return parse_config(text, "config.json", "tiny").num_mtp_layers;
  };
  EXPECT_EQ(mtp_of(both), 1);
  EXPECT_EQ(mtp_of(modules), 3);
  EXPECT_EQ(mtp_of(none), 0);
}

// MiniMax-M3 as released (minimax_m3_vl): NVIDIA's MiniMax-M3-NVFP4 config.json
// (tests/data/model/real_minimax-m3-vl-nvfp4.json, source beside it), the same text model under
// text_config (its dense layers given by moe_layer_freq alone, its MTP by num_mtp_modules 1) and a
// vision tower counted by hand from the shapes of NeMo Automodel's minimax_m3_vl/vision_encoder.py:
// Conv3d 3 x 2 x 14 x 14 x 1280 = 1,505,280 without bias; pre_layrnorm 2,560; 32 layers of
// 2 LayerNorms (5,120), biased q/k/v/out (4 x 1,639,680), fc1 (6,558,720) and fc2 (6,554,880):
// 629,678,080; the projector 1280 x 6144 + 6144 and 6144 x 6144 + 6144: 45,625,344; the patch
// merger 24,576 x 6144 + 6144 and 6144 x 6144 + 6144: 188,755,968. 865,567,232 in all.
TEST(MiniMaxMThree, VlCheckpointCountsTheTextModelAndItsVisionTower) {
  const ModelSpec vl =
      read_config_file(test::source_path("tests/data/model/real_minimax-m3-vl-nvfp4.json"));
  const ModelSpec text = minimax_m3();
  EXPECT_EQ(vl.model_type, "minimax_m3_vl");
  EXPECT_EQ(vl.first_k_dense, 3);
  EXPECT_EQ(vl.num_mtp_layers, 1);
  EXPECT_EQ(vl.count_indexers(), 57);
  const ParamCounts c = count_params(vl);
  const ParamCounts t = count_params(text);
  EXPECT_EQ(c.total, t.total);
  EXPECT_EQ(c.n, t.n);
  EXPECT_EQ(c.mtp, t.mtp);
  EXPECT_EQ(vl.vision_params, 865'567'232);
  // With the tower, 427,040,140,160: within 1% of the card's "~428B" (-0.22%).
  const double all = static_cast<double>(c.total + vl.vision_params);
  EXPECT_LE(std::abs(all - 428e9), 0.01 * 428e9) << all;
}

// A vision tower the row does not read is refused by name: learned positions, or no
// img_token_compression_config (its temporal patch and merge sizes).
TEST(MiniMaxMThree, VlVisionPartsNotReadAreRefused) {
  const std::string text = tiny(R"(, "sparse_disable_index_value": [0, 1])");
  auto vl = [&](const std::string& vision) {
    return R"({"model_type": "minimax_m3_vl", "projector_hidden_size": 64, "text_config": )" + text +
           R"(, "vision_config": {"hidden_size": 32, "num_hidden_layers": 2, "intermediate_size": 64,
           "patch_size": 14, "num_attention_heads": 2)" +
           vision + "}}";
  };
  const std::string merge =
      R"(, "img_token_compression_config": {"temporal_patch_size": 2, "spatial_merge_size": 2})";
  EXPECT_EQ(refused_field(vl(merge + R"(, "position_embedding_type": "rope")")), "(read)");
  EXPECT_EQ(refused_field(vl(merge + R"(, "position_embedding_type": "learned")")),
            "position_embedding_type");
  EXPECT_EQ(refused_field(vl("")), "img_token_compression_config");
}

// minimax_m2 does not read the block index: a sparse_attention_config under it is refused.
TEST(MiniMaxMThree, MiniMaxMTwoRefusesTheSparseAttentionConfig) {
  const std::string text = R"({"model_type": "minimax_m2", "hidden_size": 64, "num_hidden_layers": 2,
    "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 16,
    "intermediate_size": 32, "num_local_experts": 4, "num_experts_per_tok": 2,
    "sparse_attention_config": {"use_sparse_attention": true}})";
  EXPECT_EQ(refused_field(text), "sparse_attention_config");
}

}  // namespace
}  // namespace ladle::model
