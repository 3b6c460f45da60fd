// Tests of the trial script: run length, the stand-in engine, the stack prologue's lines.
#include "ladle/tune/trial_script.hpp"

#include "ladle/sched/process.hpp"
#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::tune {
namespace {

constexpr const char* kRun =
    "export CUDA_DEVICE_MAX_CONNECTIONS=1\n\npython3 train_async.py \\\n  --actor-num-nodes 1 \\\n"
    "  --tensor-model-parallel-size 2\n";

TEST(TrialScript, SetsTheRunLengthAndRunsTheStandInEngine) {
  TrialScriptInputs in;
  in.job_name = "ladle-00000000-3";
  in.layout_spec = "tp=2";
  in.engine_run = kRun;
  in.steps = 7;
  in.engine_program = "/opt/fake engine";
  const std::string script = trial_script(in);
  EXPECT_NE(
      script.find(
          "'/opt/fake engine' train_async.py \\\n  --num-rollout 7 \\\n  --actor-num-nodes 1"),
      std::string::npos)
      << script;
  EXPECT_NE(script.find("export LADLE_TUNE_JOB='ladle-00000000-3'"), std::string::npos);
  in.engine_run = std::string(kRun) + "  --num-rollout 20\n";
  in.engine_program.clear();
  const std::string replaced = trial_script(in);
  EXPECT_NE(replaced.find("--num-rollout 7\n"), std::string::npos);
  EXPECT_EQ(replaced.find("--num-rollout 20"), std::string::npos);
  EXPECT_NE(replaced.find("python3 train_async.py"), std::string::npos);
  in.engine = layout::Engine::megatron;
  in.engine_run = "torchrun --nnodes 1 --nproc-per-node 8 pretrain_gpt.py \\\n  --bf16\n";
  EXPECT_NE(trial_script(in).find("--train-iters 7"), std::string::npos);
}

TEST(TrialScript, ThePrologueRecordsWhatIsMissingAsMissing) {
  test::TempDir dir;
  const std::string path = (dir.path() / "p.sh").string();
  util::write_file_atomic(path, stack_prologue());
  const sched::CommandResult r = sched::run_command({"bash", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const RecipeStack stack = parse_stack(r.out, layout::Engine::slime, "2026-12-01");
  // This machine has no PyTorch, Transformer Engine or GPU: each is recorded as missing.
  EXPECT_EQ(stack.pytorch, "missing");
  EXPECT_EQ(stack.transformer_engine, "missing");
  EXPECT_EQ(stack.deepep, "missing");
  EXPECT_EQ(stack.network, "GPU missing, driver missing");
  EXPECT_NE(stack.megatron_lm.find("megatron-core missing"), std::string::npos);
  EXPECT_NE(stack.source.find("2026-12-01"), std::string::npos);
  const RecipeStack parsed = parse_stack(
      "ladle-stack: pytorch: 2.11.0\nladle-stack: slime: 0.2.1\n"
      "ladle-stack: framework_commit: 00b5ed0e\n",
      layout::Engine::slime, "d");
  EXPECT_EQ(parsed.pytorch, "2.11.0");
  EXPECT_EQ(parsed.framework, "slime 0.2.1 (commit 00b5ed0e)");
  EXPECT_EQ(parsed.cuda, "missing");
}

}  // namespace
}  // namespace ladle::tune
