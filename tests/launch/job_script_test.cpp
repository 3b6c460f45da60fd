// The launch module's pieces: shell words, the layout arguments per model and engine, bases and
// their conversion, the engine table against the knob table. Running whole jobs is jobs_test.sh.
#include "ladle/launch/job_script.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "ladle/launch/base.hpp"
#include "ladle/launch/engines.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/model/catalog.hpp"
#include "support/test_support.hpp"

namespace ladle::launch {
namespace {

bool has(const std::vector<layout::EngineArg>& args, std::string_view flag) {
  return std::any_of(args.begin(), args.end(), [&](const layout::EngineArg& a) { return a.flag == flag; });
}

TEST(ShellWord, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(shell_word("1e-5"), "1e-5");
  EXPECT_EQ(shell_word("/root/ckpt"), "/root/ckpt");
  EXPECT_EQ(shell_word("$HF_CKPT"), "\"$HF_CKPT\"");
  EXPECT_EQ(shell_word("a b"), "'a b'");
  EXPECT_EQ(shell_word("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_word("[0]*1+[1]*46"), "'[0]*1+[1]*46'");
  EXPECT_EQ(shell_word(""), "''");
}

TEST(JobLayoutArgs, DenseModelsGetNoMoeArguments) {
  const ModelSpec dense = model::load_model("llama-3.1-8b");
  Layout l;
  l.tp = 2;
  l.dp = 4;
  for (layout::Engine engine : {layout::Engine::slime, layout::Engine::megatron}) {
    for (const layout::EngineArg& arg : job_layout_args(l, dense, engine, 8192)) {
      EXPECT_FALSE(arg.flag.rfind("--moe-", 0) == 0 || arg.flag.rfind("--expert-", 0) == 0) << arg.flag;
    }
  }
  const ModelSpec moe = model::load_model("qwen3-30b-a3b");
  EXPECT_TRUE(has(job_layout_args(l, moe, layout::Engine::megatron, 8192), "--expert-model-parallel-size"));
}

TEST(JobLayoutArgs, ContextParallelDsaModelsGetAllgatherCpOnSlime) {
  const ModelSpec glm = model::load_model("glm-5.2");
  Layout l;
  l.cp = 2;
  l.dp = 4;
  EXPECT_TRUE(has(job_layout_args(l, glm, layout::Engine::slime, 8192), "--allgather-cp"));
  EXPECT_FALSE(has(job_layout_args(l, glm, layout::Engine::megatron, 8192), "--allgather-cp"));
  l.cp = 1;
  EXPECT_FALSE(has(job_layout_args(l, glm, layout::Engine::slime, 8192), "--allgather-cp"));
  l.cp = 2;
  EXPECT_FALSE(has(job_layout_args(l, model::load_model("qwen3-30b-a3b"), layout::Engine::slime, 8192), "--allgather-cp"));
}

TEST(Base, TheCatalogRecipeOfTheFamilyElseTheEnginesDefaults) {
  const ModelSpec glm = model::load_model("glm-5.2");
  const Base slime = resolve_base("", glm, layout::Engine::slime, 8192, 128);
  EXPECT_TRUE(slime.from_recipe);
  EXPECT_EQ(slime.name, "glm-5.2-744b-a40b/h200/attune-tp4-pp4");
  EXPECT_TRUE(slime.sft);
  for (const recipe::LaunchArg& arg : slime.args) EXPECT_FALSE(is_layout_flag(arg.flag)) << arg.flag;
  const Base megatron = resolve_base("", glm, layout::Engine::megatron, 8192, 128);
  EXPECT_FALSE(megatron.from_recipe);
  EXPECT_EQ(megatron.name, "ladle defaults (megatron)");
  EXPECT_TRUE(std::any_of(megatron.args.begin(), megatron.args.end(),
                          [](const recipe::LaunchArg& a) { return a.flag == "--train-iters"; }));
}

TEST(Base, BadBasesAreRejected) {
  const ModelSpec glm = model::load_model("glm-5.2");
  EXPECT_LADLE_ERROR(resolve_base("attune-tp4-pp5", glm, layout::Engine::slime, 8192, 128), usage,
                     "did you mean 'attune-tp4-pp4'?");
  EXPECT_LADLE_ERROR(resolve_base("attune-tp4-pp4", glm, layout::Engine::megatron, 8192, 128), input,
                     "recipes/glm-5.2-744b-a40b/h200/attune-tp4-pp4.yaml:119: error: run: the base drives slime");
}

TEST(Base, BridgeNeedsALibraryRecipeOfTheModel) {
  const ModelSpec glm = model::load_model("glm-5.2");
  const Base base = resolve_base("", glm, layout::Engine::bridge, 8192, 128);
  JobRequest job;
  job.base = &base;
  job.model = &glm;
  job.engine = layout::Engine::bridge;
  job.gpus = 8;
  EXPECT_LADLE_ERROR(job_args(job), input, "Megatron-Bridge has no library recipe listed for model 'glm-5.2'");
}

// data/launch/engines.yaml reads Bridge overrides back as flags; where a knob of the knob table has
// a Bridge override, the two must agree, so that a job is read as it was written.
TEST(EngineTable, BridgeSpellingsAgreeWithTheKnobTable) {
  const EngineTable& table = engine_table();
  for (const layout::Knob& knob : layout::kKnobs) {
    if (knob.bridge.empty()) continue;
    for (const layout::KnobArg& arg : knob.args) {
      if (const BridgeKey* key = table.bridge_key(std::string(arg.flag))) {
        EXPECT_EQ(key->key, knob.bridge) << arg.flag;
      }
    }
  }
  for (const char* engine : {"slime", "miles", "megatron", "bridge"}) EXPECT_TRUE(table.engines.count(engine)) << engine;
}

TEST(JobScript, ScriptsNameTheirInputsFirstAndCarryFp8Flags) {
  const ModelSpec qwen = model::load_model("qwen3-30b-a3b");
  const Base base = resolve_base("", qwen, layout::Engine::megatron, 8192, 128);
  JobRequest job;
  job.base = &base;
  job.model = &qwen;
  job.layout.tp = 2;
  job.layout.ep = 8;
  job.layout.dp = 8;
  job.engine = layout::Engine::megatron;
  job.gpus = 16;
  job.precision = "fp8";
  job.slurm = true;
  job.title = "test";
  const std::string script = job_script(job);
  EXPECT_EQ(script.rfind("#!/bin/bash\n#SBATCH --job-name=", 0), 0u);
  EXPECT_NE(script.find("#SBATCH --nodes=2\n"), std::string::npos);
  EXPECT_NE(script.find("need MEGATRON_DIR dir"), std::string::npos);
  EXPECT_LT(script.find("need DATA_PATH prefix"), script.find("torchrun"));
  EXPECT_NE(script.find("srun --nodes=2 --ntasks-per-node=1"), std::string::npos);
  EXPECT_NE(script.find("--fp8-format hybrid"), std::string::npos);
  EXPECT_NE(script.find("--fp8-recipe tensorwise"), std::string::npos);
  EXPECT_NE(script.find("--bf16"), std::string::npos);
}

}  // namespace
}  // namespace ladle::launch
