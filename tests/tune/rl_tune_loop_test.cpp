// `ladle tune --rl` end to end on the local back-end with the stand-in engine's RL mode
// (fake_engine.cpp); the same loop on a real Slurm is tests/tune/slurm/rl_tune_slurm_test.cpp.
#include "tune/rl_tune_e2e.hpp"

namespace ladle::test {
namespace {

TEST(RlTuneLoop, LocalReachesTheHiddenBestSplitWithinTwelveTrials) {
  TempDir dir;
  use_engine_state(dir.path() / "engine");
  const std::string out = (dir.path() / "run").string();
  const sched::CommandResult r = ladle_run(rl_tune_args("local", out));
  expect_rl_tuned_to_the_hidden_best(r, dir.path() / "engine");
  EXPECT_TRUE(std::filesystem::exists(out + "/rl-tune.json"));
  EXPECT_TRUE(std::filesystem::exists(out + "/trial-1.sh"));
}

TEST(RlTuneLoop, BadInputIsOneLineExitTwoAndSubmitsNothing) {
  TempDir dir;
  use_engine_state(dir.path() / "engine");
  const std::string out = (dir.path() / "run").string();
  auto one_line = [](const sched::CommandResult& r, const std::string& text) {
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
  };
  std::vector<std::string> args = rl_tune_args("local", out);
  // A response beyond GLM-4.7-Flash's context.
  *std::find(args.begin(), args.end(), "8192") = "400000";
  one_line(ladle_run(args), "--response-max");
  args = rl_tune_args("local", out);
  args.erase(std::find(args.begin(), args.end(), "--prompts"),
             std::find(args.begin(), args.end(), "--prompts") + 2);
  one_line(ladle_run(args), "tune --rl needs --prompts");
  one_line(ladle_run({"tune", "--model", "glm-4.7-flash", "--prompts", "32"}), "--rl");
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "engine" / "ledger"));
}

}  // namespace
}  // namespace ladle::test
