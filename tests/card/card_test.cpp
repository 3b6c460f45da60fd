// Megatron-Bridge verification cards: three real cards of Megatron-Bridge's repository
// (tests/data/cards/, each with its .source.txt) imported, their claims, the round trip through
// export, and a card that lacks what ladle needs.
#include "ladle/card/card.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"

namespace ladle::card {
namespace {

CardImport import_file(const std::string& name) {
  const std::string path = "tests/data/cards/" + name + ".yaml";
  return import_card(util::read_file(path), path);
}

const CardRecipe* find(const CardImport& c, const std::string& task, const std::string& hw) {
  for (const CardRecipe& r : c.recipes) {
    if (r.task == task && r.hardware == hw) return &r;
  }
  return nullptr;
}

TEST(Card, ImportsEveryVerifiedTrainingLeafThatStatesItsRun) {
  const CardImport c = import_file("moonlight-16b-a3b");
  ASSERT_EQ(c.recipes.size(), 5u);
  const CardRecipe* pretrain = find(c, "pretrain", "H100");
  ASSERT_NE(pretrain, nullptr);
  const Recipe& r = pretrain->recipe;
  EXPECT_EQ(r.gpu.type, "H100");
  EXPECT_EQ(r.gpu.count, 16);  // --nodes 2 --gpus-per-node 8
  EXPECT_EQ(r.status, "measured");
  EXPECT_EQ(pretrain->claim, "functional check");
  ASSERT_TRUE(r.result);
  EXPECT_GT(r.result->tokens_per_s_per_gpu, 0);
  EXPECT_EQ(r.result->active_params.revision.size(), 40u);
  // Every leaf that gives no recipe says why, on its own line.
  for (const std::string& s : c.skipped) EXPECT_NE(s.find("no recipe"), std::string::npos) << s;
  EXPECT_NE(std::find_if(c.skipped.begin(), c.skipped.end(),
                         [](const std::string& s) { return s.starts_with("items.inference:"); }),
            c.skipped.end());
}

TEST(Card, TokensPerSecondAndGlobalBatchAgreeWithTheCardsFormula) {
  // SKILL.md: tokens/s per GPU = row tokens x GBS / (step time x GPUs).
  for (const char* name : {"qwen3-8b", "moonlight-16b-a3b", "glm5-2"}) {
    const CardImport c = import_file(name);
    ASSERT_FALSE(c.recipes.empty()) << name;
    for (const CardRecipe& cr : c.recipes) {
      const Recipe& r = cr.recipe;
      const double step_s = static_cast<double>(r.workload.global_batch * r.workload.row_tokens) /
                            (r.result->tokens_per_s_per_gpu * static_cast<double>(r.gpu.count));
      EXPECT_GT(step_s, 0) << name << " " << cr.file_name;
      EXPECT_EQ(r.layout.tp * r.layout.pp * r.layout.cp * r.layout.dp, r.gpu.count) << name << " " << cr.file_name;
    }
  }
}

TEST(Card, RoundTripsThroughExport) {
  for (const char* name : {"qwen3-8b", "moonlight-16b-a3b", "glm5-2"}) {
    for (const CardRecipe& cr : import_file(name).recipes) {
      // The recipe survives its own file format, then a card of its leaf gives it back.
      const Recipe reread = recipe::read_recipe(recipe::write_recipe(cr.recipe), cr.file_name).recipe;
      EXPECT_EQ(reread, cr.recipe) << cr.file_name;
      const std::string exported = export_card(cr.recipe, cr.file_name);
      const CardImport again = import_card(exported, "exported.yaml");
      ASSERT_EQ(again.recipes.size(), 1u) << exported;
      EXPECT_EQ(again.recipes[0].recipe, cr.recipe) << exported;
      EXPECT_EQ(export_card(again.recipes[0].recipe, "again"), exported);
    }
  }
}

TEST(Card, SaysBenchmarkOnlyWhereTheCardDoes) {
  const std::string card = R"(title: t
model: {hf_id: org/Model-1B, hf_revision: 0123456789abcdef0123456789abcdef01234567}
verification_environment: {base_container: nvcr.io/nvidia/nemo:26.06, bridge_commit: abc}
items:
  pretrain_performance:
    H100:
      status: verified
      precision: bf16
      command: ./scripts/training/train.sh --nodes 1 --gpus-per-node 8 --seq_length 4096 --max_steps 50
      last_verified: 2026-07-01
      metrics:
        last_10_steps_step_time_ms_avg: 1000.0
        last_10_steps_model_tflops_per_gpu_avg: 400.0
        last_10_steps_tokens_per_second_per_gpu_avg: 8192.0
      expected_result: On 8x H100 at TP1/PP1/CP1/EP1/ETP1, GBS/MBS 16/1; forced balancing makes this benchmark-only evidence.
  sft:
    H100:
      status: unverified
)";
  const CardImport c = import_card(card, "inline.yaml");
  ASSERT_EQ(c.recipes.size(), 1u);
  EXPECT_EQ(c.recipes[0].claim, "benchmark-only");
  EXPECT_NE(c.recipes[0].recipe.correctness->summary.find("not convergence evidence"), std::string::npos);
  EXPECT_EQ(c.recipes[0].recipe.workload.global_batch, 16);
  EXPECT_EQ(c.skipped.back(), "items.sft.H100: status unverified: no recipe");
}

TEST(Card, AMissingFieldNamesItsLocation) {
  const std::string card = "title: t\nmodel:\n  hf_id: org/M\nverification_environment: {base_container: c, bridge_commit: b}\nitems: {}\n";
  try {
    import_card(card, "bad.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_EQ(std::string(e.what()), "bad.yaml:3:3: error: model.hf_revision: missing; ladle needs it to write a recipe");
  }
}

}  // namespace
}  // namespace ladle::card
