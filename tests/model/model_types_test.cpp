// The model types added beside the first ones (qwen2, mistral, mistral3, phi3, gemma3, olmo3, mimo,
// minimax_m2, deepseek_v32, kimi_k25, qwen3_vl, qwen3_vl_moe), each read from a real config.json
// copied into tests/data/model/real_*.json (a .source.txt beside each names its repository, path and
// commit) and checked against the figures its publisher prints; where a card prints only the name's
// size, that is the figure, and where none could be found the test says so and checks structure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "ladle/model/catalog.hpp"
#include "ladle/model/config_json.hpp"
#include "ladle/model/params.hpp"
#include "ladle/model/tensor_inventory.hpp"
#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::model {
namespace {

std::string real_config(const std::string& name) {
  return test::source_path("tests/data/model/real_" + name + ".json");
}

// A card's figure rounded to its last printed digit: within 1%, or within half a unit of that digit
// where the rounding alone is wider (as in published_cards_test.cpp).
struct CardFigure {
  double value;
  double last_digit;
};

::testing::AssertionResult matches_card(int64_t count, CardFigure card) {
  const double tolerance = std::max(0.01 * card.value, 0.5 * card.last_digit);
  const double off = std::abs(static_cast<double>(count) - card.value);
  if (off <= tolerance) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << count << " is " << off / card.value * 100
                                       << "% from the card's " << card.value;
}

// A card figure that cuts the count at its last printed digit rather than rounding it.
::testing::AssertionResult truncates_to(int64_t count, CardFigure card) {
  const double c = static_cast<double>(count);
  if (c >= card.value && c < card.value + card.last_digit) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << count << " does not truncate to the card's " << card.value;
}

constexpr double kM = 1e6;
constexpr double kB = 1e9;

const TensorInfo* find_tensor(const std::vector<TensorInfo>& tensors, const std::string& name) {
  for (const TensorInfo& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// Qwen/Qwen2.5-7B-Instruct model card: "Number of Parameters: 7.61B", "Number of Paramaters
// (Non-Embedding): 6.53B" (the card leaves out the embedding and the untied head).
TEST(ModelTypes, QwenTwoPointFive) {
  const ModelSpec spec = load_model(real_config("qwen2.5-7b-instruct"));
  EXPECT_EQ(spec.model_type, "qwen2");
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {7.61 * kB, 0.01 * kB}));
  EXPECT_TRUE(matches_card(c.total - c.embedding - c.head, {6.53 * kB, 0.01 * kB}));
  // q, k and v carry biases, o does not; use_sliding_window false leaves every layer full.
  const std::vector<TensorInfo> tensors = tensor_inventory(spec);
  EXPECT_NE(find_tensor(tensors, "model.layers.0.self_attn.k_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(tensors, "model.layers.0.self_attn.o_proj.bias"), nullptr);
  EXPECT_EQ(std::count(spec.sliding_window.begin(), spec.sliding_window.end(), 0), 28);
}

// mistralai/Mistral-7B-Instruct-v0.3: the card names the size only, "7B". sliding_window null:
// every layer is full attention.
TEST(ModelTypes, MistralSevenB) {
  const ModelSpec spec = load_model(real_config("mistral-7b-instruct-v0.3"));
  EXPECT_EQ(spec.model_type, "mistral");
  EXPECT_TRUE(matches_card(count_params(spec).total, {7 * kB, 1 * kB}));
  EXPECT_EQ(std::count(spec.sliding_window.begin(), spec.sliding_window.end(), 0), 32);
}

// mistralai/Devstral-Small-2-24B-Instruct: the card names the size, "24B" (language model and
// Pixtral vision tower together). The text model sits under text_config (model_type ministral3).
TEST(ModelTypes, DevstralSmallTwo) {
  const ModelSpec spec = load_model(real_config("devstral-small-2-24b-instruct"));
  EXPECT_EQ(spec.model_type, "mistral3");
  EXPECT_EQ(spec.num_layers, 40);
  EXPECT_EQ(spec.head_dim, 128);
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total + c.vision, {24 * kB, 1 * kB}));
  // Pixtral: patch conv 3x14x14x1024, ln_pre, 24 layers of 2 norms + q/k/v/o 1024x1024 + SwiGLU
  // 3x1024x4096, then the projector's norm, patch merger [4096 -> 1024], linear_1 [1024 -> 5120]
  // and linear_2 [5120 -> 5120], no biases.
  const int64_t layer = 2 * 1024 + 4 * 1024 * 1024 + 3 * 1024 * 4096;
  const int64_t vision = 3 * 14 * 14 * 1024 + 1024 + 24 * layer + 1024 + 4096 * 1024 +
                         1024 * 5120 + 5120 * 5120;
  EXPECT_EQ(c.vision, vision);
}

// microsoft/phi-4: the card says "14B parameters"; the Hugging Face model page counts its
// safetensors as "14.7B". The checkpoint fuses q/k/v and gate/up.
TEST(ModelTypes, PhiFour) {
  const ModelSpec spec = load_model(real_config("phi-4"));
  EXPECT_EQ(spec.model_type, "phi3");
  EXPECT_TRUE(matches_card(count_params(spec).total, {14.7 * kB, 0.1 * kB}));
  const std::vector<TensorInfo> tensors = tensor_inventory(spec);
  const TensorInfo* qkv = find_tensor(tensors, "model.layers.0.self_attn.qkv_proj.weight");
  ASSERT_NE(qkv, nullptr);
  EXPECT_EQ(qkv->shape, (std::vector<int64_t>{5120 + 2 * 10 * 128, 5120}));
  const TensorInfo* gate_up = find_tensor(tensors, "model.layers.0.mlp.gate_up_proj.weight");
  ASSERT_NE(gate_up, nullptr);
  EXPECT_EQ(gate_up->shape, (std::vector<int64_t>{2 * 17920, 5120}));
}

// Gemma 3 Technical Report (arXiv 2503.19786), Table 1, Gemma 3 27B: vision encoder "417M",
// embedding parameters "1,416M", non-embedding parameters "25,600M". Gemma3TextConfig ties the
// head by default, and the config leaves it so; 5 sliding layers (1024 tokens) per full one.
TEST(ModelTypes, GemmaThree) {
  const ModelSpec spec = load_model(real_config("gemma-3-27b"));
  EXPECT_EQ(spec.model_type, "gemma3");
  EXPECT_TRUE(spec.tie_word_embeddings);
  EXPECT_FALSE(spec.silu_glu);
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.embedding, {1416 * kM, 1 * kM}));
  EXPECT_TRUE(matches_card(c.total_without_embedding, {25600 * kM, 1 * kM}));
  // ladle's vision count holds the projector too: its RMSNorm and the [1152, 5376] projection.
  EXPECT_TRUE(matches_card(c.vision - (1152 + 1152 * 5376), {417 * kM, 1 * kM}));
  EXPECT_EQ(std::count(spec.sliding_window.begin(), spec.sliding_window.end(), 1024), 52);
  const std::vector<TensorInfo> tensors = tensor_inventory(spec);
  EXPECT_NE(find_tensor(tensors, "model.layers.0.pre_feedforward_layernorm.weight"), nullptr);
  EXPECT_NE(find_tensor(tensors, "model.layers.0.post_feedforward_layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(tensors, "lm_head.weight"), nullptr);
}

// allenai/Olmo-3.1-32B-Instruct: the card names the size, "32B". Norms after attention and the MLP
// only; q/k norms over the whole projections (40 x 128 and 8 x 128).
TEST(ModelTypes, OlmoThree) {
  const ModelSpec spec = load_model(real_config("olmo-3.1-32b-instruct"));
  EXPECT_EQ(spec.model_type, "olmo3");
  EXPECT_TRUE(matches_card(count_params(spec).total, {32 * kB, 1 * kB}));
  const std::vector<TensorInfo> tensors = tensor_inventory(spec);
  EXPECT_EQ(find_tensor(tensors, "model.layers.0.input_layernorm.weight"), nullptr);
  ASSERT_NE(find_tensor(tensors, "model.layers.0.self_attn.q_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(tensors, "model.layers.0.self_attn.q_norm.weight")->shape, (std::vector<int64_t>{5120}));
  EXPECT_EQ(find_tensor(tensors, "model.layers.0.self_attn.k_norm.weight")->shape, (std::vector<int64_t>{1024}));
  EXPECT_EQ(std::count(spec.sliding_window.begin(), spec.sliding_window.end(), 4096), 48);
}

// XiaomiMiMo/MiMo-7B-Base: no parameter count printed on the card was found (its name says "7B",
// which neither the model, 7.62B, nor the checkpoint with its MTP layer, 7.83B, rounds to), so
// the MTP layer's structure is what is checked: Qwen2 layers plus one MTP layer that shares the
// embedding and head.
TEST(ModelTypes, MiMoMtpLayer) {
  const ModelSpec spec = load_model(real_config("mimo-7b-base"));
  EXPECT_EQ(spec.model_type, "mimo");
  EXPECT_EQ(spec.num_mtp_layers, 1);
  const std::vector<TensorInfo> tensors = tensor_inventory(spec);
  const TensorInfo* proj = find_tensor(tensors, "model.mtp_layers.0.input_proj.weight");
  ASSERT_NE(proj, nullptr);
  EXPECT_EQ(proj->shape, (std::vector<int64_t>{4096, 8192}));
  EXPECT_NE(find_tensor(tensors, "model.mtp_layers.0.self_attn.q_proj.bias"), nullptr);
  const ParamCounts c = count_params(spec);
  // One Qwen2 layer (attention with biases, MLP, two norms) + 3 norms + the [4096, 8192] projection.
  const int64_t layer = 4096 * 4096 + 4096 + 2 * (1024 * 4096 + 1024) + 4096 * 4096 +
                        3 * 4096 * 11008 + 2 * 4096;
  EXPECT_EQ(c.mtp, layer + 3 * 4096 + 4096 * 8192);
}

// MiniMax's announcement (minimax.io/news/minimax-m2), as its partners quote it: "230B total
// parameters and 10B active"; MiniMax-M2.5 keeps the architecture. The active figure leaves out
// the input embedding (ladle's N). The config's MTP modules are not in the checkpoint's layers.
TEST(ModelTypes, MiniMaxMTwoPointFive) {
  const ModelSpec spec = load_model(real_config("minimax-m2.5"));
  EXPECT_EQ(spec.model_type, "minimax_m2");
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {230 * kB, 1 * kB}));
  EXPECT_TRUE(matches_card(c.n, {10 * kB, 1 * kB}));
  EXPECT_EQ(spec.num_mtp_layers, 0);
  const std::vector<TensorInfo> tensors = tensor_inventory(spec);
  EXPECT_NE(find_tensor(tensors, "model.layers.0.block_sparse_moe.e_score_correction_bias"), nullptr);
  EXPECT_EQ(find_tensor(tensors, "model.layers.0.self_attn.q_norm.weight")->shape, (std::vector<int64_t>{48 * 128}));
}

// MiMo-V2-Flash Technical Report (Xiaomi LLM-Core Team, arXiv 2601.02780), abstract: "309B total
// parameters and 15B active parameters". Its config has no MTP count, so no MTP layer is counted.
// Sliding layers (hybrid_layer_pattern 1) have 8 kv heads and sink logits, full ones 4 and none;
// values are 128 wide beside 192-wide queries and keys (sglang's mimo_v2_flash.py).
TEST(ModelTypes, MiMoVTwoFlash) {
  const ModelSpec spec = load_model(real_config("mimo-v2-flash"));
  EXPECT_EQ(spec.model_type, "mimo_v2_flash");
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {309 * kB, 1 * kB}));
  EXPECT_TRUE(matches_card(c.n, {15 * kB, 1 * kB}));
  EXPECT_EQ(spec.count_mlp(MlpKind::moe), 47);
  EXPECT_EQ(spec.num_mtp_layers, 0);
  EXPECT_EQ(spec.sliding_window[0], 0);
  EXPECT_EQ(spec.sliding_window[1], 128);
  EXPECT_EQ(spec.kv_heads_of(0), 4);
  EXPECT_EQ(spec.kv_heads_of(1), 8);
  const std::vector<TensorInfo> tensors = tensor_inventory(spec);
  EXPECT_EQ(find_tensor(tensors, "model.layers.1.self_attn.k_proj.weight")->shape, (std::vector<int64_t>{8 * 192, 4096}));
  EXPECT_EQ(find_tensor(tensors, "model.layers.1.self_attn.v_proj.weight")->shape, (std::vector<int64_t>{8 * 128, 4096}));
  EXPECT_EQ(find_tensor(tensors, "model.layers.0.self_attn.v_proj.weight")->shape, (std::vector<int64_t>{4 * 128, 4096}));
  EXPECT_EQ(find_tensor(tensors, "model.layers.0.self_attn.o_proj.weight")->shape, (std::vector<int64_t>{4096, 64 * 128}));
  EXPECT_NE(find_tensor(tensors, "model.layers.1.self_attn.sinks"), nullptr);
  EXPECT_EQ(find_tensor(tensors, "model.layers.5.self_attn.sinks"), nullptr);
  EXPECT_NE(find_tensor(tensors, "model.layers.1.mlp.gate.e_score_correction_bias"), nullptr);
}

// Sliding layers of another query-head count than the full layers' are refused, not counted as the
// full layers' shape.
TEST(ModelTypes, MiMoVTwoFlashSlidingLayersOfAnotherShapeAreRefused) {
  std::string text = util::read_file(real_config("mimo-v2-flash"));
  const std::string from = "\"swa_num_attention_heads\": 64";
  text.replace(text.find(from), from.size(), "\"swa_num_attention_heads\": 96");
  EXPECT_LADLE_ERROR(parse_config(text, "c.json", "c"), input,
                     "swa_num_attention_heads: 96 differs from num_attention_heads 64");
}

// deepseek-ai/DeepSeek-V3.2: the Hugging Face model page counts "685B" (the checkpoint, MTP layer
// included); DeepSeek-V3's card: "671B total parameters with 37B activated for each token", which
// V3.2 keeps but for its indexers (0.9B). Every layer owns a lightning indexer.
TEST(ModelTypes, DeepSeekVThreePointTwo) {
  const ModelSpec spec = load_model(real_config("deepseek-v3.2"));
  EXPECT_EQ(spec.model_type, "deepseek_v32");
  EXPECT_EQ(spec.count_indexers(), 61);
  EXPECT_EQ(spec.index_topk, 2048);
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.checkpoint, {685 * kB, 1 * kB}));
  EXPECT_TRUE(matches_card(c.total, {671 * kB, 1 * kB}));
  EXPECT_TRUE(matches_card(c.n, {37 * kB, 1 * kB}));
}

// moonshotai/Kimi-K2.5 model card: "Total Parameters 1T", "Activated Parameters 32B" (the active
// figure leaves out the input embedding: ladle's N). The language model is DeepSeek-V3's
// architecture under text_config; its MoonViT tower is not counted.
TEST(ModelTypes, KimiKTwoPointFive) {
  const ModelSpec spec = load_model(real_config("kimi-k2.5"));
  EXPECT_EQ(spec.model_type, "kimi_k25");
  EXPECT_EQ(spec.num_experts, 384);
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {1000 * kB, 1000 * kB}));
  EXPECT_TRUE(matches_card(c.n, {32 * kB, 1 * kB}));
  EXPECT_EQ(c.vision, 0);
}

// Qwen/Qwen3-VL-8B-Instruct names only its size; its language model has Qwen3-8B's shape
// (hidden 4096, 36 layers, 32/8 heads, intermediate 12288, vocabulary 151936, untied), whose card
// prints "Number of Parameters: 8.2B", "Number of Paramaters (Non-Embedding): 6.95B". The vision
// tower is counted beside it.
TEST(ModelTypes, QwenThreeVlEightB) {
  const ModelSpec spec = load_model(real_config("qwen3-vl-8b"));
  EXPECT_EQ(spec.model_type, "qwen3_vl");
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {8.2 * kB, 0.1 * kB}));
  EXPECT_TRUE(matches_card(c.total - c.embedding - c.head, {6.95 * kB, 0.01 * kB}));
  // Conv3d 3x2x16x16 -> 1152 with bias, 2304 positions, 27 blocks of 15,239,504, the merger
  // (LayerNorm 1152, fc1 4608 -> 4608, fc2 4608 -> 4096, biased) and 3 deepstack mergers with their
  // LayerNorm over 4608.
  const int64_t merger_fc = 4608 * 4608 + 4608 + 4608 * 4096 + 4096;
  EXPECT_EQ(c.vision, 3 * 2 * 16 * 16 * 1152 + 1152 + 2304 * 1152 + 27 * 15239504 +
                          (2 * 1152 + merger_fc) + 3 * (2 * 4608 + merger_fc));
}

// Qwen/Qwen3-VL-30B-A3B-Instruct names only its size; its language model has Qwen3-30B-A3B's shape,
// whose card prints "30.5B in total and 3.3B activated" (3.35B cut at its first decimal).
TEST(ModelTypes, QwenThreeVlThirtyBAThreeB) {
  const ModelSpec spec = load_model(real_config("qwen3-vl-30b-a3b"));
  EXPECT_EQ(spec.model_type, "qwen3_vl_moe");
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total, {30.5 * kB, 0.1 * kB}));
  EXPECT_TRUE(truncates_to(c.active, {3.3 * kB, 0.1 * kB}));
  EXPECT_GT(c.vision, 0);
}

// nvidia/Nemotron-H-56B-Base-8K (model card and Nemotron-H report, arXiv 2504.03624, which name
// it 56B). Its real config holds `"time_step_limit": [0.0, Infinity]`, as Python's json writes it.
// hybrid_override_pattern: 54 Mamba-2 layers, 10 attention, 54 MLP. By hand from the config:
// Mamba-2 inner 256 x 64 = 16384, conv 16384 + 2 x 8 x 256 = 20480; in_proj 8192 x (16384 + 20480
// + 256), conv1d 20480 x 4 + bias 20480, dt_bias/A_log/D 3 x 256, norm 16384, out_proj 16384 x
// 8192: 438,424,320 per layer; attention q/o 2 x 8192 x 8192 + k/v 2 x 8192 x 1024 =
// 150,994,944; MLP up/down 2 x 8192 x 32768 = 536,870,912; a norm of 8192 per layer, the final
// norm, embedding and head 2 x 131072 x 8192.
TEST(ModelTypes, NemotronHFiftySixB) {
  const ModelSpec spec = load_model(real_config("nemotron-h-56b"));
  EXPECT_EQ(spec.model_type, "nemotron_h");
  EXPECT_EQ(spec.count_mixer(MixerKind::mamba), 54);
  EXPECT_EQ(spec.count_mixer(MixerKind::attention), 10);
  EXPECT_EQ(spec.count_mlp(MlpKind::dense), 54);
  const ParamCounts c = count_params(spec);
  const int64_t expected = 54 * int64_t{438424320} + 10 * int64_t{150994944} + 54 * int64_t{536870912} +
                           119 * int64_t{8192} + 2 * int64_t{131072} * 8192;
  EXPECT_EQ(c.total, expected);
  EXPECT_TRUE(matches_card(c.total, {56 * kB, 1 * kB}));
  EXPECT_EQ(c.active, c.total);  // dense: every weight is used by every token
  const std::vector<TensorInfo> tensors = tensor_inventory(spec);
  const TensorInfo* in_proj = find_tensor(tensors, "backbone.layers.0.mixer.in_proj.weight");
  ASSERT_NE(in_proj, nullptr);
  EXPECT_EQ(in_proj->shape, (std::vector<int64_t>{16384 + 20480 + 256, 8192}));
  EXPECT_NE(find_tensor(tensors, "backbone.layers.7.mixer.q_proj.weight"), nullptr);  // "M-M-M-M*": layer 7
}

// A pattern of another length than num_hidden_layers is one line naming both keys.
TEST(ModelTypes, NemotronHPatternContradictingLayersIsRefused) {
  const std::string text = R"({"model_type": "nemotron_h", "num_hidden_layers": 3, "hidden_size": 64,
    "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
    "hybrid_override_pattern": "M-", "mamba_num_heads": 4, "mamba_head_dim": 16, "n_groups": 1,
    "ssm_state_size": 16, "conv_kernel": 4})";
  EXPECT_LADLE_ERROR(parse_config(text, "h.json", "h"), input,
                     "hybrid_override_pattern: has 2 layers but num_hidden_layers is 3");
  std::string moe = text;
  moe.replace(moe.find("\"M-\""), 4, "\"M-E\"");
  EXPECT_LADLE_ERROR(parse_config(moe, "h.json", "h"), input, "layer 2 is 'E', a MoE layer");
}

// nvidia/Llama-3_3-Nemotron-Super-49B-v1: the card names it 49B and prints no finer figure; the
// count, 49,867,145,216, cuts to it. By hand from block_configs: 49 of 80 layers with attention
// (64 heads, 8 kv heads of 128), 31 with no_op attention; every MLP present, of width
// round_up(int(2 x ffn_mult x 8192 / 3), 256): ffn_mult 5.25 -> 28672, 1.3125 -> 7168, 0.5 -> 2816.
TEST(ModelTypes, NemotronNasSuperFortyNineB) {
  const ModelSpec spec = load_model(real_config("llama-3.3-nemotron-super-49b"));
  EXPECT_EQ(spec.model_type, "nemotron-nas");
  EXPECT_EQ(spec.count_mixer(MixerKind::attention), 49);
  EXPECT_EQ(spec.count_mixer(MixerKind::none), 31);
  EXPECT_EQ(spec.count_mlp(MlpKind::none), 0);
  int widths_28672 = 0;
  int widths_7168 = 0;
  int widths_2816 = 0;
  for (int i = 0; i < spec.num_layers; ++i) {
    widths_28672 += spec.ffn_of(i) == 28672 ? 1 : 0;
    widths_7168 += spec.ffn_of(i) == 7168 ? 1 : 0;
    widths_2816 += spec.ffn_of(i) == 2816 ? 1 : 0;
  }
  EXPECT_EQ(widths_28672, 49);
  EXPECT_EQ(widths_7168, 10);
  EXPECT_EQ(widths_2816, 6);
  const ParamCounts c = count_params(spec);
  EXPECT_EQ(c.total, 49867145216);
  EXPECT_TRUE(truncates_to(c.total, {49 * kB, 1 * kB}));
  // A layer without attention has no input_layernorm and no q/k/v/o.
  const std::vector<TensorInfo> tensors = tensor_inventory(spec);
  int attention_norms = 0;
  for (const TensorInfo& t : tensors) attention_norms += t.name.ends_with("input_layernorm.weight") ? 1 : 0;
  EXPECT_EQ(attention_norms, 49);
}

TEST(ModelTypes, NemotronNasBlockConfigsContradictingLayersIsRefused) {
  const std::string text = R"({"model_type": "nemotron-nas", "num_hidden_layers": 2, "hidden_size": 64,
    "vocab_size": 100, "num_attention_heads": 4, "block_configs": [
    {"attention": {"n_heads_in_group": 2, "no_op": false}, "ffn": {"ffn_mult": 1.0, "no_op": false}}]})";
  EXPECT_LADLE_ERROR(parse_config(text, "n.json", "n"), input,
                     "block_configs: has 1 entries but num_hidden_layers is 2");
  std::string linear = text;
  linear.replace(linear.find("\"num_hidden_layers\": 2"), 22, "\"num_hidden_layers\": 1");
  const std::string attention = R"("n_heads_in_group": 2, "no_op": false)";
  linear.replace(linear.find(attention), attention.size(), R"("replace_with_linear": true)");
  EXPECT_LADLE_ERROR(parse_config(linear, "n.json", "n"), input, "entry 0 sets attention.replace_with_linear");
}

// Qwen/Qwen3.5-35B-A3B: the card prints 35B in total and 3B activated; the text model counts
// 34.66B with 3.45B active (A3B: active cut at the billion), the vision tower 0.45B beside it.
// 30 of 40 layers are Gated DeltaNet, stored as four projections (in_proj_qkv, in_proj_z,
// in_proj_b, in_proj_a) of Qwen3-Next's two shapes.
TEST(ModelTypes, QwenThreeFiveThirtyFiveBAThreeB) {
  const ModelSpec spec = load_model(real_config("qwen3.5-35b-a3b"));
  EXPECT_EQ(spec.model_type, "qwen3_5_moe");
  EXPECT_EQ(spec.count_linear_attention(), 30);
  EXPECT_EQ(spec.num_mtp_layers, 1);
  const ParamCounts c = count_params(spec);
  EXPECT_TRUE(matches_card(c.total + c.vision, {35 * kB, 1 * kB}));
  EXPECT_TRUE(truncates_to(c.active, {3 * kB, 1 * kB}));
  const std::vector<TensorInfo> tensors = tensor_inventory(spec);
  const TensorInfo* qkv = find_tensor(tensors, "model.layers.0.linear_attn.in_proj_qkv.weight");
  ASSERT_NE(qkv, nullptr);
  // 2 x 16 key heads x 128 + 32 value heads x 128.
  EXPECT_EQ(qkv->shape, (std::vector<int64_t>{2 * 16 * 128 + 32 * 128, 2048}));
  EXPECT_EQ(spec.vision.depth, 27);
  EXPECT_EQ(spec.vision.merge, 2);
}

constexpr const char* kLlama = R"({"model_type": "TYPE", "hidden_size": 64,
  "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
  "vocab_size": 100, "intermediate_size": 128, EXTRA})";

std::string llama_with(const std::string& type, const std::string& extra) {
  std::string text = kLlama;
  text.replace(text.find("TYPE"), 4, type);
  text.replace(text.find("EXTRA"), 5, extra);
  return text;
}

TEST(ModelTypes, PythonNonFiniteLiteralsAreReadInFieldsLadleDoesNotUse) {
  const ModelSpec spec = parse_config(
      llama_with("llama", R"("time_step_limit": [0.0, Infinity], "floor": -Infinity, "eps": NaN,
        "note": "Infinity NaN")"),
      "inf.json", "x");
  EXPECT_EQ(spec.hidden_size, 64);
}

TEST(ModelTypes, NonFiniteLiteralInAUsedFieldIsALocatedError) {
  EXPECT_LADLE_ERROR(parse_config(llama_with("llama", R"("rms_norm_eps": 1e-5,
    "mlp_bias": NaN)"), "inf.json", "x"),
                     input, "inf.json:4:5: error: mlp_bias: expected true or false, got NaN");
  std::string text = llama_with("llama", R"("x": 1)");
  text.replace(text.find("\"hidden_size\": 64"), 17, "\"hidden_size\": -Infinity");
  EXPECT_LADLE_ERROR(parse_config(text, "inf.json", "x"), input,
                     "inf.json:1:25: error: hidden_size: expected an integer, got -Infinity");
}

// "Did you mean" by the config's shape: a dense GQA config is not sent to mixtral, nor an MLA +
// DSA one to deepseek_v2.
TEST(ModelTypes, UnknownTypeIsMatchedByShapeNotName) {
  EXPECT_LADLE_ERROR(parse_config(llama_with("mistral9", R"("x": 1)"), "m.json", "m"), input,
                     "unsupported model_type 'mistral9'; nearest by its keys (dense attention and MLP): "
                     "gpt2, llama, mistral, phi3;");
  std::string dsa = util::read_file(real_config("deepseek-v3.2"));
  dsa.replace(dsa.find("\"deepseek_v32\""), 14, "\"deepseek_v4x\"");
  EXPECT_LADLE_ERROR(parse_config(dsa, "d.json", "d"), input,
                     "unsupported model_type 'deepseek_v4x'; nearest by its keys (multi-head latent "
                     "attention, a DeepSeek Sparse Attention indexer, routed experts, shared experts, "
                     "MTP layers): deepseek_v32, glm_moe_dsa;");
}

// DeepSeek-V3.2's config renamed deepseek_v3 would be counted without its indexers: refused at the
// first indexer key.
TEST(ModelTypes, IndexerKeysUnderATypeThatDropsThemAreRefused) {
  std::string text = util::read_file(real_config("deepseek-v3.2"));
  text.replace(text.find("\"deepseek_v32\""), 14, "\"deepseek_v3\"");
  EXPECT_LADLE_ERROR(parse_config(text, "v3.json", "v3"), input,
                     "v3.json:15:3: error: index_topk: a key of a DeepSeek Sparse Attention indexer, "
                     "which model_type 'deepseek_v3' does not read (the model would be counted without "
                     "it); types that read it: deepseek_v32, deepseek_v4, glm_moe_dsa");
}

TEST(ModelTypes, LayerPatternLongerThanTheLayersNamesBothKeys) {
  std::string text = util::read_file(real_config("olmo-3.1-32b-instruct"));
  text.replace(text.find("\"num_hidden_layers\": 64"), 23, "\"num_hidden_layers\": 60");
  EXPECT_LADLE_ERROR(parse_config(text, "o.json", "o"), input,
                     "layer_types: has 64 entries for 60 layers (num_hidden_layers 60)");
}

}  // namespace
}  // namespace ladle::model
