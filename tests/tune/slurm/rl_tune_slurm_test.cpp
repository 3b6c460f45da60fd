// `ladle tune --rl --backend slurm` end to end on a real Slurm: the single-machine cluster of
// tests/tune/slurm/start.sh. Skips when no slurmctld answers (scontrol ping), and fails instead
// when LADLE_SLURM_REQUIRED=1 (CI), as tune_slurm_test.cpp does.
#include "tune/rl_tune_e2e.hpp"

namespace ladle::test {
namespace {

bool slurm_answers() {
  const sched::CommandResult ping = sched::run_command({"scontrol", "ping"});
  return ping.exit_code == 0 && ping.out.find("UP") != std::string::npos;
}

TEST(SlurmBackend, RlTuneReachesTheHiddenBestSplitWithinTwelveTrials) {
  if (!slurm_answers()) {
    const char* required = std::getenv("LADLE_SLURM_REQUIRED");
    if (required && std::string(required) == "1") FAIL() << "no slurmctld answers";
    GTEST_SKIP() << "no slurmctld answers (tests/tune/slurm/start.sh starts one; SLURM_CONF)";
  }
  TempDir dir;
  use_engine_state(dir.path() / "engine");
  const std::string out = (dir.path() / "run").string();
  const sched::CommandResult r = ladle_run(rl_tune_args("slurm", out));
  expect_rl_tuned_to_the_hidden_best(r, dir.path() / "engine");
}

}  // namespace
}  // namespace ladle::test
