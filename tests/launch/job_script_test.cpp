// The launch module's pieces: shell words, the layout arguments per model and engine, bases and
// their conversion, the engine table against the knob table. Running whole jobs is jobs_test.sh.
#include "ladle/launch/job_script.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "ladle/args/launch_args.hpp"
#include "ladle/launch/base.hpp"
#include "ladle/launch/engines.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/util/shell_quote.hpp"
#include "support/test_support.hpp"

namespace ladle::launch {
namespace {

bool has(const std::vector<layout::EngineArg>& args, std::string_view flag) {
  return std::any_of(args.begin(), args.end(),
                     [&](const layout::EngineArg& a) { return a.flag == flag; });
}

TEST(ShellWord, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(util::shell_quote("1e-5"), "1e-5");
  EXPECT_EQ(util::shell_quote("/root/ckpt"), "/root/ckpt");
  EXPECT_EQ(util::shell_quote("a b"), "'a b'");
  EXPECT_EQ(util::shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(util::shell_quote("[0]*1+[1]*46"), "'[0]*1+[1]*46'");
  EXPECT_EQ(util::shell_quote(""), "''");
  // Text is text: a `$` is written literally; only ladle's own inputs are expanded.
  EXPECT_EQ(util::shell_quote("$HF_CKPT"), "'$HF_CKPT'");
  EXPECT_EQ(util::shell_quote("lit$(touch M)"), "'lit$(touch M)'");
  EXPECT_EQ(util::shell_quote("a\ntouch M"), "$'a\\ntouch M'");  // never two lines
  EXPECT_EQ(util::shell_quote("it's\t\x01\\"), "$'it\\'s\\t\\x01\\\\'");
  // For /bin/sh (a Ray entry point): always '...', newlines inside, no bash-only $'...'.
  EXPECT_EQ(util::shell_quote("plain", util::ShellQuoting::posix), "'plain'");
  EXPECT_EQ(util::shell_quote("a\nb's", util::ShellQuoting::posix), "'a\nb'\\''s'");
  EXPECT_EQ(args::variable_shell_word("$HF_CKPT"), "\"$HF_CKPT\"");
}

// The words a job gives the entry point for a user's arguments, read back by bash.
std::vector<std::string> job_words(const std::string& user_args, layout::Engine engine) {
  const ModelSpec qwen = model::load_model("qwen3-30b-a3b");
  static Base base;
  base = default_base(qwen, engine, 8192, 128);
  carry_job_args(base, layout::training_args(args::parse_launch_args(user_args, "--args")));
  JobRequest job;
  job.base = &base;
  job.model = &qwen;
  job.engine = engine;
  job.layout.dp = 8;
  job.gpus = 8;
  std::vector<std::string> words;
  for (const JobArg& a : job_args(job)) {
    for (const std::string& w : job_arg_words(a, engine)) words.push_back(w);
  }
  return words;
}

bool has_word(const std::vector<std::string>& words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

TEST(JobScript, UsersLiteralsStayLiteral) {
  const std::vector<std::string> words = job_words(
      "--wandb-project 'lit$(touch M)' --cost 'cost$5' --pw 'pa$$w' '--foo$(touch M)' --q \"it's\"",
      layout::Engine::megatron);
  EXPECT_TRUE(has_word(words, "'lit$(touch M)'"));
  EXPECT_TRUE(has_word(words, "'cost$5'"));
  EXPECT_TRUE(has_word(words, "'pa$$w'"));
  EXPECT_TRUE(has_word(words, "'--foo$(touch M)'"));
  EXPECT_TRUE(has_word(words, "'it'\\''s'"));
  EXPECT_TRUE(has_word(words, "\"$HF_CKPT\"") || has_word(words, "\"$DATA_PATH\""));  // ladle's inputs
}

TEST(JobScript, BridgeOverridesOfLiteralsStayLiteral) {
  const std::vector<std::string> words =
      job_words("--save 'ck$(touch M)pt' --load \"$CKPT\"", layout::Engine::bridge);
  EXPECT_TRUE(has_word(words, "'checkpoint.save=\"ck$(touch M)pt\"'"));  // Hydra's quotes, literal
  EXPECT_TRUE(has_word(words, "\"checkpoint.load=$CKPT\""));              // the user's variable
  // One override word cannot hold a literal `$` beside a variable.
  EXPECT_LADLE_ERROR(job_words("--data-path 'a$b' \"$DP\"", layout::Engine::bridge), input,
                     "--data-path: the values mix a literal '$' with a variable");
}

TEST(JobScript, ArgumentsThatRunCommandsAreRefused) {
  const ModelSpec qwen = model::load_model("qwen3-30b-a3b");
  Base base = default_base(qwen, layout::Engine::megatron, 8192, 128);
  EXPECT_LADLE_ERROR(
      carry_job_args(base, layout::training_args(args::parse_launch_args("--x \"$(touch M)\"", "--args"))), input,
      "--args:1:1: error: --x expands '$(touch M)' when the job runs");
  EXPECT_LADLE_ERROR(
      carry_job_args(base, layout::training_args(args::parse_launch_args("--seed 1 --y`touch M`", "job.sh")),
                     "job.sh"),
      input, "job.sh:1:10: error: '--y`touch M`' expands '`touch M`'");
}

TEST(JobScript, HeaderCommentsStayOneLine) {
  const ModelSpec qwen = model::load_model("qwen3-30b-a3b");
  Base base = default_base(qwen, layout::Engine::megatron, 8192, 128);
  base.name = "evil\ntouch M\n";
  JobRequest job;
  job.base = &base;
  job.model = &qwen;
  job.layout.dp = 8;
  job.gpus = 8;
  job.slurm = true;
  job.time_limit = "1:00\ntouch T";
  job.title = "title\rtouch R";
  const std::string script = job_script(job);
  EXPECT_EQ(script.find("\ntouch"), std::string::npos) << script.substr(0, 400);
  EXPECT_EQ(script.find('\r'), std::string::npos);
  EXPECT_NE(script.find("base: $'evil\\ntouch M\\n' (no job or recipe was given)."), std::string::npos);
}

// The rows that apply only to models with experts (the rows' `experts`) write nothing for a dense
// model, even away from their defaults; a MoE model gets them.
TEST(JobLayoutArgs, DenseModelsGetNoMoeArguments) {
  const ModelSpec dense = model::load_model("llama-3.1-8b");
  Layout l;
  l.tp = 2;
  l.dp = 4;
  l.dispatcher = MoeDispatcher::flex;
  l.permute_fusion = true;
  l.capacity = 1.5;
  for (layout::Engine engine : {layout::Engine::slime, layout::Engine::megatron}) {
    for (const layout::EngineArg& arg : job_layout_args(l, dense, engine, 8192)) {
      EXPECT_FALSE(arg.flag.rfind("--moe-", 0) == 0 || arg.flag.rfind("--expert-", 0) == 0)
          << arg.flag;
      EXPECT_FALSE(arg.knob != nullptr && arg.knob->experts) << arg.flag;
    }
    EXPECT_TRUE(has(job_layout_args(l, dense, engine, 8192), "--tensor-model-parallel-size"));
  }
  const ModelSpec moe = model::load_model("qwen3-30b-a3b");
  const std::vector<layout::EngineArg> moe_args = job_layout_args(l, moe, layout::Engine::megatron, 8192);
  for (const char* flag : {"--expert-model-parallel-size", "--expert-tensor-parallel-size", "--moe-token-dispatcher-type",
                           "--moe-permute-fusion", "--moe-expert-capacity-factor"}) {
    EXPECT_TRUE(has(moe_args, flag)) << flag;
  }
}

// The arguments of a job planned over a user's job, decided by row data: a companion value the
// engine's layout arguments do not write (slime: --seq-length) is the job's; a switch Megatron-LM
// sets itself under BF16 (bf16_default) stays out when the job left it out; FP8 adds engines.yaml's
// precision flags once, unless the job gives their format.
std::vector<JobArg> over_job(const std::string& script, layout::Engine engine, const std::string& precision,
                             Layout layout = {}) {
  static const ModelSpec qwen = model::load_model("qwen3-30b-a3b");
  static Base base;
  const args::LaunchArgs launch = args::parse_launch_args(script, "job.sh");
  Workload w;
  w.row_tokens = 4096;
  w.global_batch = 64;
  base = base_from_job(launch, engine, engine, "job.sh", w);
  JobRequest job;
  job.base = &base;
  job.model = &qwen;
  job.engine = engine;
  job.precision = precision;
  job.layout = layout;
  job.layout.dp = 8;
  job.gpus = 8;
  return job_args(job);
}

size_t count_flag(const std::vector<JobArg>& args, std::string_view flag) {
  return static_cast<size_t>(std::count_if(args.begin(), args.end(), [&](const JobArg& a) { return a.flag == flag; }));
}

const JobArg* find_flag(const std::vector<JobArg>& args, std::string_view flag) {
  for (const JobArg& a : args) {
    if (a.flag == flag) return &a;
  }
  return nullptr;
}

TEST(JobArgs, RowDataDecidesTheArgumentsOverAUsersJob) {
  const std::vector<JobArg> slime =
      over_job("python3 train.py --tensor-model-parallel-size 2 --seq-length 2048", layout::Engine::slime, "bf16");
  ASSERT_NE(find_flag(slime, "--seq-length"), nullptr);
  EXPECT_EQ(find_flag(slime, "--seq-length")->values, std::vector<std::string>{"2048"});
  EXPECT_EQ(count_flag(slime, "--accumulate-allreduce-grads-in-fp32"), 0u);
  // Megatron-LM writes --seq-length itself (the workload's row tokens), once.
  const std::vector<JobArg> megatron = over_job(
      "torchrun pretrain_gpt.py --tensor-model-parallel-size 2 --seq-length 2048", layout::Engine::megatron, "bf16");
  EXPECT_EQ(count_flag(megatron, "--seq-length"), 1u);
  EXPECT_EQ(find_flag(megatron, "--seq-length")->values, std::vector<std::string>{"4096"});
  // A job that gave the switch keeps it.
  const std::vector<JobArg> kept = over_job(
      "torchrun pretrain_gpt.py --tensor-model-parallel-size 2 --accumulate-allreduce-grads-in-fp32",
      layout::Engine::megatron, "bf16");
  EXPECT_EQ(count_flag(kept, "--accumulate-allreduce-grads-in-fp32"), 1u);
  // FP8: the format and recipe once; a layout that sets the format keeps its own.
  const std::vector<JobArg> fp8 =
      over_job("torchrun pretrain_gpt.py --tensor-model-parallel-size 2", layout::Engine::megatron, "fp8");
  EXPECT_EQ(count_flag(fp8, "--fp8-format"), 1u);
  EXPECT_EQ(count_flag(fp8, "--fp8-recipe"), 1u);
  Layout e4m3;
  e4m3.fp8 = Fp8Format::e4m3;
  const std::vector<JobArg> own = over_job("torchrun pretrain_gpt.py --tensor-model-parallel-size 2 --fp8-format e4m3",
                                           layout::Engine::megatron, "fp8", e4m3);
  ASSERT_EQ(count_flag(own, "--fp8-format"), 1u);
  EXPECT_EQ(find_flag(own, "--fp8-format")->values, std::vector<std::string>{"e4m3"});
  EXPECT_EQ(count_flag(own, "--fp8-recipe"), 0u);
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
  EXPECT_FALSE(
      has(job_layout_args(l, model::load_model("qwen3-30b-a3b"), layout::Engine::slime, 8192),
          "--allgather-cp"));
}

TEST(Base, TheCatalogRecipeOfTheFamilyElseTheEnginesDefaults) {
  const ModelSpec glm = model::load_model("glm-5.2");
  const Base slime = resolve_base("", glm, layout::Engine::slime, 8192, 128);
  EXPECT_TRUE(slime.from_recipe);
  EXPECT_EQ(slime.name, "glm-5.2-744b-a40b/h200/attune-tp4-pp4");
  EXPECT_TRUE(slime.sft);
  for (const args::LaunchArg& arg : slime.args)
    EXPECT_FALSE(is_layout_flag(arg.flag)) << arg.flag;
  const Base megatron = resolve_base("", glm, layout::Engine::megatron, 8192, 128);
  EXPECT_FALSE(megatron.from_recipe);
  EXPECT_EQ(megatron.name, "ladle defaults (megatron)");
  EXPECT_TRUE(std::any_of(megatron.args.begin(), megatron.args.end(),
                          [](const args::LaunchArg& a) { return a.flag == "--train-iters"; }));
}

TEST(Base, BadBasesAreRejected) {
  const ModelSpec glm = model::load_model("glm-5.2");
  EXPECT_LADLE_ERROR(resolve_base("attune-tp4-pp5", glm, layout::Engine::slime, 8192, 128), usage,
                     "did you mean 'attune-tp4-pp4'?");
  EXPECT_LADLE_ERROR(
      resolve_base("attune-tp4-pp4", glm, layout::Engine::megatron, 8192, 128), input,
      "recipes/glm-5.2-744b-a40b/h200/attune-tp4-pp4.yaml:119: error: run: the base drives slime");
}

// A Megatron-Bridge job of `model` on `gpus` GPUs from `base`.
JobRequest bridge_job(const Base& base, const ModelSpec& model, int64_t gpus) {
  JobRequest job;
  job.base = &base;
  job.model = &model;
  job.engine = layout::Engine::bridge;
  job.gpus = gpus;
  return job;
}

TEST(Base, BridgeNeedsALibraryRecipeOfTheModel) {
  // Megatron-Bridge's run_recipe.py selects a library recipe; GLM-4.7-Flash has none (GLM-4.5's
  // are another architecture), and its AutoBridge path is Python, not a run_recipe.py selection.
  const ModelSpec flash = model::load_model("glm-4.7-flash");
  const Base base = resolve_base("", flash, layout::Engine::bridge, 8192, 128);
  EXPECT_LADLE_ERROR(job_args(bridge_job(base, flash, 8)), input,
                     "Megatron-Bridge has no library recipe listed for model 'glm-4.7-flash'");
}

TEST(Base, BridgeTakesACompleteRecipeFunctionWholeAndClearsItsPipelineLayout) {
  // GLM-5.2 has only complete recipe functions in Megatron-Bridge (recipes/glm/h100/glm5.py),
  // which pin a pipeline layout for their own PP 13.
  const ModelSpec glm = model::load_model("glm-5.2");
  const Base base = resolve_base("", glm, layout::Engine::bridge, 8192, 128);
  JobRequest job = bridge_job(base, glm, 128);
  job.layout.tp = 8;
  job.layout.pp = 4;
  job.layout.ep = 32;
  job.layout.dp = 4;
  const std::string line = job_args_line(job);
  EXPECT_EQ(line.rfind("--recipe glm52_pretrain_416gpu_h100_bf16_config --mode pretrain "
                       "model.pipeline_model_parallel_layout=null ",
                       0),
            0u)
      << line;
  EXPECT_NE(line.find("model.pipeline_model_parallel_size=4"), std::string::npos) << line;
  job.layout.pipeline_layout = "Et*3|(tt|)*29m|L";
  EXPECT_EQ(job_args_line(job).find("=null"), std::string::npos);
}

TEST(Base, AUsersArgumentsThatSetNoKnobReachTheJobVerbatim) {
  const ModelSpec flash = model::load_model("glm-4.7-flash");
  Base base = default_base(flash, layout::Engine::megatron, 8192, 128);
  const args::LaunchArgs user = args::parse_launch_args(
      "torchrun --nproc-per-node 8 pretrain_gpt.py --seed 1234 --lr 3e-4 "
      "--data-path /data/my_text_document --tensor-model-parallel-size 4 \"${EXTRA[@]}\"",
      "--args");
  carry_job_args(base, layout::training_args(user));
  JobRequest job;
  job.base = &base;
  job.model = &flash;
  job.layout.tp = 2;
  job.layout.ep = 4;
  job.layout.dp = 4;
  job.gpus = 8;
  const std::vector<JobArg> args = job_args(job);
  auto values = [&](std::string_view flag) {
    std::vector<std::vector<std::string>> out;
    for (const JobArg& a : args) {
      if (a.flag == flag) out.push_back(a.values);
    }
    return out;
  };
  using Values = std::vector<std::vector<std::string>>;
  EXPECT_EQ(values("--seed"), (Values{{"1234"}}));  // appended
  EXPECT_EQ(values("--lr"), (Values{{"3e-4"}}));    // the base's replaced, not repeated
  EXPECT_EQ(values("--data-path"), (Values{{"/data/my_text_document"}}));
  EXPECT_EQ(values("--tensor-model-parallel-size"),
            (Values{{"2"}}));                       // the layout's, not the user's
  EXPECT_TRUE(values("--nproc-per-node").empty());  // torchrun's own
  EXPECT_TRUE(values("${EXTRA[@]}").empty());       // the user's array
  EXPECT_NE(job_args_line(job).find("--seed 1234"), std::string::npos);
}

TEST(EngineTable, HasEveryEngine) {
  for (const char* engine : {"slime", "miles", "megatron", "bridge"})
    EXPECT_TRUE(engine_table().engines.count(engine)) << engine;
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
