// A Megatron-Bridge job as input: a public run_recipe.py launch is read by the job reader with
// every override that moves memory or speed priced, and a Bridge job reads as the Megatron-LM
// arguments it sets (the same prediction).
#include <gtest/gtest.h>

#include <set>

#include "ladle/args/launch_args.hpp"
#include "ladle/layout/job_args.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "support/test_support.hpp"

namespace ladle::layout {
namespace {

// The arguments of the gpt-oss-120b full-SFT run on 32 H100 that Megatron-Bridge verified:
// NVIDIA-NeMo/Megatron-Bridge examples/model_verification_cards/gpt-oss-120b/card.yaml at
// 067f987df03b8355b03192d88d70f1709fedf51a (items.sft.H100.command), after its launcher's own
// `./scripts/training/train.sh --nodes 4 --gpus-per-node 8`.
constexpr std::string_view kGptOssSft =
    "--recipe gpt_oss_120b_sft_32gpu_h100_bf16_config --mode sft\n"
    "--dataset tulu3\n"
    "--pretrained_checkpoint work/model-verification/gpt-oss-120b/imported-megatron/iter_0000000\n"
    "--max_steps 100 --seq_length 2048\n"
    "--lr 5e-6 --min_lr 0 --warmup_iters 10\n"
    "'dataset.hf_dataset.split=\"train[:10000]\"'\n"
    "'dataset.hf_dataset.load_kwargs={revision:\"b14afda60f1bbebe55d5d2fa1e4df5042f97f8be\"}'\n"
    "'++tokenizer.hf_tokenizer_kwargs.revision=\"b5c939de8f754692c1647ca79fbf85e8c1e70f8a\"'\n"
    "dataset.hf_output_root=work/data/tulu3/gpt-oss-120b-sft-2k-b14afda60f1b\n"
    "dataset.hf_rewrite=true dataset.seed=1234 rng.seed=5678\n"
    "dataset.do_validation=false dataset.hf_validation_proportion=null\n"
    "dataset.enable_offline_packing=true\n"
    "+dataset.offline_packing_specs.pad_seq_to_mult=1\n"
    "model.tensor_model_parallel_size=2 model.sequence_parallel=true\n"
    "model.recompute_granularity=selective\n"
    "'model.recompute_modules=[moe_act]'\n"
    "scheduler.lr_decay_iters=100 validation.eval_iters=0 validation.eval_interval=0\n"
    "checkpoint.load=null\n"
    "--save_dir work/model-verification/gpt-oss-120b/sft-2k-checkpoints\n"
    "--save_interval 100 logger.log_interval=1 logger.log_throughput=true\n"
    "logger.tensorboard_dir=null";

// What a line of arguments (predict --args) reads as: each line above is joined as the card's
// YAML folds it.
JobArgs read_line(std::string_view text) {
  std::string line(text);
  for (char& c : line) c = c == '\n' ? ' ' : c;
  return read_job_args(args::parse_launch_args(line, "--args"), std::nullopt, "--args");
}

TEST(BridgeJobArgs, APublicLaunchIsPricedInFull) {
  const JobArgs job = read_line(kGptOssSft);
  EXPECT_EQ(job.seq_length, 2048);
  EXPECT_FALSE(job.fp8);
  const Layout& l = job.layout.layout;
  EXPECT_EQ(l.tp, 2);
  EXPECT_TRUE(l.sp);
  EXPECT_EQ(l.recompute, RecomputeGranularity::selective);
  EXPECT_EQ(l.recompute_modules, bit(RecomputeModule::moe_act));
  // What is left unpriced: the recipe selection and the data, schedule, checkpoint, logging and
  // seed settings, none of which moves memory or speed (the packing pads each row to seq_length,
  // the row the planner prices). The recipe's own settings are not in the arguments: ladle prices
  // what they say, with Megatron-LM's defaults for the rest.
  const std::set<std::string> no_effect = {"--recipe",
                                           "--mode",
                                           "--dataset",
                                           "--pretrained_checkpoint",
                                           "--max_steps",
                                           "--lr",
                                           "--min_lr",
                                           "--warmup_iters",
                                           "dataset.hf_dataset.split",
                                           "dataset.hf_dataset.load_kwargs",
                                           "tokenizer.hf_tokenizer_kwargs.revision",
                                           "dataset.hf_output_root",
                                           "dataset.hf_rewrite",
                                           "dataset.seed",
                                           "rng.seed",
                                           "dataset.do_validation",
                                           "dataset.hf_validation_proportion",
                                           "dataset.enable_offline_packing",
                                           "dataset.offline_packing_specs.pad_seq_to_mult",
                                           "scheduler.lr_decay_iters",
                                           "validation.eval_iters",
                                           "validation.eval_interval",
                                           "--save_dir",
                                           "--save_interval",
                                           "logger.log_interval",
                                           "logger.log_throughput",
                                           "logger.tensorboard_dir"};
  std::set<std::string> seen;
  for (const std::string& name : job.not_priced) {
    seen.insert(name);
    EXPECT_TRUE(no_effect.count(name) > 0) << name << " is left unpriced";
  }
  // Each is listed as the job spells it: the override or option, not the Megatron-LM flag.
  EXPECT_TRUE(seen.count("--max_steps") > 0);
  EXPECT_TRUE(seen.count("rng.seed") > 0);
  EXPECT_TRUE(seen.count("logger.log_interval") > 0);
}

TEST(BridgeJobArgs, ABridgeJobReadsAsTheMegatronArgumentsItSets) {
  const JobArgs bridge = read_line(
      "torchrun --nproc-per-node 8 scripts/training/run_recipe.py --model qwen3_30b_a3b --mode "
      "pretrain "
      "mixed_precision=bf16_mixed model.tensor_model_parallel_size=2 model.sequence_parallel=true "
      "model.expert_model_parallel_size=8 model.moe_token_dispatcher_type=alltoall "
      "dataset.seq_length=4096 "
      "train.global_batch_size=256 train.micro_batch_size=2 model.recompute_granularity=full "
      "model.recompute_method=uniform model.recompute_num_layers=1 ddp.overlap_grad_reduce=true");
  const JobArgs megatron = read_line(
      "torchrun --nproc-per-node 8 pretrain_gpt.py --bf16 --accumulate-allreduce-grads-in-fp32 "
      "--tensor-model-parallel-size 2 --sequence-parallel --expert-model-parallel-size 8 "
      "--moe-token-dispatcher-type alltoall --seq-length 4096 --global-batch-size 256 "
      "--micro-batch-size 2 "
      "--recompute-granularity full --recompute-method uniform --recompute-num-layers 1 "
      "--overlap-grad-reduce");
  EXPECT_EQ(bridge.engine, Engine::bridge);
  EXPECT_EQ(megatron.engine, Engine::megatron);
  EXPECT_EQ(format_layout_spec(bridge.layout.layout), format_layout_spec(megatron.layout.layout));
  EXPECT_EQ(bridge.seq_length, megatron.seq_length);
  EXPECT_EQ(bridge.global_batch, megatron.global_batch);
  EXPECT_EQ(bridge.rows_per_mb_given, megatron.rows_per_mb_given);
  EXPECT_EQ(bridge.not_priced, (std::vector<std::string>{"--model", "--mode"}));
  EXPECT_TRUE(megatron.not_priced.empty());
}

TEST(BridgeJobArgs, ModelOverridesAreCheckedAgainstTheModel) {
  const ModelSpec qwen = model::load_model("qwen3-30b-a3b");
  const JobArgs same = read_line("model.num_layers=48 model.hidden_size=2048");
  EXPECT_TRUE(same.not_priced.empty());
  check_model_args(same, qwen);
  EXPECT_LADLE_ERROR(check_model_args(read_line("model.num_layers=61"), qwen), input,
                     "--args:1:1: error: model.num_layers: model.num_layers 61 contradicts --model "
                     "qwen3-30b-a3b, which has 48 decoder layers");
}

TEST(BridgeJobArgs, ContradictoryWorkloadOverridesAreOneError) {
  EXPECT_LADLE_ERROR(read_line("model.seq_length=4096 dataset.seq_length=2048"), input,
                     "--args:1:23: error: dataset.seq_length: contradicts model.seq_length (line 1): "
                     "2048 against 4096");
  EXPECT_LADLE_ERROR(read_line("--global-batch-size 128 -gb 256"), input,
                     "-gb: contradicts --global-batch-size (line 1): 256 against 128");
  // Saying it twice alike is no contradiction (Megatron-Bridge's examples set both row lengths).
  EXPECT_EQ(read_line("model.seq_length=4096 dataset.seq_length=4096").seq_length, 4096);
}

}  // namespace
}  // namespace ladle::layout
