// Megatron-Bridge jobs are read as well as written: every knob round-trips through the job ladle
// writes (layout -> run_recipe.py overrides -> layout), and the override reader takes Hydra's
// spellings and refuses what run_recipe.py would not run, naming the key.
#include <gtest/gtest.h>

#include "ladle/args/bridge_args.hpp"
#include "ladle/args/launch_args.hpp"
#include "ladle/launch/base.hpp"
#include "ladle/launch/engines.hpp"
#include "ladle/launch/job_script.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/util/text.hpp"
#include "support/knob_values.hpp"
#include "support/test_support.hpp"

namespace ladle {
void PrintTo(const Layout& l, std::ostream* os) { *os << layout::format_layout_spec(l); }
}  // namespace ladle

namespace ladle::launch {
namespace {

using layout::Knob;
using layout::KnobKind;

// A value of `knob` other than its default; a pipeline layout with repeats and stage separators.
std::string other_value(const Knob& knob) { return test::other_value(knob, "Et*3|(tt|)*2|tL"); }
using test::satisfy;

Layout with_knob(const Knob& knob, const std::string& value) {
  Layout l;
  l.cp = 4;
  l.dp = 2;
  l.max_tokens = 0;                // Megatron-Bridge has no dynamic batching
  if (knob.key == "sp") l.tp = 2;  // Megatron-LM clears sequence parallel at tp 1
  satisfy(knob, l);
  layout::set_knob_text(knob, l, value, knob.key);
  if (knob.key == "moments") l.moments_sq = l.moments;
  return l;
}

// What ladle reads back from the job it writes for `l`.
struct ReadBack {
  Layout layout;
  std::string line;
  std::vector<args::LaunchArg> rest;
};

ReadBack write_and_read(const Layout& l, const ModelSpec& model, const Base& base) {
  JobRequest job;
  job.base = &base;
  job.model = &model;
  job.engine = layout::Engine::bridge;
  job.gpus = l.tp * l.pp * l.cp * std::max<int64_t>(1, l.dp);
  job.layout = l;
  ReadBack out;
  out.line = job_args_line(job);
  const args::LaunchArgs launch = args::parse_launch_args(
      "torchrun --nproc-per-node 8 scripts/training/run_recipe.py " + out.line, "job");
  EXPECT_EQ(layout::guess_engine(launch), layout::Engine::bridge);
  const layout::ArgsLayout read =
      layout::read_layout_args(layout::training_args(launch), layout::Engine::bridge, "job");
  out.layout = read.layout;
  out.layout.dp = l.dp;
  out.layout.max_tokens = l.max_tokens;
  out.rest = read.rest;
  return out;
}

// A base with no arguments of its own: the job holds the layout and the selection alone.
Base bare_base(const ModelSpec& model) {
  Base base = resolve_base("", model, layout::Engine::bridge, 8192, 128);
  base.args.clear();
  return base;
}

// What the writer adds around the knobs: the recipe selection, the row length, the precision.
bool written_around_knobs(const args::LaunchArg& arg) {
  return arg.flag == "--seq-length" || arg.flag == "--bf16" || arg.flag == "--model" ||
         arg.flag == "--mode";
}

TEST(BridgeJob, EveryKnobRoundTripsThroughTheJobLadleWrites) {
  const ModelSpec qwen = model::load_model("qwen3-30b-a3b");
  const Base base = bare_base(qwen);
  int checked = 0;
  for (const Knob& knob : layout::kKnobs) {
    bool bridge = false;  // Megatron-LM's arguments, and the Bridge-only config fields
    for (const layout::KnobArg& arg : knob.args)
      bridge = bridge || (arg.engines & (layout::kMegatron | layout::kBridgeOnly)) != 0;
    if (!bridge) continue;  // slime's dynamic batching: no Megatron-LM argument
    std::vector<std::string> values = {other_value(knob)};
    // Both values of a two-valued choice written as a boolean
    // (mixed_precision.grad_reduce_in_fp32), and each value of a choice with switches (fsdp
    // megatron, torch).
    if (knob.kind == KnobKind::choice) {
      values.clear();
      for (size_t i = 0; i < knob.names.size(); ++i) {
        if (knob.allowed == 0 || ((knob.allowed >> i) & 1) != 0) values.emplace_back(knob.names[i]);
      }
    }
    for (const std::string& value : values) {
      const Layout l = with_knob(knob, value);
      if (value == knob.foreign_choice) {
        // Another framework's value (Primus's fp4_recipe=mxfp4): Megatron-Bridge has no override
        // for it, so the job is refused with the row's line, not written.
        SCOPED_TRACE(knob.key);
        EXPECT_LADLE_ERROR(write_and_read(l, qwen, base), usage, std::string(knob.foreign_line));
        continue;
      }
      if (knob.bridge.empty() && knob.key != "offload") {
        // Megatron-Bridge takes the virtual size, not the layers per virtual stage: refused, not
        // guessed.
        SCOPED_TRACE(knob.key);
        EXPECT_LADLE_ERROR(write_and_read(l, qwen, base), input, "has no Megatron-Bridge override");
        continue;
      }
      const ReadBack back = write_and_read(l, qwen, base);
      EXPECT_EQ(back.layout, l) << knob.key << "=" << value << ": " << back.line;
      for (const args::LaunchArg& rest : back.rest) {
        EXPECT_TRUE(written_around_knobs(rest)) << knob.key << "=" << value << ": " << rest.flag;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 60);
}

TEST(BridgeJob, ListsAreHydraListsAndLayoutsAreQuoted) {
  const ModelSpec qwen = model::load_model("qwen3-30b-a3b");
  const Base base = bare_base(qwen);
  Layout l = layout::parse_layout_spec(
      "tp=2,pp=2,vpp=2,cp=2,ep=8,etp=1,dp=2,sp=on,recompute=selective,recompute_modules=moe_act+"
      "layernorm,"
      "cp_comm=a2a+p2p,cp_inner=2,pipeline_layout=Et*3|(tt|)*2|tL");
  l.max_tokens = 0;
  const ReadBack back = write_and_read(l, qwen, base);
  EXPECT_NE(back.line.find("'model.recompute_modules=[moe_act,layernorm]'"), std::string::npos)
      << back.line;
  EXPECT_NE(back.line.find("'model.hierarchical_context_parallel_sizes=[2,1]'"), std::string::npos)
      << back.line;
  // (x) would be a Hydra function call: the layout is a quoted string.
  EXPECT_NE(back.line.find("'model.pipeline_model_parallel_layout=\"Et*3|(tt|)*2|tL\"'"),
            std::string::npos)
      << back.line;
  EXPECT_EQ(back.layout, l) << back.line;
}

TEST(BridgeJob, PrecisionIsARecipeByNameWhereOneMatchesElseItsFields) {
  const ModelSpec qwen = model::load_model("qwen3-30b-a3b");
  Base base = bare_base(qwen);
  base.args.push_back(args::LaunchArg{"--bf16", {}});
  Layout l = layout::parse_layout_spec("tp=1,pp=1,cp=1,ep=8,etp=1,dp=2,grad_reduce=fp32");
  l.max_tokens = 0;
  // BF16 with FP32 reduction is bf16_mixed.
  EXPECT_NE(write_and_read(l, qwen, base).line.find("mixed_precision=bf16_mixed"),
            std::string::npos);
  // MXFP8 with FP8 weight copies gathered into the gradient buffer is bf16_with_mxfp8_mixed.
  l = layout::parse_layout_spec(
      "tp=1,pp=1,cp=1,ep=8,etp=1,dp=2,grad_reduce=fp32,fp8=e4m3,fp8_recipe=mxfp8,fp8_param_gather="
      "on,"
      "fp8_reuse_grad_buf=on");
  l.max_tokens = 0;
  ReadBack back = write_and_read(l, qwen, base);
  EXPECT_NE(back.line.find("mixed_precision=bf16_with_mxfp8_mixed"), std::string::npos)
      << back.line;
  EXPECT_EQ(back.layout, l);
  // No recipe reduces gradients in BF16: the fields, which a recipe's MixedPrecisionConfig takes.
  l = layout::parse_layout_spec("tp=1,pp=1,cp=1,ep=8,etp=1,dp=2,grad_reduce=bf16");
  l.max_tokens = 0;
  back = write_and_read(l, qwen, base);
  EXPECT_EQ(back.line.find("mixed_precision="), std::string::npos) << back.line;
  EXPECT_NE(back.line.find("mixed_precision.grad_reduce_in_fp32=false"), std::string::npos)
      << back.line;
  EXPECT_NE(back.line.find("mixed_precision.bf16=true"), std::string::npos) << back.line;
  EXPECT_EQ(back.layout, l);
}

// Each mixed-precision recipe by name (data/launch/engines.yaml) is what the job writes for a layout
// that holds exactly its fields: the choice is made from the rows and values of the arguments.
TEST(BridgeJob, EveryRecipeByNameIsChosenForTheLayoutItSets) {
  const ModelSpec qwen = model::load_model("qwen3-30b-a3b");
  Base base = bare_base(qwen);
  base.args.push_back(args::LaunchArg{"--bf16", {}});
  const std::vector<std::string> names = args::bridge_mixed_precision_names();
  ASSERT_GE(names.size(), 4u);
  for (const std::string& name : names) {
    Layout l = layout::read_layout_args(layout::training_args(args::parse_launch_args(
                                            "python run_recipe.py mixed_precision=" + name, "job.sh")),
                                        layout::Engine::bridge, "job.sh")
                   .layout;
    l.ep = 8;
    l.dp = 2;
    l.max_tokens = 0;
    const ReadBack back = write_and_read(l, qwen, base);
    EXPECT_NE(back.line.find("mixed_precision=" + name + " "), std::string::npos) << name << ": " << back.line;
    EXPECT_EQ(back.line.find("mixed_precision."), std::string::npos) << name << ": " << back.line;
    EXPECT_EQ(back.layout, l) << name;
  }
}

// The delayed-scaling recipe by name sets the amax algorithm too (max, training/mixed_precision.py at
// 05097809): a layout that scales by the newest amax is written as its fields, not as that recipe.
TEST(BridgeJob, TheDelayedScalingRecipeByNameCarriesItsAmaxAlgorithm) {
  const ModelSpec qwen = model::load_model("qwen3-30b-a3b");
  Base base = bare_base(qwen);
  base.args.push_back(args::LaunchArg{"--bf16", {}});
  const std::string delayed =
      "tp=1,pp=1,cp=1,ep=8,etp=1,dp=2,grad_reduce=fp32,fp8=hybrid,fp8_recipe=delayed,fp8_param_gather=on,"
      "fp8_amax_history=1024";
  Layout l = layout::parse_layout_spec(delayed + ",fp8_amax_algo=max");
  l.max_tokens = 0;
  ReadBack back = write_and_read(l, qwen, base);
  EXPECT_NE(back.line.find("mixed_precision=bf16_with_fp8_delayed_scaling_mixed"), std::string::npos)
      << back.line;
  EXPECT_EQ(back.layout, l);
  l = layout::parse_layout_spec(delayed);
  l.max_tokens = 0;
  back = write_and_read(l, qwen, base);
  EXPECT_EQ(back.line.find("mixed_precision="), std::string::npos) << back.line;
  EXPECT_NE(back.line.find("mixed_precision.fp8_amax_history_len=1024"), std::string::npos) << back.line;
  EXPECT_EQ(back.layout, l);
}

// --- the override reader ------------------------------------------------------------------------

std::vector<args::LaunchArg> read(std::string_view line) {
  return layout::training_args(args::parse_launch_args(line, "job.sh"));
}

Layout layout_of(std::string_view line) {
  return layout::read_layout_args(read(line), layout::Engine::bridge, "job.sh").layout;
}

TEST(BridgeOverrides, TakeHydrasSpellings) {
  const Layout l = layout_of(
      "python run_recipe.py --model qwen3_30b_a3b model.tensor_model_parallel_size=2 "
      "+model.sequence_parallel=True "
      "'model.recompute_granularity=\"selective\"' 'model.recompute_modules=[ moe_act, "
      "\"layernorm\" ]' "
      "++model.expert_model_parallel_size=8 -pp 2 --virtual_pipeline_model_parallel_size 2 "
      "model.moe_flex_dispatcher_backend=deepep model.moe_token_dispatcher_type=flex "
      "model.cuda_graph_impl=null model.pipeline_model_parallel_layout=null");
  EXPECT_EQ(l.tp, 2);
  EXPECT_TRUE(l.sp);
  EXPECT_EQ(l.recompute, RecomputeGranularity::selective);
  EXPECT_EQ(l.recompute_modules, bit(RecomputeModule::moe_act) | bit(RecomputeModule::layernorm));
  EXPECT_EQ(l.ep, 8);
  EXPECT_EQ(l.pp, 2);
  EXPECT_EQ(l.vpp, 2);
  EXPECT_EQ(l.flex_backend, FlexBackend::deepep);
  EXPECT_EQ(l.cuda_graph, CudaGraphImpl::none);
  EXPECT_TRUE(l.pipeline_layout.empty());
  EXPECT_EQ(layout_of("p dist.use_torch_fsdp2=true").fsdp, Fsdp::torch);
  EXPECT_EQ(layout_of("p ddp.use_megatron_fsdp=true").fsdp, Fsdp::megatron);
  EXPECT_EQ(layout_of("p mixed_precision.grad_reduce_in_fp32=false").grad_reduce, StateDtype::bf16);
  EXPECT_EQ(layout_of("p mixed_precision.grad_reduce_in_fp32=true").grad_reduce, StateDtype::fp32);
}

TEST(BridgeOverrides, MixedPrecisionRecipesSetTheirFields) {
  const Layout cs = layout_of("p mixed_precision=bf16-with-fp8-current-scaling-mixed");
  EXPECT_EQ(cs.fp8, Fp8Format::hybrid);
  EXPECT_EQ(cs.fp8_recipe, Fp8Recipe::tensorwise);
  EXPECT_TRUE(cs.fp8_bf16_edges);
  EXPECT_EQ(cs.fp8_bf16_first, 1);
  EXPECT_EQ(cs.fp8_bf16_last, 1);
  EXPECT_TRUE(cs.fp8_param_gather);
  EXPECT_EQ(cs.grad_reduce, StateDtype::fp32);
  // A recipe ladle does not price stays an argument, named as written.
  const std::vector<args::LaunchArg> nvfp4 = read("p mixed_precision=bf16_with_nvfp4_mixed");
  ASSERT_EQ(nvfp4.size(), 1u);
  EXPECT_EQ(nvfp4.front().flag, "mixed_precision");
  // The recipe's own gradient reduce is the one Megatron-Bridge applies: another is a
  // contradiction.
  EXPECT_LADLE_ERROR(
      layout_of("p mixed_precision=bf16_mixed mixed_precision.grad_reduce_in_fp32=false"), input,
      "job.sh:1:30: error: mixed_precision.grad_reduce_in_fp32: contradicts "
      "mixed_precision=bf16_mixed "
      "(line 1): both set grad_reduce");
}

TEST(BridgeOverrides, OtherKeysAreTheirMegatronFlagsOrStayAsWritten) {
  const std::vector<args::LaunchArg> args = read(
      "python run_recipe.py train.global_batch_size=256 dataset.seq_length=4096 "
      "'dataset.split=\"99,1,0\"' "
      "'dataset.blend=[[\"/data/a\",\"/data/b\"],null]' logger.wandb_project=x ~checkpoint.load "
      "--max_steps 10");
  std::vector<std::pair<std::string, std::string>> got;
  for (const args::LaunchArg& a : args) got.emplace_back(a.flag, util::join(a.values, " "));
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"--global-batch-size", "256"}, {"--seq-length", "4096"},
      {"--split", "99,1,0"},          {"--data-path", "/data/a /data/b"},
      {"logger.wandb_project", "x"},  {"~checkpoint.load", ""},
      {"--train-iters", "10"}};
  EXPECT_EQ(got, expected);
  EXPECT_EQ(args.front().spelled, "train.global_batch_size");
  EXPECT_EQ(args.back().spelled, "--max_steps");
}

TEST(BridgeOverrides, RefuseWhatRunRecipeWouldNotRunNamingTheKey) {
  EXPECT_LADLE_ERROR(
      layout_of("p model.tensor_model_parallel_size=abc"), input,
      "job.sh:1:3: error: model.tensor_model_parallel_size: expected an integer, got 'abc'");
  EXPECT_LADLE_ERROR(
      layout_of("p model.tensor_model_parallel_size=0"), input,
      "job.sh:1:3: error: model.tensor_model_parallel_size: 0 is out of range 1..65536");
  EXPECT_LADLE_ERROR(layout_of("p 'model.recompute_modules=[moe_act,layernorm'"), input,
                     "model.recompute_modules: expected a list closed by ']' such as [a,b]");
  EXPECT_LADLE_ERROR(layout_of("p model.recompute_modules=moe_act,layernorm"), input,
                     "model.recompute_modules: expected one value, or a list such as [a,b] (a,b is "
                     "a Hydra sweep)");
  EXPECT_LADLE_ERROR(layout_of("p model.recompute_modules=moe_act"), input,
                     "model.recompute_modules: expected a list such as [");
  EXPECT_LADLE_ERROR(layout_of("p model.sequence_parallel=yes"), input,
                     "model.sequence_parallel: expected true or false, got 'yes'");
  EXPECT_LADLE_ERROR(layout_of("p model.recompute_modules=[mlp] model.recompute_modules=[moe_act]"),
                     input,
                     "model.recompute_modules: contradicts model.recompute_modules (line 1): both "
                     "set recompute_modules");
  EXPECT_LADLE_ERROR(layout_of("p --tensor-model-parallel-size 2 -tp 4"), input,
                     "-tp: contradicts --tensor-model-parallel-size (line 1): both set tp");
  EXPECT_LADLE_ERROR(layout_of("p -tp"), input, "-tp: expected one value after -tp");
}

// data/launch/engines.yaml holds the overrides of the arguments that are not knobs: a knob's is the
// knob table's alone, so that there is one list to read and write.
TEST(EngineTable, NamesNoKnobArgument) {
  for (const BridgeKey& key : engine_table().bridge) {
    EXPECT_EQ(layout::find_knob_by_flag(key.flag), nullptr)
        << key.flag << ": a knob (its override is the knob table's)";
  }
}

}  // namespace
}  // namespace ladle::launch
