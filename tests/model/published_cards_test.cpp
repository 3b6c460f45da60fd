// Parameter counts of the llama4, bailing_moe, qwen3_next, deepseek_v2 and mixtral readers
// against the totals and active counts their publishers print on the model cards. The real
// configs are copies in tests/data/model/real_*.json (each with a .source.txt naming its
// repository, path and commit); the others are inline, with the source of their values beside them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ladle/model/catalog.hpp"
#include "ladle/model/config_json.hpp"
#include "ladle/model/flops.hpp"
#include "ladle/model/params.hpp"
#include "ladle/model/tensor_inventory.hpp"
#include "support/test_support.hpp"

namespace ladle::model {
namespace {

std::string real_config(const std::string& name) {
  return test::source_path("tests/data/model/real_" + name + ".json");
}

// A card's figure, e.g. "109B" or "2.75B", is rounded to its last printed digit. ladle's count
// must be within 1% of it, or, where the card prints so few digits that rounding alone exceeds
// 1% ("17B" is anything from 16.5B to 17.5B), within half a unit of that last digit.
struct CardFigure {
  double value;       // as printed, in parameters
  double last_digit;  // the unit of its last printed digit (1e9 for "17B", 1e7 for "2.75B")
};

::testing::AssertionResult matches_card(int64_t count, CardFigure card) {
  const double tolerance = std::max(0.01 * card.value, 0.5 * card.last_digit);
  const double off = std::abs(static_cast<double>(count) - card.value);
  if (off <= tolerance) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << count << " is " << off / card.value * 100
                                       << "% from the card's " << card.value;
}

constexpr double kB = 1e9;

// inclusionAI/Ling README (model table): Ling-lite "16.8B" total, "2.75B" activated.
TEST(PublishedCards, LingLite) {
  const ModelSpec spec = load_model(real_config("ling-lite_mindie"));
  EXPECT_EQ(spec.model_type, "bailing_moe");
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {16.8 * kB, 0.1 * kB}));
  EXPECT_TRUE(matches_card(c.active, {2.75 * kB, 0.01 * kB}));
  EXPECT_EQ(spec.num_experts, 64);
  EXPECT_EQ(spec.shared_expert_intermediate_size, 2 * 1408);
}

// inclusionAI/Ling README: Ling-plus "290B" total, "28.8B" activated. Its config spells the expert
// counts n_routed_experts / n_shared_experts.
TEST(PublishedCards, LingPlus) {
  const ModelSpec spec = load_model(real_config("ling-plus_mindie"));
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {290 * kB, 1 * kB}));
  EXPECT_TRUE(matches_card(c.active, {28.8 * kB, 0.1 * kB}));
  EXPECT_EQ(spec.num_experts, 64);
  EXPECT_EQ(spec.num_shared_experts, 1);
}

// meta-llama/Llama-4-Maverick-17B-128E-Instruct model card: "17B" activated, "400B" total
// (the whole checkpoint: text model + vision encoder). This config nests text_config and also
// flattens it; interleave_moe_layer_step 2 makes every other layer MoE.
TEST(PublishedCards, LlamaFourMaverick) {
  const ModelSpec spec = load_model(real_config("llama-4-maverick-fp8_ktransformers"));
  EXPECT_EQ(spec.count_mlp(MlpKind::moe), 24);
  EXPECT_EQ(spec.mlp[0], MlpKind::dense);
  EXPECT_EQ(spec.mlp[1], MlpKind::moe);
  EXPECT_EQ(spec.num_experts, 128);
  const ParamCounts c = count_params(spec);
  EXPECT_GT(c.vision, 0);
  EXPECT_TRUE(matches_card(c.total + c.vision, {400 * kB, 1 * kB}));
  EXPECT_TRUE(matches_card(c.active, {17 * kB, 1 * kB}));
}

// meta-llama/Llama-4-Scout-17B-16E model card: "17B" activated, "109B" total. This copy is the
// text config flattened (no vision_config), so ladle counts the language model only; the card's
// total also holds the vision encoder, which Scout shares with Maverick (34 layers of width 1408:
// both HF configs' vision_config) and which ladle counts from Maverick's vision_config.
TEST(PublishedCards, LlamaFourScout) {
  const ModelSpec spec = load_model(real_config("llama-4-scout_ktransformers"));
  EXPECT_EQ(spec.count_mlp(MlpKind::moe), 48);
  EXPECT_EQ(spec.num_experts, 16);
  EXPECT_EQ(spec.vision_params, 0);
  // "no_rope_layers": [] is the default pattern: every 4th layer NoPE with full attention, the
  // other 36 chunked over 8,192 tokens.
  EXPECT_EQ(std::count(spec.attention_chunk.begin(), spec.attention_chunk.end(), 8192), 36);
  EXPECT_EQ(spec.attention_chunk[3], 0);
  const ParamCounts c = count_params(spec);
  const int64_t vision = load_model(real_config("llama-4-maverick-fp8_ktransformers")).vision_params;
  EXPECT_TRUE(matches_card(c.total + vision, {109 * kB, 1 * kB}));
  EXPECT_TRUE(matches_card(c.active, {17 * kB, 1 * kB}));
}

// mistral.ai "Cheaper, Better, Faster, Stronger" (Mixtral 8x22B announcement): "39B active
// parameters out of 141B".
TEST(PublishedCards, MixtralEightByTwentyTwo) {
  const ParamCounts c = count_params(load_model(real_config("mixtral-8x22b_mlcommons")));
  EXPECT_TRUE(matches_card(c.total, {141 * kB, 1 * kB}));
  EXPECT_TRUE(matches_card(c.active, {39 * kB, 1 * kB}));
}

TEST(PublishedCards, LlamaFourNestedAndFlatTextConfigsAgree) {
  const std::string flat = R"({"model_type": "llama4", "hidden_size": 64, "num_hidden_layers": 4,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100,
    "intermediate_size": 32, "intermediate_size_mlp": 128, "num_local_experts": 4,
    "num_experts_per_tok": 1, "interleave_moe_layer_step": 2, "attention_chunk_size": 16})";
  const std::string nested = R"({"model_type": "llama4", "text_config": {"model_type":
    "llama4_text", "hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100, "intermediate_size": 32,
    "intermediate_size_mlp": 128, "num_local_experts": 4, "num_experts_per_tok": 1,
    "interleave_moe_layer_step": 2, "attention_chunk_size": 16}})";
  const ModelSpec a = parse_config(flat, "flat.json", "x");
  ModelSpec b = parse_config(nested, "nested.json", "x");
  b.source = a.source;
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.mlp, (std::vector<MlpKind>{MlpKind::dense, MlpKind::moe, MlpKind::dense, MlpKind::moe}));
}

// Qwen/Qwen3-Next-80B-A3B-Instruct: the values are transformers' Qwen3NextConfig defaults
// (src/transformers/models/qwen3_next/configuration_qwen3_next.py, whose docstring says they
// give that checkpoint's configuration), intermediate_size as in the checkpoint's config.json.
// Model card: "80B in total and 3B activated".
constexpr const char* kQwen3Next = R"({"model_type": "qwen3_next", "vocab_size": 151936,
  "hidden_size": 2048, "intermediate_size": 5120, "num_hidden_layers": 48,
  "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
  "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
  "linear_num_key_heads": 16, "linear_num_value_heads": 32, "decoder_sparse_step": 1,
  "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512,
  "num_experts_per_tok": 10, "num_experts": 512, "full_attention_interval": 4,
  "tie_word_embeddings": false, "mlp_only_layers": []})";

TEST(PublishedCards, QwenThreeNext) {
  const ModelSpec spec = parse_config(kQwen3Next, "qwen3-next.json", "qwen3-next-80b-a3b");
  EXPECT_EQ(spec.count_linear_attention(), 36);
  EXPECT_FALSE(spec.is_linear_attention(3));
  EXPECT_TRUE(spec.is_linear_attention(0));
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {80 * kB, 1 * kB}));
  // The card's "3B" is the decoder layers' active parameters (3.25B); with the embedding and head
  // ladle's `active` is 3.87B. (Qwen3-30B-A3B's card, by contrast, counts them: its "3.3B" is
  // ladle's active 3,353,032,704.)
  EXPECT_TRUE(matches_card(c.active - c.embedding - c.head, {3 * kB, 1 * kB}));
  EXPECT_EQ(c.active, 3'874'929'408);
  // A Gated DeltaNet layer: in_proj_qkvz [12288, 2048], in_proj_ba [64, 2048], conv1d
  // [8192, 1, 4], dt_bias, A_log [32], norm [128], out_proj [2048, 4096].
  int64_t linear = 0;
  for (const TensorInfo& t : tensor_inventory(spec)) {
    if (t.layer == 0 && t.name.find("linear_attn.") != std::string::npos) linear += t.total_numel();
  }
  EXPECT_EQ(linear, 12288LL * 2048 + 64 * 2048 + 8192 * 4 + 32 + 32 + 128 + 2048LL * 4096);
  // Its attention cost does not grow with the sequence; the full-attention layers' does.
  const FlopsPerToken short_rows = flops_per_token(spec, 4096);
  const FlopsPerToken long_rows = flops_per_token(spec, 8192);
  for (std::size_t i = 0; i < short_rows.by_kind.size(); ++i) {
    if (short_rows.by_kind[i].kind.starts_with("linear")) {
      EXPECT_EQ(short_rows.by_kind[i].attention_forward, long_rows.by_kind[i].attention_forward);
    } else if (short_rows.by_kind[i].kind.starts_with("gqa")) {
      EXPECT_LT(short_rows.by_kind[i].attention_forward, long_rows.by_kind[i].attention_forward);
    }
  }
}

// deepseek-ai/DeepSeek-V2 (DeepSeek-V2 report, arXiv 2405.04434, sec. 3.1.2 and the model card):
// 60 layers, hidden 5120, 128 heads, q rank 1536, kv rank 512, qk 128 + 64 rope, v 128; layer 0
// dense (12288), then 2 shared + 160 routed experts of 1536, 6 per token; vocabulary 102400.
// Card: "236B" total, "21B" activated.
TEST(PublishedCards, DeepSeekVTwo) {
  const ModelSpec spec = parse_config(R"({"model_type": "deepseek_v2", "vocab_size": 102400,
    "hidden_size": 5120, "intermediate_size": 12288, "moe_intermediate_size": 1536,
    "num_hidden_layers": 60, "num_attention_heads": 128, "num_key_value_heads": 128,
    "n_shared_experts": 2, "n_routed_experts": 160, "num_experts_per_tok": 6,
    "first_k_dense_replace": 1, "moe_layer_freq": 1, "q_lora_rank": 1536, "kv_lora_rank": 512,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "topk_method": "group_limited_greedy", "tie_word_embeddings": false})",
                                      "deepseek-v2.json", "deepseek-v2");
  EXPECT_FALSE(spec.router_correction_bias);
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {236 * kB, 1 * kB}));
  EXPECT_TRUE(matches_card(c.active, {21 * kB, 1 * kB}));
  EXPECT_TRUE(matches_card(c.n, {21 * kB, 1 * kB}));
}

// deepseek-ai/DeepSeek-V2-Lite (same report, appendix B, and its model card): 27 layers, hidden
// 2048, 16 heads, no q compression, kv rank 512; layer 0 dense (10944), then 2 shared + 64 routed
// experts of 1408, 6 per token. Card: "15.7B parameters in total, of which 2.4B are activated".
TEST(PublishedCards, DeepSeekVTwoLite) {
  const ModelSpec spec = parse_config(R"({"model_type": "deepseek_v2", "vocab_size": 102400,
    "hidden_size": 2048, "intermediate_size": 10944, "moe_intermediate_size": 1408,
    "num_hidden_layers": 27, "num_attention_heads": 16, "num_key_value_heads": 16,
    "n_shared_experts": 2, "n_routed_experts": 64, "num_experts_per_tok": 6,
    "first_k_dense_replace": 1, "moe_layer_freq": 1, "q_lora_rank": null, "kv_lora_rank": 512,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "topk_method": "greedy", "tie_word_embeddings": false})",
                                      "deepseek-v2-lite.json", "deepseek-v2-lite");
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {15.7 * kB, 0.1 * kB}));
  // DeepSeek's activated count leaves out the input embedding: ladle's N is 2,451,308,544, 2.1%
  // above the printed "2.4B" (within one unit of its last digit; the card may truncate), and
  // `active` with the embedding 2.66B.
  EXPECT_EQ(c.n, 2'451'308'544);
  EXPECT_LE(std::abs(static_cast<double>(c.n) - 2.4 * kB), 0.1 * kB);
}

TEST(PublishedCards, ChunkedContextAveragesWithinChunks) {
  EXPECT_DOUBLE_EQ(mean_chunked_context(8, 4), 2.5);  // two chunks of 4: (1+2+3+4)/4
  EXPECT_DOUBLE_EQ(mean_chunked_context(6, 4), (10.0 + 3.0) / 6.0);
  EXPECT_DOUBLE_EQ(mean_chunked_context(8, 0), mean_causal_context(8, 0));
}

TEST(PublishedCards, BailingRejectsContradictoryExpertCounts) {
  EXPECT_LADLE_ERROR(parse_config(R"({"model_type": "bailing_moe", "hidden_size": 64,
    "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 8,
    "moe_intermediate_size": 8, "num_experts": 4, "n_routed_experts": 8,
    "num_experts_per_tok": 2})",
                                  "ling.json", "x"),
                     input, "n_routed_experts: 8 contradicts num_experts = 4");
}

}  // namespace
}  // namespace ladle::model

// ---- deepseek_v4 ----
namespace ladle::model {
namespace {

// deepseek-ai/DeepSeek-V4-Flash model card (huggingface.co/deepseek-ai/DeepSeek-V4-Flash, the
// model family table): "284B" total parameters, "13B" activated. The config is
// nvidia/DeepSeek-V4-Flash-NVFP4's (the same architecture; tests/data/model/
// real_deepseek-v4-flash-nvfp4.source.txt). The total leaves out the MTP layer, as DeepSeek-V3's
// "671B" does; the activated count leaves out the input embedding, as DeepSeek-V2-Lite's does
// (with it ladle's `active` is 13.80B).
TEST(PublishedCardsDeepSeekVFour, FlashMatchesTheCard) {
  const ModelSpec spec = load_model(real_config("deepseek-v4-flash-nvfp4"));
  EXPECT_EQ(spec.model_type, "deepseek_v4");
  EXPECT_EQ(spec.attention, AttentionKind::csa);
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {284 * kB, 1 * kB}));
  EXPECT_TRUE(matches_card(c.active - c.embedding, {13 * kB, 1 * kB}));
  EXPECT_TRUE(matches_card(c.n, {13 * kB, 1 * kB}));
  // The same total summed by hand from the shapes of sglang's deepseek_v4.py @ f8101ac7 (hidden
  // 4096, 64 heads of 512, q rank 1024, 8 output groups of rank 1024, 256 experts of 2048 and one
  // shared, hc_mult 4): per layer 106,956,352 attention, 786,486 hyper-connection, 2 norms,
  // 6,468,665,344 MoE (+256 correction bias from layer 3), compressors and indexers by ratio
  // (ratio 4: 8,393,216 + 10,749,056; ratio 128: 4,260,352), the embedding and head 529,530,880
  // each, the head mixing 65,541 and the final norm.
  EXPECT_EQ(c.total, 284'332'240'471);
  EXPECT_EQ(spec.num_mtp_layers, 1);
  EXPECT_EQ(c.mtp, 6'610'048'891);
}

}  // namespace
}  // namespace ladle::model
// ---- end deepseek_v4 ----

// ---- step3p7 (per-layer attention geometry) ----
namespace ladle::model {
namespace {

// stepfun-ai/Step-3.7-Flash model card (huggingface.co/stepfun-ai/Step-3.7-Flash; the vLLM recipe
// for the model quotes it): "~198B total / 11B active parameters combining a 196B sparse language
// backbone with a 1.8B perception encoder". ladle counts the language backbone: its total against
// "196B", its N (the matrices a token multiplies) against "11B". The config is aiconfigurator's
// flattened copy (tests/data/model/real_step-3.7-flash.source.txt), which lacks
// attention_other_setting and use_head_wise_attn_gate: the step3p7 row supplies both, and the
// spec records that it did.
TEST(PublishedCardsStepThreeSevenFlash, MatchesTheCard) {
  const ModelSpec spec = load_model(real_config("step-3.7-flash"));
  EXPECT_EQ(spec.model_type, "step3p7");
  ASSERT_EQ(spec.assumed.size(), 2u);
  EXPECT_EQ(spec.assumed[0].key, "attention_other_setting");
  EXPECT_EQ(spec.assumed[1].key, "use_head_wise_attn_gate");
  EXPECT_TRUE(spec.head_wise_attention_gate);
  // Layer 0 is full attention (64 heads), layers 1-3 sliding (96 heads), both 8 x 128 kv.
  EXPECT_EQ(spec.heads_of(0), 64);
  EXPECT_EQ(spec.heads_of(1), 96);
  EXPECT_EQ(spec.kv_heads_of(1), 8);
  EXPECT_EQ(spec.head_dim_of(1), 128);
  EXPECT_EQ(spec.sliding_window[0], 0);
  EXPECT_EQ(spec.sliding_window[1], 512);
  EXPECT_EQ(spec.count_mlp(MlpKind::dense), 3);
  EXPECT_EQ(spec.count_mlp(MlpKind::moe), 42);
  EXPECT_EQ(spec.num_mtp_layers, 3);
  EXPECT_TRUE(spec.router_correction_bias);
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {196 * kB, 1 * kB}));
  EXPECT_TRUE(matches_card(c.n, {11 * kB, 1 * kB}));
  // The same total by hand from the shapes of sglang's step3p5.py @ 01b5f572: embedding and head
  // 128,896 x 4,096 each (1,055,916,032); 12 full layers of q 8,192 + k 1,024 + v 1,024 + o 8,192
  // wide by 4,096, g_proj 64 x 4,096 and two head norms of 128 (75,759,872); 33 sliding layers
  // with 96 heads (109,445,376); two norms of 4,096 per layer; 3 dense SwiGLUs of 11,264
  // (138,412,032); 42 MoE layers of 288 experts and a shared one of 1,280, router 288 x 4,096 and
  // its 288 biases (4,546,756,896); the final norm.
  EXPECT_EQ(c.total, 196'956'130'368);
  // The sliding layers' q and o are 1.5 times the full layers'; g_proj is one row per head.
  bool saw_gate = false;
  for (const TensorInfo& t : tensor_inventory(spec)) {
    if (t.name == "model.layers.1.self_attn.q_proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{96 * 128, 4096}));
    }
    if (t.name == "model.layers.0.self_attn.q_proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{64 * 128, 4096}));
    }
    if (t.name == "model.layers.1.self_attn.g_proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{96, 4096}));
      saw_gate = true;
    }
  }
  EXPECT_TRUE(saw_gate);
}

// The official config's spelling (step3p5 under text_config: num_attention_groups, moe_num_experts,
// moe_top_k, moe_layers_enum, attention_other_setting, layer_types with the 3 MTP layers' entries
// after the 45 decoder layers', as the vLLM and SGLang readers take it) reads to the same model as
// the flattened copy with the published values, and records nothing as assumed.
TEST(PublishedCardsStepThreeSevenFlash, OfficialSpellingAgreesWithTheFlattenedCopy) {
  std::string types;
  std::string moe_layers;
  for (int i = 0; i < 48; ++i) {
    types += std::string(i == 0 ? "" : ",") + (i % 4 == 0 ? "\"full_attention\"" : "\"sliding_attention\"");
    if (i >= 3 && i < 45) moe_layers += (moe_layers.empty() ? "" : ",") + std::to_string(i);
  }
  const std::string text = R"({"model_type": "step3p7", "architectures": ["Step3p7ForConditionalGeneration"],
    "text_config": {"model_type": "step3p5", "hidden_size": 4096, "num_hidden_layers": 45,
      "vocab_size": 128896, "num_attention_heads": 64, "num_attention_groups": 8, "head_dim": 128,
      "intermediate_size": 11264, "moe_intermediate_size": 1280, "share_expert_dim": 1280,
      "moe_num_experts": 288, "moe_top_k": 8, "moe_layers_enum": ")" + moe_layers + R"(",
      "use_moe_router_bias": true, "use_head_wise_attn_gate": true, "sliding_window": 512,
      "num_nextn_predict_layers": 3,
      "attention_other_setting": {"attention_type": "sliding_attention", "num_attention_heads": 96,
                                  "num_attention_groups": 8, "head_dim": 128},
      "layer_types": [)" + types + R"(]}})";
  const ModelSpec official = parse_config(text, "config.json", "step-3.7-flash");
  const ModelSpec flattened = load_model(real_config("step-3.7-flash"));
  EXPECT_TRUE(official.assumed.empty());
  EXPECT_EQ(official.layer_heads, flattened.layer_heads);
  EXPECT_EQ(official.mlp, flattened.mlp);
  EXPECT_EQ(count_params(official).total, count_params(flattened).total);
  EXPECT_EQ(count_params(official).checkpoint, count_params(flattened).checkpoint);
}

// A layer_types list that is neither num_hidden_layers long nor that plus the MTP layers names
// both keys.
TEST(PublishedCardsStepThreeSevenFlash, LayerTypesContradictingTheLayersAreRefused) {
  const std::string text = R"({"model_type": "step3p7", "hidden_size": 64, "num_hidden_layers": 4,
    "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
    "moe_intermediate_size": 32, "num_experts": 4, "num_experts_per_tok": 2, "sliding_window": 8,
    "layer_types": ["full_attention", "sliding_attention"]})";
  try {
    (void)parse_config(text, "config.json", "tiny");
    ADD_FAILURE() << "a 2-entry layer_types for 4 layers was read";
  } catch (const Error& e) {
    const std::string what = e.describe();
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_NE(what.find("layer_types"), std::string::npos) << what;
    EXPECT_NE(what.find("num_hidden_layers"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace ladle::model
// ---- end step3p7 ----

// ---- gemma4 (per-layer attention geometry, the MoE block) ----
namespace ladle::model {
namespace {

// Gemma 4 model card (ai.google.dev/gemma/docs/core/model_card_4): 31B, "30.7B" parameters,
// dense. The config is nvidia/Gemma-4-31B-IT-NVFP4's, verbatim (tests/data/model/
// real_gemma-4-31b-it.source.txt): google/gemma-4-31B-it's architecture with a quantization block
// ladle does not read. Its 50 sliding layers have 16 key/value heads of 256, its 10 full layers 4
// of 512 whose keys are their values (no v_proj).
TEST(PublishedCardsGemmaFour, ThirtyOneBMatchesTheCardAndTheCheckpoint) {
  const ModelSpec spec = load_model(real_config("gemma-4-31b-it"));
  EXPECT_EQ(spec.model_type, "gemma4");
  EXPECT_EQ(spec.count_mlp(MlpKind::dense), 60);
  EXPECT_EQ(spec.num_experts, 0);
  EXPECT_EQ(spec.kv_heads_of(0), 16);
  EXPECT_EQ(spec.head_dim_of(0), 256);
  EXPECT_EQ(spec.kv_heads_of(5), 4);
  EXPECT_EQ(spec.head_dim_of(5), 512);
  EXPECT_TRUE(spec.k_eq_v_of(5));
  EXPECT_FALSE(spec.k_eq_v_of(4));
  EXPECT_EQ(spec.sliding_window[5], 0);
  EXPECT_EQ(spec.sliding_window[4], 1024);
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {30.7 * kB, 0.1 * kB}));
  // The BF16 checkpoint's tensor list (the source note): 31,273,088,876 less the vision tower and
  // its embedder (575,743,536) and the 60 one-element layer_scalar buffers ladle does not list.
  EXPECT_EQ(c.total, 31'273'088'876 - 575'743'536 - 60);
  for (const TensorInfo& t : tensor_inventory(spec)) {
    EXPECT_NE(t.name, "model.layers.5.self_attn.v_proj.weight");
    if (t.name == "model.layers.5.self_attn.k_proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{2048, 5376}));
    }
    if (t.name == "model.layers.5.self_attn.q_proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{16384, 5376}));
    }
    if (t.name == "model.layers.4.self_attn.v_proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{4096, 5376}));
    }
  }
}

// Gemma 4 model card: 26B A4B, 25.2B total and 3.8B active parameters (as public copies of the
// card quote it; tests/data/model/real_gemma-4-26b-a4b.source.txt). The config is
// google/gemma-4-26B-A4B's, verbatim. Every one of its 30 layers has a dense GeGLU MLP of 2,112
// (read as a shared expert) beside 128 routed experts of 704, top 8 (transformers
// modeling_gemma4.py @ c308a309, Gemma4TextDecoderLayer).
TEST(PublishedCardsGemmaFour, TwentySixBAFourBMatchesTheCard) {
  const ModelSpec spec = load_model(real_config("gemma-4-26b-a4b"));
  EXPECT_EQ(spec.model_type, "gemma4");
  EXPECT_EQ(spec.count_mlp(MlpKind::moe), 30);
  EXPECT_EQ(spec.num_experts, 128);
  EXPECT_EQ(spec.experts_per_token, 8);
  EXPECT_EQ(spec.moe_intermediate_size, 704);
  EXPECT_EQ(spec.shared_expert_intermediate_size, 2112);
  EXPECT_FALSE(spec.router_correction_bias);
  EXPECT_EQ(spec.kv_heads_of(0), 8);
  EXPECT_EQ(spec.kv_heads_of(5), 2);
  EXPECT_EQ(spec.head_dim_of(5), 512);
  EXPECT_TRUE(spec.k_eq_v_of(5));
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {25.2 * kB, 0.1 * kB}));
  EXPECT_TRUE(matches_card(c.active, {3.8 * kB, 0.1 * kB}));
  // By hand from the modeling code's shapes: the tied embedding 262,144 x 2,816 (738,197,504);
  // 25 sliding layers of q 4,096 + k 2,048 + v 2,048 + o 4,096 wide by 2,816 and two head norms
  // of 256 (34,603,520 each); 5 full layers of q 8,192 + k 1,024 + o 8,192 and two norms of 512
  // (49,021,952 each); on every layer the dense MLP 3 x 2,112 x 2,816 (17,842,176), the experts
  // 128 x 3 x 704 x 2,816 (761,266,176), the router 128 x 2,816 + 2,816 + 128 (363,392) and seven
  // norms of 2,816 (19,712); the final norm.
  EXPECT_EQ(c.total, int64_t{738'197'504} + 25 * 34'603'520 + 5 * 49'021'952 +
                         int64_t{30} * (17'842'176 + 761'266'176 + 363'392 + 19'712) + 2'816);
  EXPECT_EQ(c.total, 25'233'141'760);
  // Active: 8 of the 128 experts per layer.
  EXPECT_EQ(c.active, c.total - 30 * 120 * 3 * 704 * int64_t{2816});
  bool saw_experts = false;
  bool saw_dense = false;
  for (const TensorInfo& t : tensor_inventory(spec)) {
    if (t.name == "model.layers.0.experts.gate_up_proj") {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{2 * 704, 2816}));
      EXPECT_EQ(t.copies, 128);
      EXPECT_EQ(t.active_copies, 8);
      saw_experts = true;
    }
    if (t.name == "model.layers.0.mlp.gate_proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{2112, 2816}));
      EXPECT_EQ(t.role, TensorRole::shared_expert);
      saw_dense = true;
    }
    if (t.name == "model.layers.0.router.proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<int64_t>{128, 2816}));
    }
  }
  EXPECT_TRUE(saw_experts);
  EXPECT_TRUE(saw_dense);
}

// More experts per token than experts names top_k_experts.
TEST(PublishedCardsGemmaFour, MoreExpertsPerTokenThanExpertsIsRefused) {
  const std::string text = R"({"model_type": "gemma4_text", "hidden_size": 64, "num_hidden_layers": 2,
    "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 16,
    "intermediate_size": 128, "sliding_window": 8, "enable_moe_block": true, "num_experts": 4,
    "top_k_experts": 8, "moe_intermediate_size": 32, "layer_types": ["sliding_attention", "full_attention"]})";
  try {
    (void)parse_config(text, "config.json", "tiny");
    ADD_FAILURE() << "top_k_experts 8 of 4 experts was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().field_path, "top_k_experts") << e.describe();
  }
}

// Without attention_k_eq_v the full layers keep num_key_value_heads (Gemma4TextAttention takes
// num_global_key_value_heads only on layers whose keys are their values).
TEST(PublishedCardsGemmaFour, GlobalKeyValueHeadsOnlyWhereKeysAreValues) {
  const std::string base = R"({"model_type": "gemma4_text", "hidden_size": 64, "num_hidden_layers": 2,
    "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
    "global_head_dim": 32, "num_global_key_value_heads": 1, "intermediate_size": 128,
    "sliding_window": 8, "layer_types": ["sliding_attention", "full_attention"], "attention_k_eq_v": )";
  const ModelSpec separate = parse_config(base + "false}", "config.json", "tiny");
  EXPECT_EQ(separate.kv_heads_of(1), 2);
  EXPECT_EQ(separate.head_dim_of(1), 32);
  EXPECT_FALSE(separate.k_eq_v_of(1));
  const ModelSpec shared = parse_config(base + "true}", "config.json", "tiny");
  EXPECT_EQ(shared.kv_heads_of(1), 1);
  EXPECT_TRUE(shared.k_eq_v_of(1));
}

// The smaller checkpoints' parts are refused by name, not counted without them.
TEST(PublishedCardsGemmaFour, SharedKeyValueLayersAreRefused) {
  const std::string text = R"({"model_type": "gemma4_text", "hidden_size": 64, "num_hidden_layers": 2,
    "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 16,
    "intermediate_size": 128, "sliding_window": 8, "num_kv_shared_layers": 1,
    "layer_types": ["sliding_attention", "full_attention"]})";
  try {
    (void)parse_config(text, "config.json", "tiny");
    ADD_FAILURE() << "num_kv_shared_layers 1 was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().field_path, "num_kv_shared_layers") << e.describe();
  }
}

}  // namespace
}  // namespace ladle::model
// ---- end gemma4 ----
