// A user's own job as input: the seeds' launch scripts read as arguments predict what their
// recipes predict, and published launch configurations are accepted with every argument that
// moves memory or speed priced.
#include "ladle/layout/job_args.hpp"

#include <gtest/gtest.h>

#include <set>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

struct JobPrediction {
  Prediction prediction;
  layout::JobArgs job;
};

// What `ladle predict --script` does.
JobPrediction predict_job(const std::string& model_name, const std::string& gpu, int64_t gpus,
                          const std::string& script, const std::string& file) {
  JobPrediction out;
  const ModelSpec model = model::load_model(model_name);
  const Cluster cluster = make_cluster(gpu, gpus);
  const args::LaunchArgs launch = args::parse_launch_args(script, file);
  out.job = layout::read_job_args(launch, std::nullopt, file);
  layout::check_model_args(out.job, model);
  Workload workload;
  workload.flash_attention_2 = selects_flash_attention_backend(launch);
  if (out.job.seq_length) workload.row_tokens = *out.job.seq_length;
  if (out.job.global_batch) workload.global_batch = *out.job.global_batch;
  if (out.job.fp8) workload.precision = Precision::fp8;
  layout::LayoutContext context{cluster.gpus, cluster.gpus_per_node(), workload.row_tokens,
                                workload.global_batch};
  context.num_layers = model.num_layers;
  const Layout l =
      layout::resolve_layout(layout::job_layout(out.job, workload.row_tokens, model), context);
  if (auto violation = layout::find_layout_violation(l, model, context))
    ADD_FAILURE() << file << ": " << *violation;
  out.prediction = predict(model_costs(model, workload.row_tokens), model, l, cluster, workload,
                           default_calibration());
  return out;
}

TEST(JobArgs, SeedLaunchScriptsPredictWhatTheirRecipesPredict) {
  for (const char* stem : {"attune-tp1-pp1-ep8", "attune-tp4-pp4", "attune-tp8-pp4"}) {
    const recipe::LoadedRecipe seed = recipe::find_recipe(stem);
    const Measurement m = measurement_from_recipe(seed);
    const Prediction from_recipe =
        predict(m.costs, m.model, m.layout, m.cluster, m.workload, default_calibration());
    const JobPrediction from_script = predict_job(seed.recipe.model, seed.recipe.gpu.type,
                                                  seed.recipe.gpu.count, seed.recipe.run, stem);
    EXPECT_EQ(layout::format_layout_spec(from_script.prediction.layout),
              layout::format_layout_spec(m.layout))
        << stem;
    EXPECT_DOUBLE_EQ(from_script.prediction.tokens_per_s_per_gpu, from_recipe.tokens_per_s_per_gpu)
        << stem;
    EXPECT_DOUBLE_EQ(from_script.prediction.memory_gib, from_recipe.memory_gib) << stem;
    EXPECT_EQ(from_script.prediction.fits, from_recipe.fits) << stem;
  }
}

// Arguments that change neither memory nor speed: data, logging, checkpoints, schedules, seeds,
// regularisation, RL rollout plumbing. Anything else left unpriced fails the test.
const std::set<std::string> kNoEffect = {"--distributed-timeout-minutes",
                                         "--train-samples",
                                         "--train-iters",
                                         "--exit-duration-in-mins",
                                         "--no-save-optim",
                                         "--no-check-for-nan-in-loss-and-grad",
                                         "--data-cache-path",
                                         "--tokenizer-type",
                                         "--tokenizer-model",
                                         "--data-path",
                                         "--split",
                                         "--no-mmap-bin-files",
                                         "--no-create-attention-mask-in-dataloader",
                                         "--num-workers",
                                         "--attention-dropout",
                                         "--hidden-dropout",
                                         "--clip-grad",
                                         "--weight-decay",
                                         "--lr-decay-samples",
                                         "--lr-warmup-samples",
                                         "--lr-warmup-init",
                                         "--lr",
                                         "--min-lr",
                                         "--lr-decay-style",
                                         "--adam-beta1",
                                         "--adam-beta2",
                                         "--eval-iters",
                                         "--eval-interval",
                                         "--no-load-optim",
                                         "--no-load-rng",
                                         "--auto-detect-ckpt-format",
                                         "--load",
                                         "--save",
                                         "--save-interval",
                                         "--dist-ckpt-strictness",
                                         "--init-method-std",
                                         "--log-timers-to-tensorboard",
                                         "--log-memory-to-tensorboard",
                                         "--log-validation-ppl-to-tensorboard",
                                         "--log-throughput",
                                         "--log-interval",
                                         "--logging-level",
                                         "--tensorboard-dir",
                                         "--wandb-project",
                                         "--wandb-exp-name",
                                         "--enable-experimental",
                                         "--mtp-loss-scaling-factor",
                                         "--finetune",
                                         "--lr-warmup-iters",
                                         "--seed",
                                         "--ckpt-format",
                                         "--log-num-zeros-in-grad",
                                         "--log-params-norm",
                                         "--mock-data",
                                         // Sums the loss over tokens and divides once after the
                                         // reduce: one more scalar in the loss all-reduce.
                                         "--calculate-per-token-loss"};

TEST(JobArgs, PublishedConfigurationsArePricedInFull) {
  struct Case {
    const char* file;
    const char* model;
    const char* gpu;
    int64_t gpus;
    std::vector<std::string> spec_parts;  // what the arguments must have set
    std::vector<int64_t> stages;          // decoder layers per pipeline stage
  };
  const std::vector<Case> cases = {
      {"tests/data/jobs/deepseek-v3-h100-1024.sh",
       "deepseek-v3",
       "h100",
       1024,
       {"tp=2,pp=8", "vpp=4,recompute=selective", "pipeline_layout=Et|(tt|)*30mL",
        "a2a_overlap=on,delay_wgrad=on", "recompute_modules=mla_up_proj+mlp",
        "fp8=e4m3,fp8_recipe=blockwise,fp8_param_gather=on", "moments=bf16"},
       {7, 8, 8, 8, 8, 8, 8, 6}},  // rank r holds virtual stages r, r+8, r+16, r+24
      {"tests/data/jobs/deepseek-v3-b200-256.sh",
       "deepseek-v3",
       "b200",
       256,
       {"tp=1,pp=8", "sp=off", "fp8_recipe=mxfp8", "fp8_reuse_grad_buf=on", "router_fusion=on",
        "pipeline_layout=Et|(tt|)*30mL"},
       {7, 8, 8, 8, 8, 8, 8, 6}},  // rank r holds virtual stages r, r+8, r+16, r+24
      {"tests/data/jobs/qwen3-235b-a22b-h100-256.sh",
       "qwen3-235b-a22b",
       "h100",
       256,
       {"tp=2,pp=8", "vpp=4", "dispatcher=flex",
        "vpp_layers=3,account_embedding=on,account_loss=on", "tp_overlap=on"},
       {11, 12, 12, 12, 12, 12, 12, 11}},
      {"tests/data/jobs/llama-3.1-70b-h100-64.sh",
       "llama-3.1-70b",
       "h100",
       64,
       {"tp=4,pp=4,cp=2,ep=1,etp=1", "sp=on,vpp=5",
        "overlap_grad=on,overlap_param=on,tp_overlap=on"},
       {20, 20, 20, 20}},
      {"tests/data/jobs/gpt-oss-120b-h100-64.sh",
       "gpt-oss-120b",
       "h100",
       64,
       {"tp=1,pp=4,cp=1,ep=8,etp=1", "sp=off", "recompute=selective", "recompute_modules=moe_act+layernorm",
        "dispatcher=alltoall,grad_reduce=bf16", "force_balance=on", "ce_fusion=on,ce_impl=te"},
       {9, 9, 9, 9}},
      {"tests/data/jobs/gpt-oss-120b-gb200-64.sh",
       "gpt-oss-120b",
       "gb200",
       64,
       {"tp=1,pp=1,cp=1,ep=64,etp=1", "rows_per_mb=4", "a2a_overlap=on,delay_wgrad=on",
        "recompute_modules=moe_act+layernorm"},
       {36}},
      {"tests/data/jobs/qwen3-30b-a3b-h100-32.sh",
       "qwen3-30b-a3b",
       "h100",
       32,
       {"tp=1,pp=1,cp=1,ep=8,etp=1", "dispatcher=alltoall", "permute_fusion=on,router_dtype=fp32",
        "overlap_grad=on,overlap_param=on"},
       {48}},
  };
  for (const Case& c : cases) {
    const std::string path = test::source_path(c.file);
    const JobPrediction p = predict_job(c.model, c.gpu, c.gpus, util::read_file(path), path);
    for (const std::string& flag : p.job.not_priced)
      EXPECT_TRUE(kNoEffect.count(flag) > 0) << c.file << ": " << flag;
    const std::string spec = layout::format_layout_spec(p.prediction.layout);
    for (const std::string& part : c.spec_parts)
      EXPECT_NE(spec.find(part), std::string::npos) << part << " in " << spec;
    EXPECT_EQ(layout::stage_layers(p.prediction.layout, model::load_model(c.model).num_layers),
              c.stages)
        << c.file;
    EXPECT_GT(p.prediction.tokens_per_s_per_gpu, 0) << c.file;
  }
}

TEST(JobArgs, ASlimeArgumentInAMegatronOrBridgeJobIsOneError) {
  // slime's and miles' own arguments (dynamic batching, the actor's placement, rollouts, the HF
  // checkpoint) reach neither Megatron-LM's parser nor run_recipe.py's: the job would not start.
  const args::LaunchArgs launch = args::parse_launch_args(
      "--tensor-model-parallel-size 2\n--max-tokens-per-gpu 8192 --use-dynamic-batch-size\n", "job.sh");
  EXPECT_LADLE_ERROR(layout::read_job_args(launch, layout::Engine::megatron, "job.sh"), input,
                     "job.sh:2:1: error: --max-tokens-per-gpu: a slime and miles argument, which a megatron job does not take");
  EXPECT_LADLE_ERROR(layout::read_job_args(launch, layout::Engine::bridge, "job.sh"), input,
                     "which a bridge job does not take");
  // With no engine named they make the job slime's, which reads them.
  const layout::JobArgs guessed = layout::read_job_args(launch, std::nullopt, "job.sh");
  EXPECT_EQ(guessed.engine, layout::Engine::slime);
  EXPECT_EQ(guessed.layout.layout.max_tokens, 8192);
  EXPECT_EQ(layout::read_job_args(launch, layout::Engine::miles, "job.sh").layout.layout.max_tokens, 8192);
}

TEST(JobArgs, ABridgeOverrideThatSetsNothingIsStillBridgeSyntax) {
  // `model.x=null` and `key=[]` leave the knob at its default, so they give no argument; the word
  // is still run_recipe.py's, which slime's, miles' and Megatron-LM's parsers refuse.
  for (const std::string word : {"model.tensor_model_parallel_size=null", "model.recompute_modules=[]"}) {
    SCOPED_TRACE(word);
    const args::LaunchArgs launch =
        args::parse_launch_args("--tensor-model-parallel-size 2 " + word, "job.sh");
    ASSERT_EQ(launch.unset_overrides.size(), 1u);
    for (layout::Engine engine : {layout::Engine::slime, layout::Engine::miles, layout::Engine::megatron}) {
      EXPECT_LADLE_ERROR(layout::read_job_args(launch, engine, "job.sh"), input,
                         "job.sh:1:32: error: " + word + ": a Megatron-Bridge override, which a " +
                             std::string(layout::to_string(engine)) + " job does not take");
    }
    // With no engine named it makes the job Megatron-Bridge's, which reads the rest as before.
    const layout::JobArgs guessed = layout::read_job_args(launch, std::nullopt, "job.sh");
    EXPECT_EQ(guessed.engine, layout::Engine::bridge);
    EXPECT_EQ(guessed.layout.layout.tp, 2);
  }
}

TEST(JobArgs, AModelArgumentThatContradictsTheModelIsOneError) {
  const layout::JobArgs job = layout::read_job_args(
      args::parse_launch_args("--num-layers 60 --tensor-model-parallel-size 2", "--args"),
      std::nullopt, "--args");
  EXPECT_LADLE_ERROR(layout::check_model_args(job, model::load_model("deepseek-v3")), input,
                     "--args:1:1: error: --num-layers: --num-layers 60 contradicts --model "
                     "deepseek-v3, which has 61 "
                     "decoder layers");
}

}  // namespace
}  // namespace ladle::plan

namespace ladle::plan {
namespace {

// gpt-oss alternates sliding-window (128 tokens) and full causal layers and adds a learned sink
// logit per head: the planner prices the two layer kinds apart, the sliding one with its window's
// attention FLOPs, and the sinks as parameters.
TEST(JobArgs, GptOssSlidingAndFullLayersArePricedApart) {
  const ModelSpec model = model::load_model("gpt-oss-120b");
  EXPECT_TRUE(model.attention_sinks);
  const ModelCosts costs = model_costs(model, 4096);
  ASSERT_EQ(costs.layer_kind.size(), 36u);
  const LayerKind& sliding = costs.kinds[static_cast<size_t>(costs.layer_kind[0])];
  const LayerKind& full = costs.kinds[static_cast<size_t>(costs.layer_kind[1])];
  EXPECT_NE(sliding.name.find("sliding"), std::string::npos);
  EXPECT_EQ(full.name.find("sliding"), std::string::npos);
  // A 128-token window against a 4,096-token causal row: the mean context is about 128 against
  // about 2,048 keys.
  EXPECT_LT(sliding.attention_flops * 10, full.attention_flops);
  for (size_t i = 0; i < costs.layer_kind.size(); ++i)
    EXPECT_EQ(costs.layer_kind[i], costs.layer_kind[i % 2]) << "layer " << i;
}

}  // namespace
}  // namespace ladle::plan
