// The GPT-2 model type and the GPT-3-style models of Megatron-LM's papers: parameter counts against
// the papers' own formula and published sizes, FLOPs, tensors and the config's bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ladle/model/catalog.hpp"
#include "ladle/model/config_json.hpp"
#include "ladle/model/flops.hpp"
#include "ladle/model/params.hpp"
#include "ladle/model/tensor_inventory.hpp"
#include "ladle/util/error.hpp"

namespace ladle::model {
namespace {

struct PaperModel {
  const char* model;  // embedded short name
  int64_t heads;
  int64_t hidden;
  int64_t layers;
  double published_billions;  // the size the paper prints
  double half_unit;           // half the unit it rounds to (0.05 for one decimal)
};

// Narayanan et al. 2021 (arXiv 2104.04473) Table 1, and Korthikanti et al. 2022 (arXiv
// 2205.05198) Table 3's 22B and 175B; every model has V = 51,200 and s = 2,048.
const PaperModel kPaperModels[] = {
    {"gpt3-1.7b", 24, 2304, 24, 1.7, 0.05},      {"gpt3-3.6b", 32, 3072, 30, 3.6, 0.05},
    {"gpt3-7.5b", 32, 4096, 36, 7.5, 0.05},      {"gpt3-18.4b", 48, 6144, 40, 18.4, 0.05},
    {"gpt3-22b", 64, 6144, 48, 22.0, 0.5},       {"gpt3-39.1b", 64, 8192, 48, 39.1, 0.05},
    {"gpt3-76.1b", 80, 10240, 60, 76.1, 0.05},   {"gpt3-145.6b", 96, 12288, 80, 145.6, 0.05},
    {"gpt3-175b", 96, 12288, 96, 174.6, 0.05},   {"gpt3-310.1b", 128, 16384, 96, 310.1, 0.05},
    {"gpt3-530b", 128, 20480, 105, 529.6, 0.05}, {"gpt3-1t", 160, 25600, 128, 1008.0, 0.05},
};

constexpr int64_t kVocab = 51200;
constexpr int64_t kSeq = 2048;

TEST(Gpt, EmbeddedShapesAreThePapers) {
  for (const PaperModel& p : kPaperModels) {
    const ModelSpec spec = load_model(p.model);
    EXPECT_EQ(spec.model_type, "gpt2") << p.model;
    EXPECT_EQ(spec.num_heads, p.heads) << p.model;
    EXPECT_EQ(spec.hidden_size, p.hidden) << p.model;
    EXPECT_EQ(spec.num_layers, p.layers) << p.model;
    EXPECT_EQ(spec.vocab_size, kVocab) << p.model;
    EXPECT_EQ(spec.position_embeddings, kSeq) << p.model;
    EXPECT_EQ(spec.intermediate_size, 4 * p.hidden) << p.model;
    EXPECT_TRUE(spec.tie_word_embeddings) << p.model;
  }
}

// Narayanan et al. 2021, sec. 5.1, equation (2): P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)),
// i.e. 12 l h^2 + 13 l h + (V + s) h: per layer the fused QKV and output projections with their
// biases (4h^2 + 4h), the 4h MLP with biases (8h^2 + 5h) and two LayerNorms (4h); the tied
// embedding and the learned positions. The paper leaves out the final LayerNorm (2h).
TEST(Gpt, TotalIsThePapersParameterFormulaPlusTheFinalNorm) {
  for (const PaperModel& p : kPaperModels) {
    const ModelSpec spec = load_model(p.model);
    const int64_t h = p.hidden;
    const int64_t l = p.layers;
    const int64_t formula = 12 * l * h * h + 13 * l * h + (kVocab + kSeq) * h;
    const ParamCounts counts = count_params(spec);
    EXPECT_EQ(counts.total, formula + 2 * h) << p.model;
    // The size each table prints, to the unit it rounds to (Korthikanti et al. print "22B").
    EXPECT_NEAR(static_cast<double>(counts.total) / 1e9, p.published_billions, p.half_unit)
        << p.model;
    // The same formula in the paper's floating-point form.
    const double hd = static_cast<double>(h);
    const double ld = static_cast<double>(l);
    const double eq2 =
        12.0 * ld * hd * hd *
        (1.0 + 13.0 / (12.0 * hd) + static_cast<double>(kVocab + kSeq) / (12.0 * ld * hd));
    EXPECT_NEAR(static_cast<double>(formula), eq2, 1e-9 * eq2) << p.model;
  }
}

// GPT-3 175B: Brown et al. 2020 (arXiv 2005.14165) Table 2.1 prints 175.0B for n_layers 96,
// d_model 12,288, 96 heads; with Megatron-LM's padded vocabulary the count is 174.6B, the figure
// Narayanan et al. 2021 Table 2 prints.
TEST(Gpt, Gpt3175bIsTheGpt3PapersSize) {
  const ParamCounts counts = count_params(load_model("gpt3-175b"));
  EXPECT_EQ(counts.total, 174'615'846'912);
  EXPECT_NEAR(static_cast<double>(counts.total) / 175.0e9, 1.0, 0.003);
  // Both embedding tables: 51,200 token rows and 2,048 positions of 12,288.
  EXPECT_EQ(counts.embedding, (kVocab + kSeq) * 12288);
  // N counts the matrices a token multiplies: 12 l h^2 and the tied head, no position lookup.
  EXPECT_EQ(counts.n, 12LL * 96 * 12288 * 12288 + kVocab * 12288);
}

// The GEMM FLOPs per token, 2 x (12 l h^2 + V h) forward, are equation (3)'s 24 l h^2 + 2 V h
// per token and per pass (Narayanan et al. 2021, sec. 5.1, without its s/(6h) attention term,
// which counts the full s x s square where ladle counts the causal half).
TEST(Gpt, MatmulFlopsAreThePapersGemmTerms) {
  const ModelSpec spec = load_model("gpt3-175b");
  const FlopsPerToken f = flops_per_token(spec, kSeq);
  const double h = 12288.0;
  const double l = 96.0;
  EXPECT_DOUBLE_EQ(f.matmul_forward, 24.0 * l * h * h + 2.0 * static_cast<double>(kVocab) * h);
  // Causal attention: 2 x heads x (2 x head_dim) x (s + 1) / 2 per token and layer.
  EXPECT_DOUBLE_EQ(f.attention_forward, l * 2.0 * 96.0 * 256.0 * (kSeq + 1) / 2.0);
  ASSERT_EQ(f.by_kind.size(), 2u);
  EXPECT_EQ(f.by_kind[0].kind, "gqa+dense");
}

TEST(Gpt, TensorsAreGpt2sWithTheirSplits) {
  ModelSpec spec = load_model("gpt3-1.7b");
  const std::vector<TensorInfo> tensors = tensor_inventory(spec);
  // wte, wpe; 12 per block; ln_f weight and bias; no lm_head (tied).
  ASSERT_EQ(tensors.size(), 2u + 12u * 24u + 2u);
  EXPECT_EQ(tensors[0].name, "transformer.wte.weight");
  EXPECT_EQ(tensors[0].split, TensorSplit::vocab);
  EXPECT_EQ(tensors[1].name, "transformer.wpe.weight");
  EXPECT_EQ(tensors[1].shape, (std::vector<int64_t>{2048, 2304}));
  EXPECT_EQ(tensors[1].split, TensorSplit::replicated);
  const TensorInfo& qkv = tensors[2 + 2];
  EXPECT_EQ(qkv.name, "transformer.h.0.attn.c_attn.weight");
  EXPECT_EQ(qkv.shape, (std::vector<int64_t>{3 * 2304, 2304}));
  EXPECT_EQ(qkv.split, TensorSplit::tp_column);
  const TensorInfo& fc2 = tensors[2 + 10];
  EXPECT_EQ(fc2.name, "transformer.h.0.mlp.c_proj.weight");
  EXPECT_EQ(fc2.shape, (std::vector<int64_t>{2304, 4 * 2304}));
  EXPECT_EQ(fc2.split, TensorSplit::tp_row);
  EXPECT_EQ(tensors.back().name, "transformer.ln_f.bias");
  // Two matrices in the MLP, not SwiGLU's three.
  int mlp_matrices = 0;
  for (const TensorInfo& t : tensors) {
    if (t.layer == 0 && t.role == TensorRole::dense_mlp && t.is_matrix()) ++mlp_matrices;
  }
  EXPECT_EQ(mlp_matrices, 2);
  // An untied head adds lm_head and V x h parameters.
  const int64_t tied = count_params(spec).total;
  spec.tie_word_embeddings = false;
  EXPECT_EQ(tensor_inventory(spec).back().name, "lm_head.weight");
  EXPECT_EQ(count_params(spec).total, tied + kVocab * 2304);
}

// GPT-2 small as Hugging Face publishes it (openai-community/gpt2 config.json: n_embd 768,
// n_layer 12, n_head 12, n_positions 1024, vocab_size 50257, n_inner null): 124,439,808
// parameters, the count transformers reports for GPT2Model.
TEST(Gpt, ReadsHuggingFaceGpt2Config) {
  const ModelSpec spec = parse_config(R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12,
      "n_head": 12, "n_positions": 1024, "vocab_size": 50257, "n_inner": null,
      "activation_function": "gelu_new"})",
                                      "gpt2.json", "gpt2");
  EXPECT_EQ(spec.intermediate_size, 3072);
  EXPECT_TRUE(spec.tie_word_embeddings);
  EXPECT_FALSE(spec.gated_mlp);
  EXPECT_TRUE(spec.norm_bias);
  EXPECT_EQ(count_params(spec).total, 124'439'808);
}

std::string error_of(const std::string& json) {
  try {
    parse_config(json, "bad.json", "bad");
  } catch (const Error& e) {
    return e.describe();
  }
  return "no error";
}

TEST(Gpt, BadConfigsNameTheField) {
  const std::string base =
      R"("model_type": "gpt2", "n_layer": 2, "n_positions": 64, "vocab_size": 100)";
  EXPECT_NE(error_of("{" + base + R"(, "n_embd": 64})").find("n_head: missing required field"),
            std::string::npos);
  EXPECT_NE(
      error_of("{" + base + R"(, "n_embd": 64, "n_head": 3})").find("not divisible by n_head 3"),
      std::string::npos);
  EXPECT_NE(error_of("{" + base + R"(, "n_embd": 64, "n_head": 4, "activation_function": "swish"})")
                .find("activation_function: unknown activation 'swish'"),
            std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "vocab_size": 100})")
          .find("n_positions: missing required field"),
      std::string::npos);
}

}  // namespace
}  // namespace ladle::model
