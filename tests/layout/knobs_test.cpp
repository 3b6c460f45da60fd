// Every knob of the table round-trips through the spec, the launch arguments of every engine and
// the recipe `layout:` block, and the table itself is consistent.
#include "ladle/layout/knobs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ladle/args/launch_args.hpp"
#include "ladle/layout/job_args.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "support/knob_values.hpp"
#include "support/test_support.hpp"

namespace ladle {
void PrintTo(const Layout& l, std::ostream* os) { *os << layout::format_layout_spec(l); }
}  // namespace ladle

namespace ladle::layout {
namespace {

using test::other_value;
using test::satisfy;

// A layout with `knob` away from its default and whatever it needs set.
Layout with_knob(const Knob& knob) {
  Layout l;
  l.cp = 4;
  if (knob.key == "sp") l.tp = 2;  // Megatron-LM clears sequence parallel at tp 1
  satisfy(knob, l);
  set_knob_text(knob, l, other_value(knob), knob.key);
  if (knob.key == "moments") l.moments_sq = l.moments;
  return l;
}

std::string script_for(const std::vector<EngineArg>& args) {
  std::string script = "python3 train.py";
  for (const EngineArg& arg : args) {
    // Quote what bash would otherwise read as a pipe or a glob (pipeline layouts).
    const bool quote = arg.value && arg.value->find_first_of("|*()") != std::string::npos;
    if (arg.value) script += " " + arg.flag + (quote ? " '" + *arg.value + "'" : " " + *arg.value);
    if (!arg.value) script += " " + arg.flag;
  }
  return script;
}

bool engine_takes(const Knob& knob, Engine engine) {
  const uint8_t bit = engine == Engine::slime   ? kSlime
                      : engine == Engine::miles ? kMiles
                                                : kMegatron;
  for (const KnobArg& arg : knob.args) {
    if ((arg.engines & bit) != 0 && !arg.deprecated) return true;
  }
  return false;
}

TEST(Knobs, TableIsConsistent) {
  std::set<std::string_view> keys, flags, fields;
  for (const Knob& knob : kKnobs) {
    EXPECT_TRUE(keys.insert(knob.key).second) << knob.key;
    if (!knob.recipe.empty()) {
      EXPECT_TRUE(fields.insert(knob.recipe).second) << knob.recipe;
    }
    for (const KnobArg& arg : knob.args) EXPECT_TRUE(flags.insert(arg.flag).second) << arg.flag;
    const bool integral = knob.kind == KnobKind::integer || knob.kind == KnobKind::flag ||
                          knob.kind == KnobKind::choice || knob.kind == KnobKind::set;
    EXPECT_EQ(integral, knob.get != nullptr && knob.set != nullptr) << knob.key;
    EXPECT_EQ(knob.kind == KnobKind::real, knob.get_real != nullptr && knob.set_real != nullptr)
        << knob.key;
    EXPECT_EQ(knob.kind == KnobKind::choice || knob.kind == KnobKind::set, !knob.names.empty())
        << knob.key;
    if (!knob.when.key.empty()) {
      EXPECT_NE(find_knob(knob.when.key), nullptr) << knob.key;
    }
    EXPECT_FALSE(knob.help.empty()) << knob.key;
  }
}

TEST(Knobs, EveryKnobRoundTripsThroughTheSpec) {
  for (const Knob& knob : kKnobs) {
    if (knob.spec == Written::folded) continue;
    const Layout l = with_knob(knob);
    EXPECT_NE(l, Layout{}) << knob.key;
    const std::string spec = format_layout_spec(l);
    EXPECT_EQ(parse_layout_spec(spec), l) << knob.key << ": " << spec;
  }
}

TEST(Knobs, EveryKnobRoundTripsThroughEveryEngine) {
  for (Engine engine : {Engine::slime, Engine::miles, Engine::megatron}) {
    for (const Knob& knob : kKnobs) {
      if (!engine_takes(knob, engine)) continue;
      // slime and miles always use the distributed optimizer.
      if (knob.key == "dist_opt" && engine != Engine::megatron) continue;
      Layout l = with_knob(knob);
      if (engine == Engine::megatron) l.max_tokens = 0;
      const std::string script = script_for(layout_engine_args(l, engine, 8192));
      const args::LaunchArgs launch = args::parse_launch_args(script, "test");
      const ArgsLayout back = read_layout_args(training_args(launch), engine);
      EXPECT_EQ(back.layout, l) << to_string(engine) << " " << knob.key << ": " << script;
      EXPECT_EQ(layout_engine_args(back.layout, engine, 8192), layout_engine_args(l, engine, 8192))
          << knob.key;
      for (const args::LaunchArg& rest : back.rest) {
        EXPECT_EQ(rest.flag, "--seq-length") << to_string(engine) << " " << knob.key;
      }
    }
  }
}

TEST(Knobs, ABridgeOnlyKnobIsWrittenForBridgeAndRefusedByTheOthers) {
  // act_fp8_store: Megatron-Core's activation_func_fp8_input_store, a config field with no
  // Megatron-LM argument. Megatron-Bridge's job writes its override; slime, miles and Megatron-LM
  // refuse the layout rather than drop the setting.
  const Knob* knob = find_knob("act_fp8_store");
  ASSERT_NE(knob, nullptr);
  Layout l;
  l.act_fp8_store = true;
  const std::vector<EngineArg> bridge = layout_engine_args(l, Engine::bridge, 8192);
  EXPECT_TRUE(std::any_of(bridge.begin(), bridge.end(), [](const EngineArg& a) {
    return a.flag == "model.activation_func_fp8_input_store" && !a.value;
  }));
  for (Engine engine : {Engine::slime, Engine::miles, Engine::megatron}) {
    SCOPED_TRACE(to_string(engine));
    EXPECT_LADLE_ERROR(layout_engine_args(l, engine, 8192), usage, "use --engine bridge");
    EXPECT_NE(engine_refusal(l, engine_mask(engine)), std::nullopt);
  }
  EXPECT_EQ(engine_refusal(l, engine_mask(Engine::bridge)), std::nullopt);
  // Off, its default, is every engine's: nothing written, nothing refused.
  l.act_fp8_store = false;
  for (Engine engine : {Engine::slime, Engine::miles, Engine::megatron, Engine::bridge})
    EXPECT_EQ(engine_refusal(l, engine_mask(engine)), std::nullopt);
}

TEST(Knobs, AnotherFrameworksChoiceIsReadButNeverWritten) {
  // fp4_recipe=mxfp4 is AMD Primus's: ladle reads and prices it (MLPerf's AMD runs), but no engine
  // ladle writes takes it (Megatron-LM's --fp4-recipe choices are nvfp4 and custom), so writing
  // the layout's arguments is refused with the row's line, for every engine.
  Layout l;
  l.fp4 = Fp4Format::e2m1;
  l.fp4_recipe = Fp4Recipe::mxfp4;
  for (Engine engine : {Engine::slime, Engine::miles, Engine::megatron, Engine::bridge}) {
    SCOPED_TRACE(to_string(engine));
    const std::optional<std::string_view> line = engine_refusal(l, engine_mask(engine));
    ASSERT_NE(line, std::nullopt);
    EXPECT_NE(line->find("AMD Primus"), std::string_view::npos) << *line;
    EXPECT_LADLE_ERROR(layout_engine_args(l, engine, 8192), usage, "AMD Primus");
  }
  // The recipe applies under FP4 only: without --fp4-format nothing is refused.
  l.fp4 = Fp4Format::none;
  EXPECT_EQ(engine_refusal(l, engine_mask(Engine::megatron)), std::nullopt);
  l.fp4 = Fp4Format::e2m1;
  l.fp4_recipe = Fp4Recipe::nvfp4;
  EXPECT_EQ(engine_refusal(l, engine_mask(Engine::megatron)), std::nullopt);
}

TEST(Knobs, ABridgeOverrideIsRefusedByTheOtherEnginesAndMakesTheGuessBridge) {
  // run_recipe.py's overrides and options are Megatron-Bridge's syntax alone: Megatron-LM's,
  // slime's and miles' argparse parsers refuse them, so a job of theirs holding one is an error at
  // the override, not a layout read as if the engine took it.
  const args::LaunchArgs launch = args::parse_launch_args(
      "--tensor-model-parallel-size 2 model.expert_model_parallel_size=8 -sl 4096 model.unknown_key=3",
      "a.sh");
  for (Engine engine : {Engine::slime, Engine::miles, Engine::megatron}) {
    SCOPED_TRACE(to_string(engine));
    EXPECT_LADLE_ERROR(read_layout_args(training_args(launch), engine, "a.sh"), input,
                       std::string("a.sh:1:32: error: model.expert_model_parallel_size: a Megatron-Bridge override, "
                                   "which a ") +
                           to_string(engine) + " job does not take (its argument is --expert-model-parallel-size)");
  }
  // An option of run_recipe.py, and a key ladle does not know, are refused alike.
  const args::LaunchArgs option = args::parse_launch_args("--tensor-model-parallel-size 2 -sl 4096", "b.sh");
  EXPECT_LADLE_ERROR(read_layout_args(training_args(option), Engine::slime, "b.sh"), input,
                     "-sl: a Megatron-Bridge override, which a slime job does not take (its argument is --seq-length)");
  const args::LaunchArgs unknown = args::parse_launch_args("--tensor-model-parallel-size 2 model.unknown_key=3", "c.sh");
  EXPECT_LADLE_ERROR(read_layout_args(training_args(unknown), Engine::megatron, "c.sh"), input,
                     "model.unknown_key: a Megatron-Bridge override, which a megatron job does not take");
  // With no engine named, an override says the job is Megatron-Bridge's, which reads it.
  EXPECT_EQ(guess_engine(launch), Engine::bridge);
  const ArgsLayout read = read_layout_args(training_args(launch), Engine::bridge, "a.sh");
  EXPECT_EQ(read.layout.tp, 2);
  EXPECT_EQ(read.layout.ep, 8);
  // Megatron-LM's own arguments alone are no Megatron-Bridge job.
  EXPECT_NE(guess_engine(args::parse_launch_args("--tensor-model-parallel-size 2 --seq-length 4096", "d.sh")),
            Engine::bridge);
}

TEST(Knobs, BridgePeftSetsTheLoraRowsMilesArgumentsSet) {
  // Megatron-Bridge's LoRA (NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/peft/lora.py at
  // 067f987d): run_recipe.py's --mode lora (or peft=lora) is LoRA at its dataclass defaults, dim 32
  // and alpha 32; peft.dim, peft.alpha and peft.target_modules=[...] then set the rows miles'
  // --lora-rank, --lora-alpha and --target-modules set.
  const auto read = [](const std::string& words) {
    return read_layout_args(
        training_args(args::parse_launch_args("torchrun run_recipe.py --recipe qwen3_8b_config " + words, "p.sh")),
        Engine::bridge, "p.sh");
  };
  const Layout by_mode = read("--mode lora").layout;
  EXPECT_EQ(by_mode.lora_rank, 32);
  EXPECT_EQ(by_mode.lora_alpha, 32);
  EXPECT_EQ(by_mode.lora_targets, "");  // LoRA's default targets: every linear
  EXPECT_EQ(read("peft=lora").layout, by_mode);
  EXPECT_EQ(read("peft=LoRA").layout, by_mode);
  // The launch's own rank and alpha replace the scheme's defaults, in either order.
  const ArgsLayout given = read("--mode lora peft.dim=8 peft.alpha=16 'peft.target_modules=[linear_qkv,\"linear_proj\"]'");
  EXPECT_EQ(given.layout.lora_rank, 8);
  EXPECT_EQ(given.layout.lora_alpha, 16);
  EXPECT_EQ(given.layout.lora_targets, "linear_qkv,linear_proj");
  EXPECT_EQ(read("peft.dim=8 peft=lora").layout.lora_rank, 8);
  for (const args::LaunchArg& rest : given.rest) EXPECT_NE(rest.flag.rfind("peft", 0), 0u) << rest.flag;
  // miles' arguments for the same adapters read to the same layout.
  const Layout miles =
      read_layout_args(training_args(args::parse_launch_args(
                           "python3 train.py --lora-rank 8 --lora-alpha 16 --target-modules linear_qkv,linear_proj", "m.sh")),
                       Engine::miles, "m.sh")
          .layout;
  EXPECT_EQ(miles.lora_rank, given.layout.lora_rank);
  EXPECT_EQ(miles.lora_alpha, given.layout.lora_alpha);
  EXPECT_EQ(miles.lora_targets, given.layout.lora_targets);
  // No adapters: peft=null, peft=none, --mode sft or pretrain.
  for (const char* none : {"peft=null", "peft=none", "--mode sft", "--mode pretrain"}) {
    EXPECT_EQ(read(none).layout.lora_rank, 0) << none;
  }
  // Without --mode, run_recipe.py infers the mode from a complete recipe's name (recipe_metadata.py
  // infer_recipe_mode): *_peft_* and *_lora_* are LoRA, *_sft_* and *_dora_* are not priced as LoRA;
  // an explicit --mode wins over the name.
  const auto recipe = [](const std::string& words) {
    return read_layout_args(training_args(args::parse_launch_args("torchrun run_recipe.py " + words, "r.sh")),
                            Engine::bridge, "r.sh")
        .layout;
  };
  EXPECT_EQ(recipe("--recipe gpt_oss_20b_peft_config"), by_mode);
  EXPECT_EQ(recipe("--recipe llama3_8b_lora_fp8_config peft.dim=16").lora_rank, 16);
  EXPECT_EQ(recipe("--recipe llama3_8b_sft_config").lora_rank, 0);
  EXPECT_EQ(recipe("--recipe llama3_8b_dora_peft_config").lora_rank, 0);  // _dora_ comes first
  EXPECT_EQ(recipe("--recipe gpt_oss_20b_peft_config --mode sft").lora_rank, 0);
  // DoRA is not priced as LoRA: --mode dora stays in the not-priced list, the rank at 0.
  const JobArgs dora = read_job_args(
      args::parse_launch_args("torchrun run_recipe.py --recipe x_peft_config --mode dora", "d.sh"), Engine::bridge,
      "d.sh");
  EXPECT_EQ(dora.layout.layout.lora_rank, 0);
  EXPECT_NE(std::find(dora.not_priced.begin(), dora.not_priced.end(), "--mode"), dora.not_priced.end());
  // Values that are not what the fields take are errors at the override (column 49: after
  // "torchrun run_recipe.py --recipe qwen3_8b_config ", 48 characters).
  EXPECT_LADLE_ERROR(read("peft.dim=eight"), input, "p.sh:1:49: error: peft.dim: expected an integer");
  EXPECT_LADLE_ERROR(read("peft.target_modules=linear_qkv"), input,
                     "p.sh:1:49: error: peft.target_modules: expected a list of module names");
  EXPECT_LADLE_ERROR(read("peft=[lora]"), input, "p.sh:1:49: error: peft: expected a PEFT scheme name");
  // ladle's Megatron-Bridge job is --mode pretrain: it refuses to write adapters rather than drop them.
  EXPECT_LADLE_ERROR(layout_engine_args(given.layout, Engine::bridge, 4096), usage,
                     "reads Megatron-Bridge's --mode lora and peft.dim but does not write them");
}

TEST(Knobs, ASwitchThatTurnsAKnobOffReadsFromItsBridgeOverride) {
  // grad_accum_fusion is on by default; Megatron-LM's only argument is --no-gradient-accumulation-fusion
  // (megatron/training/arguments.py, store_false, at d98e8a64). Megatron-Bridge's
  // model.gradient_accumulation_fusion=false is that switch, =true the default.
  const auto read = [](const std::string& words, Engine engine) {
    return read_layout_args(training_args(args::parse_launch_args(words, "g.sh")), engine, "g.sh").layout;
  };
  EXPECT_TRUE(Layout{}.grad_accum_fusion);
  EXPECT_FALSE(read("--no-gradient-accumulation-fusion", Engine::megatron).grad_accum_fusion);
  EXPECT_FALSE(read("model.gradient_accumulation_fusion=false", Engine::bridge).grad_accum_fusion);
  EXPECT_TRUE(read("model.gradient_accumulation_fusion=true", Engine::bridge).grad_accum_fusion);
  EXPECT_LADLE_ERROR(read("model.gradient_accumulation_fusion=1x", Engine::bridge), input,
                     "g.sh:1:1: error: model.gradient_accumulation_fusion: expected true or false");
  // The amax history: Megatron-LM's argument and Megatron-Bridge's field, and the delayed-scaling
  // recipe by name, which sets 1024 (training/mixed_precision.py at 067f987d).
  EXPECT_EQ(read("--fp8-format hybrid --fp8-amax-history-len 16", Engine::megatron).fp8_amax_history, 16);
  EXPECT_EQ(read("mixed_precision.fp8_amax_history_len=16", Engine::bridge).fp8_amax_history, 16);
  // (After the command: a first word NAME=VALUE is a shell assignment.)
  EXPECT_EQ(read("python run_recipe.py mixed_precision=bf16_with_fp8_delayed_scaling_mixed", Engine::bridge).fp8_amax_history,
            1024);
  EXPECT_EQ(Layout{}.fp8_amax_history, 1);
  EXPECT_LADLE_ERROR(read("--fp8-amax-history-len 0", Engine::megatron), input,
                     "g.sh:1:1: error: --fp8-amax-history-len: 0 is out of range");
}

// The amax compute algorithm, added as one row of the knob table: Megatron-LM's argument,
// Megatron-Bridge's field and its delayed-scaling recipe by name, the recipe block and the engine
// arguments all come from that row.
TEST(Knobs, Fp8AmaxComputeAlgoIsOneRowEndToEnd) {
  const auto read = [](const std::string& words, Engine engine) {
    return read_layout_args(training_args(args::parse_launch_args(words, "g.sh")), engine, "g.sh").layout;
  };
  EXPECT_EQ(Layout{}.fp8_amax_algo, Fp8AmaxAlgo::most_recent);
  EXPECT_EQ(read("--fp8-format hybrid --fp8-amax-compute-algo max", Engine::megatron).fp8_amax_algo, Fp8AmaxAlgo::max);
  EXPECT_EQ(read("--fp8-format hybrid", Engine::megatron).fp8_amax_algo, Fp8AmaxAlgo::most_recent);
  EXPECT_EQ(read("mixed_precision.fp8_amax_compute_algo=max", Engine::bridge).fp8_amax_algo, Fp8AmaxAlgo::max);
  // Megatron-Bridge's bf16_with_fp8_delayed_scaling_mixed sets max (training/mixed_precision.py at 05097809).
  EXPECT_EQ(read("python run_recipe.py mixed_precision=bf16_with_fp8_delayed_scaling_mixed", Engine::bridge).fp8_amax_algo,
            Fp8AmaxAlgo::max);
  EXPECT_LADLE_ERROR(read("--fp8-amax-compute-algo mean", Engine::megatron), input,
                     "g.sh:1:1: error: --fp8-amax-compute-algo: unknown fp8_amax_algo 'mean'");

  Layout l = parse_layout_spec("tp=1,fp8=hybrid,fp8_recipe=delayed,fp8_amax_algo=max");
  EXPECT_EQ(l.fp8_amax_algo, Fp8AmaxAlgo::max);
  const RecipeLayout block = to_recipe_layout(l, 4096);
  ASSERT_NE(block.knob("fp8_amax_compute_algo"), nullptr);
  EXPECT_EQ(std::get<std::string>(*block.knob("fp8_amax_compute_algo")), "max");
  EXPECT_EQ(from_recipe_layout(block).fp8_amax_algo, Fp8AmaxAlgo::max);
  // At its default the block leaves it out.
  EXPECT_EQ(to_recipe_layout(parse_layout_spec("tp=1,fp8=hybrid"), 4096).knob("fp8_amax_compute_algo"), nullptr);

  const std::vector<EngineArg> written = layout_engine_args(l, Engine::megatron, 4096);
  EXPECT_NE(std::find(written.begin(), written.end(), EngineArg{"--fp8-amax-compute-algo", "max"}), written.end());
}

// SwiGLU's fusion, one row of the knob table: Megatron-LM's switch --no-bias-swiglu-fusion
// (arguments.py at d98e8a64), Megatron-Bridge's model.bias_activation_fusion, the spec, the recipe
// block and the arguments written for each engine all come from that row.
TEST(Knobs, SwigluFusionIsOneRowEndToEnd) {
  const auto read = [](const std::string& words, Engine engine) {
    return read_layout_args(training_args(args::parse_launch_args(words, "g.sh")), engine, "g.sh").layout;
  };
  EXPECT_TRUE(Layout{}.swiglu_fusion);
  EXPECT_FALSE(read("--swiglu --no-bias-swiglu-fusion", Engine::megatron).swiglu_fusion);
  EXPECT_TRUE(read("--swiglu", Engine::megatron).swiglu_fusion);
  EXPECT_FALSE(read("--no-bias-swiglu-fusion", Engine::slime).swiglu_fusion);
  EXPECT_FALSE(read("model.bias_activation_fusion=false", Engine::bridge).swiglu_fusion);
  EXPECT_TRUE(read("model.bias_activation_fusion=true", Engine::bridge).swiglu_fusion);
  EXPECT_LADLE_ERROR(read("model.bias_activation_fusion=maybe", Engine::bridge), input,
                     "g.sh:1:1: error: model.bias_activation_fusion: expected true or false");

  const Layout l = parse_layout_spec("tp=2,sp=on,swiglu_fusion=off");
  EXPECT_FALSE(l.swiglu_fusion);
  EXPECT_TRUE(format_layout_spec(l).ends_with(",swiglu_fusion=off")) << format_layout_spec(l);
  EXPECT_FALSE(parse_layout_spec(format_layout_spec(l)).swiglu_fusion);
  EXPECT_EQ(format_layout_spec(parse_layout_spec("tp=2,sp=on")).find("swiglu_fusion"), std::string::npos);
  const RecipeLayout block = to_recipe_layout(l, 4096);
  ASSERT_NE(block.knob("bias_swiglu_fusion"), nullptr);
  EXPECT_EQ(std::get<bool>(*block.knob("bias_swiglu_fusion")), false);
  EXPECT_FALSE(from_recipe_layout(block).swiglu_fusion);
  // At its default the block, the spec and the arguments leave it out.
  EXPECT_EQ(to_recipe_layout(parse_layout_spec("tp=2,sp=on"), 4096).knob("bias_swiglu_fusion"), nullptr);
  const auto written = [](const Layout& layout, Engine engine, const std::string& flag) -> std::optional<EngineArg> {
    const std::vector<EngineArg> args = layout_engine_args(layout, engine, 4096);
    const auto it = std::find_if(args.begin(), args.end(), [&](const EngineArg& a) { return a.flag == flag; });
    if (it == args.end()) return std::nullopt;
    return *it;
  };
  EXPECT_FALSE(written(parse_layout_spec("tp=2,sp=on"), Engine::megatron, "--no-bias-swiglu-fusion"));
  const std::optional<EngineArg> megatron = written(l, Engine::megatron, "--no-bias-swiglu-fusion");
  ASSERT_TRUE(megatron);
  EXPECT_EQ(megatron->value, std::nullopt);
  EXPECT_EQ(megatron->knob->key, "swiglu_fusion");
}

TEST(Knobs, EveryKnobRoundTripsThroughTheRecipeBlock) {
  for (const Knob& knob : kKnobs) {
    if (knob.recipe.empty()) continue;
    Layout l = with_knob(knob);
    l.dp = 2;
    const RecipeLayout block = to_recipe_layout(l, 8192);
    Layout back = from_recipe_layout(block);
    if (knob.key != "precision_aware") back.precision_aware = l.precision_aware;
    EXPECT_EQ(back, l) << knob.key;
  }
}

TEST(Knobs, ReadsOlderSpellings) {
  const auto read = [](std::string_view script) {
    return read_layout_args(args::parse_launch_args(script, "t").args, Engine::megatron).layout;
  };
  EXPECT_EQ(read("p --enable-cuda-graph").cuda_graph, CudaGraphImpl::local);
  EXPECT_EQ(read("p --external-cuda-graph").cuda_graph, CudaGraphImpl::transformer_engine);
  // The deprecated --cuda-graph-scope full_iteration migrates a local (or no) impl to
  // full_iteration, as Megatron-LM's cuda_graph_config.py does; any other impl is refused.
  EXPECT_EQ(read("p --cuda-graph-impl local --cuda-graph-scope full_iteration").cuda_graph,
            CudaGraphImpl::full_iteration);
  EXPECT_EQ(read("p --cuda-graph-scope full_iteration --cuda-graph-impl local").cuda_graph,
            CudaGraphImpl::full_iteration);
  EXPECT_EQ(read("p --cuda-graph-scope full_iteration").cuda_graph, CudaGraphImpl::full_iteration);
  EXPECT_LADLE_ERROR(
      read("p --cuda-graph-impl transformer_engine --cuda-graph-scope full_iteration"), input,
      "full_iteration cannot be combined with cuda_graph_impl=transformer_engine");
  // The refusal points at the deprecated argument's own column.
  EXPECT_LADLE_ERROR(
      read_layout_args(args::parse_launch_args(
                           "p --cuda-graph-impl transformer_engine --cuda-graph-scope full_iteration", "t")
                           .args,
                       Engine::megatron, "t"),
      input, "t:1:40: error: --cuda-graph-scope: contradicts");
  const Layout scope =
      read("p --cuda-graph-impl transformer_engine --cuda-graph-scope attn moe_router");
  EXPECT_EQ(scope.graph_modules, bit(GraphModule::attn) | bit(GraphModule::moe_router));
  EXPECT_EQ(read("p --moe-token-dispatcher-type flex --moe-enable-deepep").flex_backend,
            FlexBackend::deepep);
  EXPECT_EQ(read("p --virtual-pipeline-model-parallel-size 4").vpp, 4);
  EXPECT_EQ(read("p --grad-reduce-in-bf16").grad_reduce, StateDtype::bf16);
  EXPECT_EQ(read("p --use-torch-fsdp2").fsdp, Fsdp::torch);
  EXPECT_EQ(read("p --hierarchical-context-parallel-sizes 2 4 --cp-comm-type a2a+p2p").cp_inner, 2);
}

TEST(Knobs, TwoArgumentsSettingOneKnobDifferentlyAreOneError) {
  EXPECT_LADLE_ERROR(
      read_layout_args(args::parse_launch_args("p --grad-reduce-in-bf16 \\\n"
                                                 "  --accumulate-allreduce-grads-in-fp32",
                                                 "s.sh")
                           .args,
                       Engine::megatron, "s.sh"),
      input,
      "s.sh:2:3: error: --accumulate-allreduce-grads-in-fp32: contradicts --grad-reduce-in-bf16 (line 1): both "
      "set grad_reduce");
}

TEST(Knobs, RejectsValuesOutOfRangeNamingTheArgument) {
  EXPECT_LADLE_ERROR(
      read_layout_args(args::parse_launch_args("p --fp8-recipe mxfp9", "s.sh").args,
                       Engine::megatron),
      input, "--fp8-recipe: unknown fp8_recipe 'mxfp9' (did you mean 'mxfp8'?)");
  EXPECT_LADLE_ERROR(
      read_layout_args(args::parse_launch_args("p --tensor-model-parallel-size 0", "s.sh").args,
                       Engine::megatron),
      input, "--tensor-model-parallel-size: 0 is out of range 1..65536");
  EXPECT_LADLE_ERROR(
      read_layout_args(args::parse_launch_args("p --recompute-modules", "s.sh").args,
                       Engine::megatron),
      input, "expected a value after --recompute-modules");
}

TEST(Knobs, TrainingArgumentsLeaveTheLauncherOut) {
  const args::LaunchArgs script = args::parse_launch_args(
      "ray start --head --num-gpus 8\n"
      "torchrun --nproc-per-node 8 --nnodes 2 pretrain_gpt.py --tensor-model-parallel-size 2\n"
      "srun -N 2 python3 train.py --pipeline-model-parallel-size 4\n",
      "s.sh");
  std::vector<std::string> flags;
  for (const args::LaunchArg& arg : training_args(script)) flags.push_back(arg.flag);
  // ray start starts no training script: none of its arguments are training arguments.
  EXPECT_EQ(flags, (std::vector<std::string>{"--tensor-model-parallel-size",
                                             "--pipeline-model-parallel-size"}));
  EXPECT_EQ(guess_engine(script), Engine::megatron);
}

}  // namespace
}  // namespace ladle::layout

namespace ladle::layout {
namespace {

// The arguments the planner's vocabulary promises (every knob that moves memory or speed, in the
// order of their effect): each is a row of the table with a spec key, a recipe field and a
// Megatron-Bridge override, so the round trips above cover it; and an argument line holding it
// alone reads back to the layout that writes the same line, for every engine.
TEST(Knobs, EveryPromisedArgumentIsARowThatRoundTrips) {
  const std::vector<std::string_view> promised = {
      "--grad-reduce-in-bf16", "--accumulate-allreduce-grads-in-fp32", "--main-grads-dtype",
      "--main-params-dtype", "--exp-avg-dtype", "--exp-avg-sq-dtype", "--fp8-format", "--fp8-recipe",
      "--fp8-param-gather", "--first-last-layers-bf16", "--recompute-granularity", "--recompute-modules",
      "--recompute-method", "--recompute-num-layers", "--pipeline-model-parallel-layout",
      "--num-layers-per-virtual-pipeline-stage", "--decoder-first-pipeline-num-layers",
      "--decoder-last-pipeline-num-layers", "--account-for-embedding-in-pipeline-split",
      "--account-for-loss-in-pipeline-split", "--overlap-moe-expert-parallel-comm", "--delay-wgrad-compute",
      "--moe-shared-expert-overlap", "--moe-flex-dispatcher-backend", "--moe-enable-deepep",
      "--moe-router-force-load-balancing", "--moe-expert-capacity-factor", "--moe-pad-expert-input-to-capacity",
      "--moe-permute-fusion", "--moe-router-fusion", "--moe-router-dtype", "--cuda-graph-impl", "--cuda-graph-scope",
      "--overlap-grad-reduce", "--overlap-param-gather", "--tp-comm-overlap",
      "--num-distributed-optimizer-instances", "--use-megatron-fsdp", "--data-parallel-sharding-strategy",
      "--use-torch-fsdp2", "--cross-entropy-loss-fusion", "--cross-entropy-fusion-impl",
      "--fine-grained-activation-offloading", "--offload-modules", "--cp-comm-type",
      "--hierarchical-context-parallel-sizes"};
  for (std::string_view flag : promised) {
    const Knob* knob = find_knob_by_flag(flag);
    ASSERT_NE(knob, nullptr) << flag;
    EXPECT_FALSE(knob->recipe.empty()) << flag << ": no recipe field";
    // Megatron-Bridge takes the virtual size, not the layers per virtual stage.
    if (knob->key != "vpp_layers") {
      EXPECT_FALSE(knob->bridge.empty()) << flag << ": no Bridge override";
    }
    for (Engine engine : {Engine::slime, Engine::miles, Engine::megatron}) {
      if (!engine_takes(*knob, engine)) continue;
      Layout l = with_knob(*knob);
      if (engine == Engine::megatron) l.max_tokens = 0;
      const std::vector<EngineArg> written = layout_engine_args(l, engine, 8192);
      const ArgsLayout back =
          read_layout_args(training_args(args::parse_launch_args(script_for(written), "test")), engine);
      EXPECT_EQ(layout_engine_args(back.layout, engine, 8192), written) << to_string(engine) << " " << flag;
      EXPECT_EQ(back.layout, l) << to_string(engine) << " " << flag;
    }
    const Layout l = with_knob(*knob);
    EXPECT_EQ(parse_layout_spec(format_layout_spec(l)), l) << flag;
    // This very spelling is read (not only the one the writer chooses).
    for (const KnobArg& arg : knob->args) {
      if (arg.flag != flag) continue;
      std::string value = arg.form == ArgForm::on ? std::string(arg.on_value) : other_value(*knob);
      if (knob->kind == KnobKind::set) std::replace(value.begin(), value.end(), '+', ' ');
      const bool quote = value.find_first_of("|*()") != std::string::npos;
      if (quote) value = "'" + value + "'";
      // Hierarchical CP takes both group sizes; the knob holds the all-to-all one.
      if (knob->key == "cp_inner") value += " 4";
      const std::string line = "p " + std::string(flag) + (arg.form == ArgForm::on ? "" : " " + value);
      const Layout read = read_layout_args(args::parse_launch_args(line, "t").args, Engine::megatron).layout;
      std::string expected = arg.form == ArgForm::on ? std::string(arg.on_value) : other_value(*knob);
      EXPECT_EQ(knob_text(*knob, read), expected) << line;
    }
  }
}

}  // namespace
}  // namespace ladle::layout
