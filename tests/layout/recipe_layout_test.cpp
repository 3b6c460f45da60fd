#include "ladle/layout/recipe_layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "ladle/layout/layout_spec.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "support/test_support.hpp"

namespace ladle::layout {
namespace {

Recipe seed(const std::string& path) { return recipe::read_recipe_file(test::source_path(path)).recipe; }

TEST(RecipeLayout, ReadsTheGlm52SeedBlockAndArguments) {
  const Recipe r = seed("recipes/glm-5.2-744b-a40b/h200/attune-tp4-pp4.yaml");
  const Layout l = layout_from_recipe(r);
  EXPECT_EQ(format_layout_spec(l),
            "tp=4,pp=4,cp=1,ep=32,etp=1,dp=8,sp=on,vpp=1,first=18,last=20,recompute=selective,offload=1.0,"
            "overlap=on,precision_aware=on,max_tokens=8192,rows_per_mb=1,dispatcher=alltoall");
  // The launch arguments say the same (dp is implied by the GPU count).
  Layout from_args = layout_from_run_args(args::parse_run_script(r.run));
  from_args.dp = l.dp;
  from_args.rows_per_mb = l.rows_per_mb;
  EXPECT_EQ(from_args, l);
}

TEST(RecipeLayout, ReadsTheFlashSeedWithFullRecomputeAndNoOffload) {
  const Layout l = layout_from_recipe(seed("recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml"));
  EXPECT_EQ(format_layout_spec(l),
            "tp=1,pp=1,cp=1,ep=8,etp=1,dp=8,sp=off,vpp=1,recompute=full:uniform:1,offload=0.0,overlap=off,"
            "precision_aware=on,max_tokens=16384,rows_per_mb=2,dispatcher=alltoall");
}

TEST(RecipeLayout, BlockRoundTrips) {
  const Recipe r = seed("recipes/glm-5.2-744b-a40b/h200/attune-tp8-pp4.yaml");
  const Layout l = layout_from_recipe(r);
  const RecipeLayout block = to_recipe_layout(l, 8192);
  EXPECT_EQ(block.label, r.layout.label);
  EXPECT_EQ(block.tp, r.layout.tp);
  EXPECT_EQ(block.layer_split, r.layout.layer_split);
  EXPECT_EQ(block.recompute, r.layout.recompute);
  EXPECT_EQ(block.offload, r.layout.offload);
  EXPECT_EQ(block.dispatcher, r.layout.dispatcher);
  EXPECT_EQ(block.max_tokens_per_gpu, r.layout.max_tokens_per_gpu);
  Layout back = from_recipe_layout(block);
  back.precision_aware = l.precision_aware;
  EXPECT_EQ(back, l);
  EXPECT_NE(block.summary.find("TP 8, PP 4 (first stage 18 layers, last 20), CP 1, EP 32, ETP 1, DP 4, sequence parallel; "
                               "one 8,192-token row per microbatch; selective recompute; CPU optimizer offload with "
                               "overlapped copies and the precision-aware optimizer; alltoall dispatcher"),
            std::string::npos)
      << block.summary;
}

// A field another knob implies (the rows' recipe_implied) is left out at the implied value and
// read back as it: precision_aware is on under an offload, exp_avg_sq_dtype follows exp_avg_dtype.
TEST(RecipeLayout, ImpliedFieldsAreLeftOutAtTheirImpliedValue) {
  Layout l = parse_layout_spec("tp=1,offload=0.5");
  l.precision_aware = true;
  l.moments = StateDtype::bf16;
  l.moments_sq = StateDtype::bf16;
  RecipeLayout block = to_recipe_layout(l, 4096);
  EXPECT_EQ(block.knob("precision_aware"), nullptr);
  EXPECT_EQ(block.knob("exp_avg_sq_dtype"), nullptr);
  ASSERT_NE(block.knob("exp_avg_dtype"), nullptr);
  EXPECT_EQ(from_recipe_layout(block), l);
  // Away from the implied value, the field is written and read back.
  l.precision_aware = false;
  l.moments_sq = StateDtype::fp32;
  block = to_recipe_layout(l, 4096);
  EXPECT_NE(block.knob("precision_aware"), nullptr);
  EXPECT_NE(block.knob("exp_avg_sq_dtype"), nullptr);
  EXPECT_EQ(from_recipe_layout(block), l);
  // Without an offload nothing implies precision_aware: on is written, off (the default) is not.
  l = parse_layout_spec("tp=1,offload=0.0");
  l.precision_aware = true;
  EXPECT_NE(to_recipe_layout(l, 4096).knob("precision_aware"), nullptr);
  EXPECT_EQ(from_recipe_layout(to_recipe_layout(l, 4096)), l);
  l.precision_aware = false;
  EXPECT_EQ(to_recipe_layout(l, 4096).knob("precision_aware"), nullptr);
}

TEST(RecipeLayout, EngineArgumentsRoundTripForEveryEngine) {
  const Layout l = parse_layout_spec("tp=2,pp=4,cp=2,ep=8,etp=2,dp=2,sp=on,vpp=2,first=5,last=7,"
                                     "recompute=full:block:2,offload=0.5,overlap=on,precision_aware=on,"
                                     "moments=bf16,max_tokens=8192,rows_per_mb=2,dispatcher=flex");
  for (Engine engine : {Engine::slime, Engine::miles, Engine::megatron}) {
    std::string script = "python3 train.py";
    for (const EngineArg& arg : layout_engine_args(l, engine, 8192)) {
      script += " " + arg.flag + (arg.value ? " " + *arg.value : "");
    }
    Layout back = read_layout_args(args::parse_launch_args(script, "t").args, engine).layout;
    back.dp = l.dp;
    if (engine == Engine::megatron) back.max_tokens = l.max_tokens;
    if (engine != Engine::megatron) back.rows_per_mb = l.rows_per_mb;
    EXPECT_EQ(back, l) << to_string(engine) << ": " << script;
  }
}

TEST(RecipeLayout, RealsRoundTripInTheBlockAndTheArgumentsToTheLastDigit) {
  const Layout l = parse_layout_spec("tp=1,ep=8,capacity=0.16777777,offload=0.3333333333333333,overlap=on");
  EXPECT_EQ(from_recipe_layout(to_recipe_layout(l, 8192)).capacity, l.capacity);
  EXPECT_EQ(from_recipe_layout(to_recipe_layout(l, 8192)).offload, l.offload);
  std::string script = "python3 train.py";
  for (const EngineArg& arg : layout_engine_args(l, Engine::megatron, 8192)) {
    script += " " + arg.flag + (arg.value ? " " + *arg.value : "");
  }
  const Layout back = read_layout_args(args::parse_launch_args(script, "t").args, Engine::megatron).layout;
  EXPECT_EQ(back.capacity, l.capacity) << script;
  EXPECT_EQ(back.offload, l.offload) << script;
}

TEST(RecipeLayout, DualPipeRoundTripsInTheBlockButHasNoEngineArgument) {
  const Layout l = parse_layout_spec("tp=1,pp=4,ep=8,dp=8,schedule=dualpipe,dispatcher=flex");
  EXPECT_EQ(l.schedule, PipelineSchedule::dualpipe);
  EXPECT_NE(format_layout_spec(l).find(",schedule=dualpipe"), std::string::npos)
      << format_layout_spec(l);
  const RecipeLayout block = to_recipe_layout(l, 4096);
  ASSERT_TRUE(block.knob("pipeline_schedule") != nullptr);
  EXPECT_EQ(std::get<std::string>(*block.knob("pipeline_schedule")), "dualpipe");
  EXPECT_EQ(from_recipe_layout(block).schedule, PipelineSchedule::dualpipe);
  // 1F1B is the default, written nowhere.
  EXPECT_FALSE(
      to_recipe_layout(parse_layout_spec("tp=1,pp=4"), 4096).knob("pipeline_schedule") != nullptr);
  for (Engine engine : {Engine::slime, Engine::miles, Engine::megatron}) {
    EXPECT_LADLE_ERROR(layout_engine_args(l, engine, 4096), usage,
                       "no Megatron-LM argument runs DualPipe");
  }
}

// The companion arguments (the rows' companions) are written from the table, for their engines only:
// slime's batching switch before --max-tokens-per-gpu, the offload switch before the fraction (which
// is left out at the 1.0 the switch implies), Megatron-LM's --seq-length after --micro-batch-size.
std::vector<std::string> flags_of(const Layout& l, Engine engine) {
  std::vector<std::string> out;
  for (const EngineArg& arg : layout_engine_args(l, engine, 4096)) out.push_back(arg.flag + (arg.value ? "=" + *arg.value : ""));
  return out;
}

bool has(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

size_t index_of(const std::vector<std::string>& words, const std::string& word) {
  return static_cast<size_t>(std::find(words.begin(), words.end(), word) - words.begin());
}

TEST(RecipeLayout, CompanionArgumentsFollowTheirRowsAndEngines) {
  const Layout all = parse_layout_spec("tp=2,offload=1.0,max_tokens=8192,rows_per_mb=2");
  const std::vector<std::string> slime = flags_of(all, Engine::slime);
  EXPECT_LT(index_of(slime, "--use-dynamic-batch-size"), index_of(slime, "--max-tokens-per-gpu=8192"));
  EXPECT_LT(index_of(slime, "--optimizer-cpu-offload"), slime.size());
  EXPECT_EQ(std::count_if(slime.begin(), slime.end(), [](const std::string& w) { return w.starts_with("--optimizer-offload-fraction"); }), 0);
  EXPECT_FALSE(has(slime, "--seq-length=4096"));
  const std::vector<std::string> megatron = flags_of(all, Engine::megatron);
  EXPECT_FALSE(has(megatron, "--use-dynamic-batch-size"));
  EXPECT_EQ(index_of(megatron, "--seq-length=4096"), index_of(megatron, "--micro-batch-size=2") + 1);
  EXPECT_TRUE(has(flags_of(all, Engine::bridge), "--seq-length=4096"));
  const std::vector<std::string> half = flags_of(parse_layout_spec("tp=2,offload=0.5"), Engine::megatron);
  EXPECT_EQ(index_of(half, "--optimizer-offload-fraction=0.5"), index_of(half, "--optimizer-cpu-offload") + 1);
  const std::vector<std::string> none = flags_of(parse_layout_spec("tp=2,offload=0.0"), Engine::megatron);
  EXPECT_FALSE(has(none, "--optimizer-cpu-offload"));
  // The reader: the switch alone is the implied 1.0; a fraction without the switch offloads nothing.
  const auto offload_of = [](const std::string& script) {
    return read_layout_args(args::parse_launch_args(script, "t").args, Engine::megatron).layout.offload;
  };
  EXPECT_EQ(offload_of("python3 pretrain_gpt.py --optimizer-cpu-offload"), 1.0);
  EXPECT_EQ(offload_of("python3 pretrain_gpt.py --optimizer-offload-fraction 0.5"), 0.0);
  EXPECT_EQ(offload_of("python3 pretrain_gpt.py --optimizer-cpu-offload --optimizer-offload-fraction 0.5"), 0.5);
}

// The block's optional objects are written when a row of theirs that applies is away from its
// default: layer_split for a last stage alone, no recompute object without recompute, no offload
// object for an overlap that has nothing to overlap.
TEST(RecipeLayout, OptionalObjectsOfTheBlockFollowTheirRows) {
  const RecipeLayout last_only = to_recipe_layout(parse_layout_spec("tp=1,pp=4,last=3"), 4096);
  ASSERT_TRUE(last_only.layer_split.has_value());
  EXPECT_EQ(*last_only.layer_split, (LayerSplit{0, 3}));
  EXPECT_FALSE(to_recipe_layout(parse_layout_spec("tp=1"), 4096).layer_split.has_value());
  EXPECT_FALSE(to_recipe_layout(parse_layout_spec("tp=1,recompute=none"), 4096).recompute.has_value());
  const RecipeLayout selective = to_recipe_layout(parse_layout_spec("tp=1,recompute=selective"), 4096);
  ASSERT_TRUE(selective.recompute.has_value());
  EXPECT_EQ(selective.recompute->granularity, "selective");
  EXPECT_FALSE(selective.recompute->method.has_value());
  const RecipeLayout full = to_recipe_layout(parse_layout_spec("tp=1,recompute=full:block:2"), 4096);
  ASSERT_TRUE(full.recompute.has_value());
  EXPECT_EQ(full.recompute->method, std::optional<std::string>("block"));
  EXPECT_EQ(full.recompute->num_layers, std::optional<int64_t>(2));
  EXPECT_FALSE(to_recipe_layout(parse_layout_spec("tp=1,offload=0.0"), 4096).offload.has_value());
  EXPECT_EQ(to_recipe_layout(parse_layout_spec("tp=1,offload=0.25,overlap=on"), 4096).offload,
            (std::optional<Offload>(Offload{0.25, true})));
}

TEST(RecipeLayout, MissingFlagsTakeMegatronDefaults) {
  const Layout l = layout_from_run_args(args::parse_run_script("python3 train.py --tensor-model-parallel-size 4"));
  EXPECT_EQ(l.etp, 4);
  EXPECT_EQ(l.dispatcher, MoeDispatcher::allgather);
}

TEST(RecipeLayout, RejectsAnUnknownEngine) {
  EXPECT_LADLE_ERROR(parse_engine("slim"), usage, "unknown engine 'slim' (did you mean 'slime'?)");
}

}  // namespace
}  // namespace ladle::layout
