// The launch-script reader's view of each word's quoting (what a job writes back, what runs at run
// time) and its limits on what a script may make it build (issue 29).
#include "ladle/args/launch_args.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ladle/args/run_script.hpp"
#include "ladle/util/limits.hpp"
#include "support/test_support.hpp"

namespace ladle::args {
namespace {

const LaunchArg& arg_of(const LaunchArgs& launch, std::string_view flag) {
  for (const LaunchArg& a : launch.args) {
    if (a.flag == flag) return a;
  }
  ADD_FAILURE() << "no argument " << flag;
  static const LaunchArg none;
  return none;
}

TEST(LaunchArgsShell, KeepsSingleQuotedTextLiteral) {
  const LaunchArgs launch = parse_launch_args(
      R"sh(python train.py --wandb-project 'lit$(touch M)' --cost 'cost$5' --pw 'pa$$w' '--foo$(touch M)' \
  --name "a b" --esc "x\$(touch M)" --lines 'a
b')sh",
      "run.sh");
  const LaunchArg& project = arg_of(launch, "--wandb-project");
  EXPECT_EQ(project.values, std::vector<std::string>{"lit$(touch M)"});
  EXPECT_EQ(project.shell, (std::vector<std::string>{"--wandb-project", "'lit$(touch M)'"}));
  EXPECT_TRUE(project.runs.empty());
  EXPECT_EQ(arg_of(launch, "--cost").shell[1], "'cost$5'");
  EXPECT_EQ(arg_of(launch, "--pw").shell[1], "'pa$$w'");
  EXPECT_EQ(arg_of(launch, "--foo$(touch M)").shell, std::vector<std::string>{"'--foo$(touch M)'"});
  EXPECT_EQ(arg_of(launch, "--name").shell[1], "'a b'");
  EXPECT_EQ(arg_of(launch, "--esc").shell[1], "'x$(touch M)'");
  EXPECT_EQ(arg_of(launch, "--lines").shell[1], "$'a\\nb'");  // one line, the newline kept
  EXPECT_TRUE(launch.run_time_words.empty());
}

// `[[ a && b ]]` is one conditional command: the words after its && are not a command of their own
// (the reader once took `${#HOSTS[@]} -lt $NNODES ]]` for a launch of an unknown program).
TEST(LaunchArgsSplit, AndAndInsideATestIsPartOfTheTest) {
  const LaunchArgs launch = parse_launch_args(
      R"sh(HOSTS=()
if [[ ${#HOSTS[@]} -gt 0 && ${#HOSTS[@]} -lt $NNODES || -z "$X" ]]; then
  echo short
fi
[[ -n "$A" ]] && python train.py --lr 1e-5
)sh",
      "run.sh");
  ASSERT_EQ(launch.launches.size(), 1U);
  EXPECT_EQ(launch.launches[0].entry, "python train.py");
  EXPECT_EQ(launch.launches[0].line, 5);
  EXPECT_EQ(arg_of(launch, "--lr").values, std::vector<std::string>{"1e-5"});
}

TEST(LaunchArgsShell, KeepsVariablesTheScriptLeavesOpenAsExpansions) {
  const LaunchArgs launch = parse_launch_args(
      "OUT=/out\npython train.py --load \"$HF_CKPT\" --save \"$OUT/ckpt\" --lit '$HF_CKPT' --d=\"${X:-/x}\"",
      "run.sh");
  const LaunchArg& load = arg_of(launch, "--load");
  EXPECT_EQ(load.values, std::vector<std::string>{"$HF_CKPT"});
  EXPECT_EQ(load.shell[1], "\"$HF_CKPT\"");
  EXPECT_TRUE(load.unresolved);
  EXPECT_EQ(arg_of(launch, "--save").shell[1], "/out/ckpt");  // set by the script: its value
  EXPECT_EQ(arg_of(launch, "--lit").shell[1], "'$HF_CKPT'");  // the same text, meant literally
  EXPECT_EQ(arg_of(launch, "--d").shell, (std::vector<std::string>{"--d", "/x"}));
  EXPECT_TRUE(launch.run_time_words.empty());
}

TEST(LaunchArgsShell, NamesEachWordThatExpandsAtRunTime) {
  const LaunchArgs launch = parse_launch_args(
      "python train.py --a \"x$(touch M)\" --b `touch N` --c \"$1\" --d $$ --e \"${X#y}\" --ok \"$HF\"\n"
      "python train.py \"--f`date`\" --g=\"$(nproc)\"",
      "run.sh");
  ASSERT_EQ(launch.run_time_words.size(), 7u);
  EXPECT_EQ(launch.run_time_words[0], (RunTimeWord{"x$(touch M)", "$(touch M)", 1, 21}));
  EXPECT_EQ(launch.run_time_words[1], (RunTimeWord{"`touch N`", "`touch N`", 1, 39}));
  EXPECT_EQ(launch.run_time_words[2].expansion, "$1");
  EXPECT_EQ(launch.run_time_words[3].expansion, "$$");
  EXPECT_EQ(launch.run_time_words[4].expansion, "${X#y}");
  EXPECT_EQ(launch.run_time_words[5], (RunTimeWord{"--f`date`", "`date`", 2, 17}));
  EXPECT_EQ(launch.run_time_words[6].expansion, "$(nproc)");
  EXPECT_EQ(arg_of(launch, "--a").runs, "$(touch M)");
  EXPECT_EQ(arg_of(launch, "--b").values, std::vector<std::string>{"`touch N`"});  // one word
  EXPECT_EQ(arg_of(launch, "--f`date`").runs, "`date`");
  EXPECT_EQ(arg_of(launch, "--g").runs, "$(nproc)");
  EXPECT_TRUE(arg_of(launch, "--ok").runs.empty());
  // parse_run_script (what `check` reads) carries them.
  EXPECT_EQ(parse_run_script("python train.py --a \"$(id)\"").run_time_words.size(), 1u);
}

TEST(LaunchArgsShell, VariableReferencesAreTheOnlyPlainExpansions) {
  EXPECT_TRUE(is_variable_reference("$HF_CKPT"));
  EXPECT_TRUE(is_variable_reference("${HF_CKPT}"));
  EXPECT_TRUE(is_variable_reference("${A[@]}"));
  EXPECT_TRUE(is_variable_reference("${X:-/root/$USER}"));
  EXPECT_FALSE(is_variable_reference("$(touch M)"));
  EXPECT_FALSE(is_variable_reference("`touch M`"));
  EXPECT_FALSE(is_variable_reference("$5"));
  EXPECT_FALSE(is_variable_reference("$$"));
  EXPECT_FALSE(is_variable_reference("${X:-$(touch M)}"));
  EXPECT_FALSE(is_variable_reference("${X#y}"));
  EXPECT_EQ(variable_shell_word("$HF_CKPT/x y"), "\"$HF_CKPT/x y\"");
  EXPECT_EQ(variable_shell_word("$HF_CKPT/it's"), "\"$HF_CKPT/it's\"");
  EXPECT_EQ(variable_shell_word("$HF_CKPT/a\"b"), "\"$HF_CKPT\"'/a\"b'");
  EXPECT_EQ(variable_shell_word("$(touch M)"), "'$(touch M)'");
}

TEST(LaunchArgsLimits, QuotedWordDoublingStopsAtTheWordLimit) {
  std::string script = "X=abcdefgh\n";
  for (int i = 0; i < 40; ++i) script += "X=\"$X$X\"\n";
  script += "python train.py --x \"$X\"\n";
  EXPECT_LADLE_ERROR(parse_launch_args(script, "run.sh"), input,
                     "run.sh:23:1: error: a word expands to more than 16777216 bytes");
}

TEST(LaunchArgsLimits, AnAssignmentJoiningSplitWordsStopsAtTheWordLimit) {
  // An unquoted X=$X$X expands to several words that the assignment joins into one value; each
  // stays under the word limit, so the joined value was unbounded but for the script's budget
  // (256 MB, copied several times over: the fuzzer's out-of-memory finding). It is one word.
  const std::string half(4096, 'a');
  std::string script = "X=\"" + half + " " + half + "\"\n";
  for (int i = 0; i < 30; ++i) script += "X=$X$X\n";
  script += "python train.py --x \"$X\"\n";
  EXPECT_LADLE_ERROR(parse_launch_args(script, "run.sh"), input, "error: a word expands to more than 16777216 bytes");
}

TEST(LaunchArgsLimits, ArrayDoublingStopsAtTheWordBudget) {
  std::string script = "A=(a)\n";
  for (int i = 0; i < 40; ++i) script += "A=(\"${A[@]}\" \"${A[@]}\")\n";
  script += "python train.py \"${A[@]}\"\n";
  EXPECT_LADLE_ERROR(parse_launch_args(script, "run.sh"), input,
                     "error: the launch script expands to more than 1048576 words in all");
}

TEST(LaunchArgsLimits, CopiesOfABigWordStopAtTheExpansionBudget) {
  // Each word stays under the word limit, but 80 copies of a 4 MB word make more than the script
  // may expand in all.
  std::string script = "X=abcd\n";
  for (int i = 0; i < 20; ++i) script += "X=\"$X$X\"\n";
  for (int i = 0; i < 80; ++i) script += "Y=\"$X\"\n";
  EXPECT_LADLE_ERROR(parse_launch_args(script, "run.sh"), input,
                     "error: the launch script's expansions make more than 268435456 bytes in all");
}

TEST(LaunchArgsLimits, ScriptWordCountIsBounded) {
  std::string script = "python train.py";
  script.reserve(2 * (limits::kMaxArguments + 8));
  for (int64_t i = 0; i <= limits::kMaxArguments; ++i) script += " a";
  EXPECT_LADLE_ERROR(parse_launch_args(script, "run.sh"), input,
                     "run.sh:1:2097165: error: the launch script holds more than 1048576 words");
}

TEST(LaunchArgsLimits, ManyArgumentsOnOneLineReadInLinearTime) {
  // 80,000 arguments on one line: each word's column was found by searching back to the line's
  // start (quadratic); the test's time limit catches a return of it.
  std::string script = "python train.py";
  for (int i = 0; i < 40000; ++i) script += " --a" + std::to_string(i) + " v";
  const LaunchArgs launch = parse_launch_args(script, "run.sh");
  ASSERT_EQ(launch.args.size(), 40000u);
  EXPECT_EQ(launch.args.back().col, static_cast<int>(script.size()) - 9);
}

TEST(LaunchArgsLimits, UnterminatedBacktickIsAnError) {
  EXPECT_LADLE_ERROR(parse_launch_args("python train.py --x `date\n", "run.sh"), input,
                     "unterminated backtick");
}

}  // namespace
}  // namespace ladle::args
