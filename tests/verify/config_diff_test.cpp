// `ladle diff` pieces: the embedded rules, the launch-script reader and the classification of the
// seeds' differences.
#include "ladle/verify/config_diff.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "ladle/layout/knobs.hpp"
#include "ladle/util/file_io.hpp"
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

TEST(NumericsRules, EveryArgumentOfTheKnobTableIsClassified) {
  // Whatever a job ladle writes can differ in, `ladle diff` can judge: every spelling of every knob
  // (Megatron-LM's flags and the Bridge-only override keys) has a rule.
  for (const layout::Knob& knob : layout::kKnobs) {
    for (const layout::KnobArg& arg : knob.args)
      EXPECT_NE(default_numerics_rules().find(std::string(arg.flag)), nullptr) << knob.key << ": " << arg.flag;
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
  // A flag is a Megatron-LM flag or a Megatron-Bridge override key; anything else is refused.
  const std::string tail = "\n    class: layout_only\n    reason: r\n    source: s\n";
  EXPECT_EQ(parse_numerics_rules(head + "  - flags: [model.some_config_field]" + tail, "r.yaml").rules.size(), 1u);
  EXPECT_LADLE_ERROR(parse_numerics_rules(head + "  - flags: [seq-length]" + tail, "r.yaml"), input,
                     "'seq-length' does not start with -- and is no Megatron-Bridge override key");
}

TEST(LaunchArgs, QuotingContinuationsPlaceholdersAndRepeats) {
  const std::string script = R"(export A=1  # a comment
MODEL_ARGS=(--num-layers 2)
CUDA_VISIBLE_DEVICES=0 torchrun --nproc-per-node 8 pretrain.py \
  "${MODEL_ARGS[@]}" ${OTHER_ARGS[@]} \
  --data-path 0.3 "$DATA/a b" 0.7 '$DATA/c' \
  --lr=1e-5 --seed -1 \
  --bf16 --tag "x \"y\"" --save $(pwd)/ckpt --tag z && echo done
)";
  const LaunchArgs args = parse_launch_args(script, "run.sh");
  ASSERT_EQ(args.launches.size(), 1u);
  const args::Launch& launch = args.launches[0];
  EXPECT_EQ(launch.command, "pretrain.py");
  EXPECT_EQ(launch.launchers, (std::vector<std::string>{"torchrun"}));
  ASSERT_EQ(launch.launcher_args.size(), 1u);
  EXPECT_EQ(launch.launcher_args[0].flag, "--nproc-per-node");
  EXPECT_EQ(launch.launcher_args[0].values, (std::vector<std::string>{"8"}));
  ASSERT_EQ(launch.env.size(), 1u);
  EXPECT_EQ(launch.env[0].name, "CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(launch.env[0].how, "prefix");
  const auto& a = launch.args;
  ASSERT_EQ(a.size(), 9u);
  EXPECT_EQ(a[0].flag, "--num-layers");  // the script's own array, expanded
  EXPECT_EQ(a[0].values, (std::vector<std::string>{"2"}));
  EXPECT_EQ(a[0].line, 2);
  EXPECT_TRUE(a[1].placeholder);  // an array the script does not set
  EXPECT_EQ(a[1].flag, "${OTHER_ARGS[@]}");
  EXPECT_EQ(a[1].line, 4);
  EXPECT_EQ(a[2].values, (std::vector<std::string>{"0.3", "$DATA/a b", "0.7", "$DATA/c"}));
  EXPECT_TRUE(a[2].unresolved);
  EXPECT_EQ(a[3].flag, "--lr");
  EXPECT_EQ(a[3].values, (std::vector<std::string>{"1e-5"}));
  EXPECT_EQ(a[4].values, (std::vector<std::string>{"-1"}));
  EXPECT_TRUE(a[5].values.empty());
  EXPECT_EQ(a[6].values, (std::vector<std::string>{"x \"y\""}));
  EXPECT_EQ(a[7].values, (std::vector<std::string>{"$(pwd)/ckpt"}));
  EXPECT_TRUE(a[7].unresolved);
  EXPECT_EQ(a[8].flag, "--tag");
  EXPECT_EQ(a[8].line, 7);
  EXPECT_EQ(args.exports.size(), 1u);
}

TEST(LaunchArgs, VariablesDefaultsAndArraysAreExpanded) {
  const std::string script = R"(BASE_DIR=/root
CP=${CP_SIZE:-4}
export LR=1e-5
CKPT_ARGS=(
   --load ${BASE_DIR}/ckpt   # a comment inside the array
   --save "$BASE_DIR/out dir"
)
read -ra EXTRA <<< "--seed 7"
python3 train.py "${CKPT_ARGS[@]}" --context-parallel-size $CP --lr "$LR" ${EXTRA[@]} --x ${UNSET:-fallback}
)";
  const LaunchArgs args = parse_launch_args(script, "run.sh");
  ASSERT_EQ(args.launches.size(), 1u);
  const auto& a = args.launches[0].args;
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a[0].flag, "--load");
  EXPECT_EQ(a[0].values, (std::vector<std::string>{"/root/ckpt"}));
  EXPECT_EQ(a[0].line, 5);
  EXPECT_FALSE(a[0].unresolved);
  EXPECT_EQ(a[1].values, (std::vector<std::string>{"/root/out dir"}));
  EXPECT_EQ(a[2].values, (std::vector<std::string>{"4"}));
  EXPECT_EQ(a[3].values, (std::vector<std::string>{"1e-5"}));
  EXPECT_EQ(a[4].flag, "--seed");
  EXPECT_EQ(a[5].values, (std::vector<std::string>{"fallback"}));
}

TEST(LaunchArgs, RaySetupSubmitAndRuntimeEnvAreLaunchers) {
  const std::string script = R"(pkill -9 sglang
export MASTER_ADDR=${MASTER_ADDR:-"127.0.0.1"}
ray start --head --node-ip-address ${MASTER_ADDR} --num-gpus 8 --disable-usage-stats
if [ -n "${HOSTFILE:-}" ]; then
  for WORKER_IP in $(awk '{print $1}' "${HOSTFILE}"); do
    ssh root@"${WORKER_IP}" "ray start --address=${MASTER_ADDR}:6379" &
  done
  wait
fi
cat > config.yaml <<EOF_YAML
- worker_type: prefill
  --not-an-argument 1
EOF_YAML
RUNTIME_ENV_JSON="{
  \"env_vars\": {
    \"PYTHONPATH\": \"/root/Megatron-LM/\",
    \"NCCL_NVLS_ENABLE\": \"1\"
  }
}"
ray job submit --address="http://127.0.0.1:8265" \
   --runtime-env-json="${RUNTIME_ENV_JSON}" \
   -- python3 train.py \
   --actor-num-nodes 1 --lr 1e-6
)";
  const LaunchArgs args = parse_launch_args(script, "run.sh");
  ASSERT_EQ(args.setup.size(), 1u);
  EXPECT_EQ(args.setup[0].launchers.back(), "ray start");
  EXPECT_EQ(args.setup[0].launcher_args[1].values, (std::vector<std::string>{"127.0.0.1"}));
  ASSERT_EQ(args.launches.size(), 1u);
  const args::Launch& l = args.launches[0];
  EXPECT_EQ(l.launchers, (std::vector<std::string>{"ray job submit"}));
  EXPECT_EQ(l.command, "python3 train.py");
  EXPECT_EQ(l.entry, "python train.py");
  ASSERT_EQ(l.args.size(), 2u);
  EXPECT_EQ(l.launcher_args[0].flag, "--address");
  ASSERT_EQ(l.env.size(), 2u);
  EXPECT_EQ(l.env[1].name, "NCCL_NVLS_ENABLE");
  EXPECT_EQ(l.env[1].how, "runtime-env");
}

TEST(LaunchArgs, SeveralLaunchesAndUnreachableOnes) {
  const auto two = parse_launch_args("torchrun --nnodes 1 pretrain_gpt.py --lr 1\nsrun -N 2 python3 x.py --lr 2\n", "r");
  ASSERT_EQ(two.launches.size(), 2u);
  EXPECT_EQ(two.launches[1].launchers, (std::vector<std::string>{"srun"}));
  EXPECT_EQ(two.launches[1].line, 2);
  // A guarded exit is not the end of the script; a bare one is.
  EXPECT_NO_THROW(parse_launch_args("[ -n \"$X\" ] || exit 1\nif [ -z \"$Y\" ]; then\n  exit 1\nfi\npython3 t.py --a 1\n", "r"));
  EXPECT_LADLE_ERROR(parse_launch_args("echo hi\nexit 0\npython3 t.py --a 1\n", "run.sh"), input,
                     "run.sh:3: error: the launch of 'python3 t.py' is never reached: the script exits at line 2");
}

TEST(LaunchArgs, UnterminatedQuoteIsAnError) {
  EXPECT_LADLE_ERROR(parse_launch_args("python3 x.py \\\n  --a \"oops\n", "run.sh"), input,
                     "run.sh:2: error: unterminated double quote in the launch script");
}

// Parentheses inside quotes in `$(...)` do not close it: the expander once ended the group at the
// quoted ')', met the closing quote as an unterminated one and started the word over until it
// passed 16 MB, refusing a valid script (fuzzing found it).
TEST(LaunchArgs, QuotedParenthesesInsideCommandSubstitution) {
  const LaunchArgs args = parse_launch_args("X=$(echo ')' \"(\")\npython3 t.py --x \"$X\" --y $(grep -o 'a(b' f)\n", "run.sh");
  ASSERT_EQ(args.launches.size(), 1u);
  const auto& a = args.launches[0].args;
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].values, (std::vector<std::string>{"$X"}));
  EXPECT_TRUE(a[0].unresolved);
  EXPECT_EQ(a[1].values, (std::vector<std::string>{"$(grep -o 'a(b' f)"}));
  EXPECT_TRUE(a[1].unresolved);
}

// `name() {` on one line: the function's name was read from the word after it once the first was
// erased (freed when it was the last), so a call of the script's own function became a launch.
TEST(LaunchArgs, AFunctionOpenedOnItsOwnLineIsNotALaunch) {
  for (const char* opening : {"run_it() {\n", "run_it()\n{\n", "function run_it {\n"}) {
    const LaunchArgs args =
        parse_launch_args(std::string(opening) + "  echo hi\n}\nrun_it --lr 2\npython3 t.py --a 1\n", "run.sh");
    ASSERT_EQ(args.launches.size(), 1u) << opening;
    EXPECT_EQ(args.launches[0].command, "python3 t.py") << opening;
  }
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

// `diff` reads a recipe's run as every reader of recipes does: a second document, bytes that are
// not UTF-8 and alias bombs are errors at their place, not a second document silently ignored.
TEST(ReadLaunchScript, ARecipeIsReadAsOneUtf8DocumentWithFewAliases) {
  test::TempDir dir;
  const std::string text = util::read_file(seed("glm-5.2-attune-tp4-pp4.yaml"));
  const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  util::write_file_atomic(dir.file("two.yaml"), text + "---\nrun: echo other\n");
  EXPECT_LADLE_ERROR(read_launch_script(dir.file("two.yaml")), input,
                     fmt::format("two.yaml:{}:1: error: a second YAML document", lines + 1));
  util::write_file_atomic(dir.file("bytes.yaml"), "run: echo \xff\n");
  EXPECT_LADLE_ERROR(read_launch_script(dir.file("bytes.yaml")), input, "bytes.yaml:1:11: error: byte 0xFF is not UTF-8");
}

}  // namespace
}  // namespace ladle::verify
