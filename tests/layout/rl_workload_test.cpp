// The RL, LoRA, colocation and FP16 rows of the knob table read from slime's and miles' own
// arguments (slime/utils/arguments.py at 624b824a, miles/utils/arguments.py at 31f1ca96), the RL
// workload slime derives from them (rl_workload.hpp), and the job ladle writes carrying the same
// flags back.
#include <gtest/gtest.h>

#include <string>

#include "ladle/args/launch_args.hpp"
#include "ladle/layout/job_args.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/layout/rl_workload.hpp"
#include "support/test_support.hpp"

namespace ladle::layout {
namespace {

JobArgs read(const std::string& line) {
  return read_job_args(args::parse_launch_args("python3 train.py " + line, "job.sh"), std::nullopt, "job.sh");
}

std::string script_for(const std::vector<EngineArg>& args) {
  std::string script = "python3 train.py";
  for (const EngineArg& arg : args) script += " " + arg.flag + (arg.value ? " " + *arg.value : "");
  return script;
}

// slime's Kimi-K2 scripts: --rollout-batch-size 32 --n-samples-per-prompt 8
// --num-steps-per-rollout 1: 32 x 8 // 1 = 256 rows a step, one step a rollout.
TEST(RlWorkload, RowsPerStepAsSlimeDerivesThem) {
  RlArgs l;
  l.rollout_batch = 32;
  l.samples_per_prompt = 8;
  l.steps_per_rollout = 1;
  std::optional<RlWorkload> rl = rl_workload(l, std::nullopt, "job.sh");
  ASSERT_TRUE(rl);
  EXPECT_EQ(rl->samples_per_rollout, 256);
  EXPECT_EQ(rl->rows_per_step, 256);
  EXPECT_EQ(rl->steps_per_rollout, 1);
  // Four steps a rollout: 256 // 4 = 64 rows each.
  l.steps_per_rollout = 4;
  rl = rl_workload(l, std::nullopt, "job.sh");
  EXPECT_EQ(rl->rows_per_step, 64);
  EXPECT_EQ(rl->steps_per_rollout, 4);
  // The same rows given as --global-batch-size agree; other rows are refused as slime asserts.
  EXPECT_EQ(rl_workload(l, 64, "job.sh")->rows_per_step, 64);
  EXPECT_LADLE_ERROR(rl_workload(l, 128, "job.sh"), input,
                     "--global-batch-size 128 contradicts 32 prompts x 8 samples / --num-steps-per-rollout 4 = 64");
  // Without --num-steps-per-rollout the global batch is the rows, and 256 // 128 = 2 steps.
  l.steps_per_rollout = 0;
  rl = rl_workload(l, 128, "job.sh");
  EXPECT_EQ(rl->rows_per_step, 128);
  EXPECT_EQ(rl->steps_per_rollout, 2);
  // More rows a step than a rollout gives: slime would run no optimizer step.
  EXPECT_LADLE_ERROR(rl_workload(l, 512, "job.sh"), input,
                     "512 rows a step is more than a rollout's 32 prompts x 8 samples = 256 samples");
  // Neither: the rows are unknown, and said so.
  rl = rl_workload(l, std::nullopt, "job.sh");
  EXPECT_EQ(rl->rows_per_step, 0);
  EXPECT_NE(format_rl_workload(*rl).find("rows per step unknown"), std::string::npos);
  // No rollout batch: no RL workload.
  EXPECT_FALSE(rl_workload(RlArgs{}, 128, "job.sh"));
}

// A row is at most its prompt and its response: 1,024 + 8,192 = 9,216 tokens.
TEST(RlWorkload, RowTokensFromPromptAndResponseLimits) {
  RlArgs l;
  l.rollout_batch = 16;
  l.max_response_len = 8192;
  EXPECT_EQ(rl_workload(l, 16, "job.sh")->row_tokens, 0);  // the prompt limit is missing
  l.max_prompt_len = 1024;
  const RlWorkload rl = *rl_workload(l, 16, "job.sh");
  EXPECT_EQ(rl.row_tokens, 9216);
  EXPECT_EQ(format_rl_workload(rl),
            "RL: 16 rows per optimizer step (--global-batch-size; a rollout gives 16 prompts x 1 sample = 16 samples), "
            "1 optimizer step per rollout, rows of up to 9216 tokens (prompt 1024 + response 8192)");
}

// The job's arguments give the workload: rows and row length from the rollout, every argument
// priced (none left under not_priced).
TEST(RlWorkload, JobArgsTakeTheRolloutWorkload) {
  const JobArgs job = read(
      "--rollout-batch-size 32 --n-samples-per-prompt 8 --num-steps-per-rollout 1 --rollout-max-prompt-len 1024 "
      "--rollout-max-response-len 8192 --use-dynamic-batch-size --max-tokens-per-gpu 9216 --colocate "
      "--sglang-mem-fraction-static 0.7 --update-weight-buffer-size 1073741824 --fp16");
  EXPECT_EQ(job.engine, Engine::slime);
  ASSERT_TRUE(job.rl);
  EXPECT_EQ(job.global_batch, 256);
  EXPECT_EQ(job.seq_length, 9216);
  EXPECT_TRUE(job.fp16);
  EXPECT_TRUE(job.not_priced.empty()) << job.not_priced.front();
  const Layout& l = job.layout.layout;
  EXPECT_TRUE(l.colocate);
  EXPECT_DOUBLE_EQ(l.sglang_mem_fraction, 0.7);
  EXPECT_EQ(l.update_buffer_bytes, int64_t{1} << 30);
  // A given --seq-length and --global-batch-size stay the job's own.
  const JobArgs given = read("--rollout-batch-size 32 --n-samples-per-prompt 8 --global-batch-size 64 "
                             "--seq-length 4096 --rollout-max-prompt-len 1024 --rollout-max-response-len 8192");
  EXPECT_EQ(given.global_batch, 64);
  EXPECT_EQ(given.seq_length, 4096);
  EXPECT_EQ(given.rl->steps_per_rollout, 4);
  EXPECT_LADLE_ERROR(read("--rollout-batch-size 32 --n-samples-per-prompt 8 --num-steps-per-rollout 2 "
                          "--global-batch-size 256"),
                     input, "job.sh: error: --global-batch-size: --global-batch-size 256 contradicts");
}

// miles' LoRA job: the adapters' rank, alpha and targets are knobs, written back as miles reads
// them (one --target-modules word), and refused for an engine with no LoRA argument.
TEST(RlWorkload, LoraColocateFp16RoundTripThroughTheJob) {
  const JobArgs job =
      read_job_args(args::parse_launch_args(
                        "python3 miles/train.py --lora-rank 32 --lora-alpha 32 --target-modules q_proj,v_proj,down_proj "
                        "--colocate --sglang-mem-fraction-static 0.7 --fp16 --rollout-batch-size 16 "
                        "--n-samples-per-prompt 8 --global-batch-size 128",
                        "lora.sh"),
                    Engine::miles, "lora.sh");
  const Layout& l = job.layout.layout;
  EXPECT_EQ(l.lora_rank, 32);
  EXPECT_EQ(l.lora_alpha, 32);
  EXPECT_EQ(l.lora_targets, "q_proj,v_proj,down_proj");
  EXPECT_TRUE(job.not_priced.empty()) << job.not_priced.front();
  const std::vector<EngineArg> written = layout_engine_args(l, Engine::miles, 8192);
  const auto has = [&](const std::string& flag, std::optional<std::string> value) {
    return std::find(written.begin(), written.end(), EngineArg{flag, value}) != written.end();
  };
  EXPECT_TRUE(has("--lora-rank", "32"));
  EXPECT_TRUE(has("--lora-alpha", "32"));
  EXPECT_TRUE(has("--target-modules", "q_proj,v_proj,down_proj"));
  EXPECT_TRUE(has("--colocate", std::nullopt));
  EXPECT_TRUE(has("--sglang-mem-fraction-static", "0.7"));
  EXPECT_TRUE(has("--fp16", std::nullopt));
  // The rollout arguments are the workload's, not the layout's: the job carries them as written.
  EXPECT_FALSE(has("--rollout-batch-size", "16"));
  EXPECT_EQ(job.rl_args.rollout_batch, 16);
  EXPECT_EQ(job.rl->rows_per_step, 128);
  // A module no linear answers to is refused where the job wrote it (column 38: after
  // "python3 miles/train.py --lora-rank 8 ", 37 characters).
  EXPECT_LADLE_ERROR(read_job_args(args::parse_launch_args("python3 miles/train.py --lora-rank 8 --target-modules "
                                                             "q_proj,qkv_proj", "bad.sh"),
                                   Engine::miles, "bad.sh"),
                     input, "bad.sh:1:38: error: --target-modules: unknown LoRA target module 'qkv_proj'");
  // The written job reads back to the same layout.
  const ArgsLayout back =
      read_layout_args(training_args(args::parse_launch_args(script_for(written), "back.sh")), Engine::miles);
  EXPECT_EQ(back.layout, l);
  // slime and Megatron-LM train no adapters: their jobs are refused, not written without them.
  EXPECT_LADLE_ERROR(layout_engine_args(l, Engine::slime, 8192), usage, "lora_rank has no argument but miles'");
  Layout colocated;
  colocated.colocate = true;
  EXPECT_LADLE_ERROR(layout_engine_args(colocated, Engine::megatron, 8192), usage,
                     "colocate is slime's and miles' --colocate");
  EXPECT_LADLE_ERROR(read("--rollout-batch-size 0"), input, "job.sh:1:");
}

}  // namespace
}  // namespace ladle::layout
