// `ladle diff` pieces: the embedded rules, the launch-script reader and the classification of the
// seeds' differences.
#include "ladle/verify/config_diff.hpp"

#include <set>
#include <string>

#include "ladle/verify/numerics_rules.hpp"
#include "support/test_support.hpp"

namespace ladle::verify {
namespace {

std::string seed(const std::string& name) { return test::source_path("tests/data/verify/seeds/" + name); }

TEST(NumericsRules, EmbeddedFileParsesAndEveryRuleHasAReasonAndSource) {
  const NumericsRules& rules = default_numerics_rules();
  EXPECT_GT(rules.rules.size(), 15u);
  EXPECT_EQ(rules.verdicts.size(), 4u);
  for (const NumericsRule& rule : rules.rules) {
    EXPECT_FALSE(rule.reason.empty());
    EXPECT_TRUE(rules.sources.count(rule.source)) << rule.source;
  }
  EXPECT_EQ(rules.find("--tensor-model-parallel-size")->arg_class, ArgClass::reduction_order_only);
  EXPECT_EQ(rules.find("--sglang-mem-fraction-static")->arg_class, ArgClass::layout_only);  // prefix rule
  EXPECT_EQ(rules.find("--not-a-flag"), nullptr);
}

TEST(NumericsRules, EveryArgumentOfTheSeedsIsClassified) {
  for (const char* name : {"glm-5.2-attune-tp4-pp4.yaml", "glm-5.2-attune-tp8-pp4.yaml",
                           "glm-4.7-flash-attune-tp1-pp1-ep8.yaml"}) {
    const LaunchArgs args = parse_launch_args(read_launch_script(seed(name)), name);
    EXPECT_GT(args.args.size(), 40u);
    for (const LaunchArg& arg : args.args) {
      if (arg.placeholder) continue;
      EXPECT_NE(default_numerics_rules().find(arg.flag), nullptr) << name << ": " << arg.flag;
    }
  }
}

TEST(NumericsRules, BadFilesAreRejectedWithTheirPlace) {
  const std::string head =
      "classes:\n  layout_only: {verdict: pass, description: d}\nsources:\n  s: somewhere\nrules:\n";
  EXPECT_LADLE_ERROR(parse_numerics_rules(head + "  - flags: [--a]\n    class: math_chnaging\n    reason: r\n    "
                                                 "source: s\n",
                                          "r.yaml"),
                     input, "r.yaml:7:12: error: rules[0].class: 'math_chnaging' is not a class (did you mean "
                            "'math_changing'?)");
  EXPECT_LADLE_ERROR(parse_numerics_rules(head + "  - flags: [--a]\n    class: layout_only\n    source: s\n", "r.yaml"),
                     input, "rules[0].reason: missing: every rule says why");
  EXPECT_LADLE_ERROR(parse_numerics_rules(head + "  - flags: [--a, --a]\n    class: layout_only\n    reason: r\n    "
                                                 "source: s\n",
                                          "r.yaml"),
                     input, "'--a' is ruled twice");
  EXPECT_LADLE_ERROR(parse_numerics_rules(head + "  - flags: [--a]\n    class: layout_only\n    reason: r\n    "
                                                 "source: nowhere\n",
                                          "r.yaml"),
                     input, "'nowhere' is not an id of sources");
}

TEST(LaunchArgs, QuotingContinuationsPlaceholdersAndRepeats) {
  const std::string script = R"(export A=1  # a comment
MODEL_ARGS=(--num-layers 2)
CUDA_VISIBLE_DEVICES=0 torchrun --nproc-per-node 8 pretrain.py \
  "${MODEL_ARGS[@]}" \
  --data-path 0.3 "$DATA/a b" 0.7 '$DATA/c' \
  --lr=1e-5 --seed -1 \
  --bf16 --tag "x \"y\"" --save $(pwd)/ckpt --tag z && echo done
)";
  const LaunchArgs args = parse_launch_args(script, "run.sh");
  ASSERT_EQ(args.commands.size(), 1u);
  EXPECT_EQ(args.commands[0], "torchrun");
  ASSERT_EQ(args.args.size(), 9u);
  EXPECT_EQ(args.args[0].flag, "--nproc-per-node");
  EXPECT_EQ(args.args[0].values, (std::vector<std::string>{"8", "pretrain.py"}));
  EXPECT_TRUE(args.args[1].placeholder);
  EXPECT_EQ(args.args[1].flag, "${MODEL_ARGS[@]}");
  EXPECT_EQ(args.args[1].line, 4);
  EXPECT_EQ(args.args[2].values, (std::vector<std::string>{"0.3", "$DATA/a b", "0.7", "$DATA/c"}));
  EXPECT_EQ(args.args[3].flag, "--lr");
  EXPECT_EQ(args.args[3].values, (std::vector<std::string>{"1e-5"}));
  EXPECT_EQ(args.args[4].values, (std::vector<std::string>{"-1"}));
  EXPECT_TRUE(args.args[5].values.empty());
  EXPECT_EQ(args.args[6].values, (std::vector<std::string>{"x \"y\""}));
  EXPECT_EQ(args.args[7].values, (std::vector<std::string>{"$(pwd)/ckpt"}));
  EXPECT_EQ(args.args[8].flag, "--tag");
  EXPECT_EQ(args.args[8].line, 7);
}

TEST(LaunchArgs, UnterminatedQuoteIsAnError) {
  EXPECT_LADLE_ERROR(parse_launch_args("python3 x.py \\\n  --a \"oops\n", "run.sh"), input,
                     "run.sh:2: error: unterminated double quote in the launch script");
}

TEST(ConfigDiff, Glm52SeedsDifferInRunLengthAndTensorParallelism) {
  const auto a = parse_launch_args(read_launch_script(seed("glm-5.2-attune-tp4-pp4.yaml")), "a");
  const auto b = parse_launch_args(read_launch_script(seed("glm-5.2-attune-tp8-pp4.yaml")), "b");
  const ConfigDiff d = diff_launch_args(a, b, default_numerics_rules(), "tp4.yaml", "tp8.yaml");
  ASSERT_EQ(d.differences.size(), 2u);
  EXPECT_EQ(d.differences[0].flag, "--num-rollout");
  EXPECT_EQ(d.differences[0].a, "14");
  EXPECT_EQ(d.differences[0].b, "20");
  EXPECT_EQ(d.differences[0].arg_class, ArgClass::math_changing);
  EXPECT_EQ(d.differences[1].flag, "--tensor-model-parallel-size");
  EXPECT_EQ(d.differences[1].arg_class, ArgClass::reduction_order_only);
  EXPECT_EQ(d.configuration, "fail");
  EXPECT_EQ(d.verdict, "fail (math_changing differs)");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0], "${MODEL_ARGS[@]} is in both; the arguments it expands to are not compared");
}

TEST(ConfigDiff, OnlyTensorParallelismPassesWithAConvergenceCheck) {
  const std::string tp4 = read_launch_script(seed("glm-5.2-attune-tp4-pp4.yaml"));
  std::string tp8 = tp4;
  tp8.replace(tp8.find("--tensor-model-parallel-size 4"), 30, "--tensor-model-parallel-size 8");
  const ConfigDiff d = diff_launch_args(parse_launch_args(tp4, "a"), parse_launch_args(tp8, "b"),
                                        default_numerics_rules(), "a", "b");
  ASSERT_EQ(d.differences.size(), 1u);
  EXPECT_EQ(d.configuration, "pass");
  EXPECT_EQ(d.verdict, "pass with a convergence check (reduction_order_only differs)");
}

TEST(ConfigDiff, StateDtypesDependOnTheirValues) {
  const auto base = parse_launch_args("python3 t.py --use-precision-aware-optimizer\n", "a");
  const auto fp32 = parse_launch_args("python3 t.py --use-precision-aware-optimizer --exp-avg-dtype fp32\n", "b");
  const auto bf16 = parse_launch_args("python3 t.py --use-precision-aware-optimizer --exp-avg-dtype bf16\n", "c");
  const auto same = diff_launch_args(base, fp32, default_numerics_rules(), "a", "b");
  EXPECT_EQ(same.differences[0].arg_class, ArgClass::reduction_order_only);
  const auto lower = diff_launch_args(base, bf16, default_numerics_rules(), "a", "c");
  EXPECT_EQ(lower.differences[0].arg_class, ArgClass::precision_changing);
  EXPECT_EQ(lower.configuration, "pending");
}

TEST(ConfigDiff, UnknownFlagsPlaceholdersAndEntryPointsAreUnclassified) {
  const auto a = parse_launch_args("python3 train.py --lr 1e-5 --frobnicate 3\n", "a");
  const auto b = parse_launch_args("python3 train_async.py --lr 1e-5 ${EXTRA[@]}\n", "b");
  const ConfigDiff d = diff_launch_args(a, b, default_numerics_rules(), "a", "b");
  ASSERT_EQ(d.differences.size(), 3u);
  EXPECT_EQ(d.differences[0].flag, "(command)");
  EXPECT_EQ(d.differences[1].flag, "--frobnicate");
  EXPECT_EQ(d.differences[1].b, std::nullopt);
  EXPECT_EQ(d.differences[2].flag, "${EXTRA[@]}");
  for (const auto& diff : d.differences) EXPECT_EQ(diff.arg_class, ArgClass::unclassified);
  EXPECT_EQ(d.configuration, "fail");
  EXPECT_EQ(d.verdict, "fail: unclassified arguments differ");
}

TEST(ConfigDiff, RepeatedFlagsAreComparedInFull) {
  const auto a = parse_launch_args("python3 t.py --lr 1e-5 --lr 2e-5\n", "a");
  const auto b = parse_launch_args("python3 t.py --lr 1e-5\n", "b");
  const ConfigDiff d = diff_launch_args(a, b, default_numerics_rules(), "a", "b");
  ASSERT_EQ(d.differences.size(), 1u);
  EXPECT_EQ(d.differences[0].a, "1e-5; 2e-5");
  EXPECT_EQ(d.notes[0], "--lr is given more than once; every occurrence is compared");
}

}  // namespace
}  // namespace ladle::verify
