// `ladle tune --backend slurm` end to end on a real Slurm: the single-machine cluster of
// tests/tune/slurm/start.sh (munged, slurmctld, two slurmd as fake 8-GPU nodes). Each test skips
// when no slurmctld answers (scontrol ping), and fails instead when LADLE_SLURM_REQUIRED=1 (CI).
#include "ladle/sched/scheduler.hpp"
#include "ladle/tune/failure.hpp"
#include "tune/tune_e2e.hpp"

namespace ladle::test {
namespace {

namespace fs = std::filesystem;

bool slurm_up() {
  const sched::CommandResult ping = sched::run_command({"scontrol", "ping"});
  return ping.exit_code == 0 && ping.out.find("UP") != std::string::npos;
}

#define REQUIRE_SLURM()                                                                          \
  do {                                                                                           \
    if (!slurm_up()) {                                                                           \
      const char* required = std::getenv("LADLE_SLURM_REQUIRED");                                \
      if (required && std::string(required) == "1") FAIL() << "no slurmctld answers";            \
      GTEST_SKIP() << "no slurmctld answers (tests/tune/slurm/start.sh starts one; SLURM_CONF)"; \
    }                                                                                            \
  } while (0)

sched::JobStatus wait_finished(sched::Scheduler& s, const std::string& id, double timeout_s = 60) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  sched::JobStatus st = s.state(id);
  while (!sched::is_finished(st.state) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    st = s.state(id);
  }
  return st;
}

TEST(SlurmBackend, SubmitsFindsScoresAndClassifiesRealJobs) {
  REQUIRE_SLURM();
  TempDir dir;
  auto slurm = sched::make_slurm_scheduler("", "");
  slurm->check_reachable();
  const std::string tag = std::to_string(::getpid());
  auto job = [&](const std::string& name, const std::string& body) {
    sched::JobSpec j;
    j.name = "ladle-test" + tag + "-" + name;
    j.script = "#!/bin/bash\n" + body;
    j.script_path = (dir.path() / name / "job.sh").string();
    j.log_path = (dir.path() / name / "job.log").string();
    return j;
  };
  struct Case {
    std::string name;
    std::string body;
    tune::TrialState expected;
  };
  const std::vector<Case> cases = {
      {"oom",
       "echo 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'\nexit 1\n",
       tune::TrialState::oom},
      {"nccl",
       "echo '[E ProcessGroupNCCL.cpp:616] Watchdog caught collective operation timeout'\nexit 1\n",
       tune::TrialState::flaky},
      {"failed", "echo 'ValueError: bad argument --lr'\nexit 3\n", tune::TrialState::failed},
  };
  for (const Case& c : cases) {
    const sched::JobSpec j = job(c.name, c.body);
    const std::string id = slurm->submit(j);
    EXPECT_EQ(slurm->find(j.name, j.log_path), id);
    const sched::JobStatus st = wait_finished(*slurm, id);
    ASSERT_TRUE(sched::is_finished(st.state)) << c.name << ": " << st.reason;
    const tune::FailureClass f = tune::classify_failure(slurm->read_log(id, j.log_path), st);
    EXPECT_EQ(f.state, c.expected) << c.name << ": " << f.detail << " (" << st.reason << ")";
  }
  const sched::JobSpec slow = job("cancel", "sleep 120\n");
  const std::string id = slurm->submit(slow);
  for (int i = 0; i < 100 && slurm->state(id).state != sched::JobState::running; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  slurm->cancel(id);
  const sched::JobStatus st = wait_finished(*slurm, id);
  EXPECT_EQ(st.state, sched::JobState::cancelled) << st.reason;
  EXPECT_EQ(tune::classify_failure("", st).state, tune::TrialState::cancelled);
  const sched::JobSpec ok = job("ok", "echo fine\n");
  const sched::JobStatus done = wait_finished(*slurm, slurm->submit(ok));
  EXPECT_EQ(done.state, sched::JobState::succeeded) << done.reason;
  EXPECT_EQ(done.exit_code, 0);
}

TEST(SlurmBackend, ARejectedScriptIsOneLineExitTwoAndNothingIsLeft) {
  REQUIRE_SLURM();
  TempDir dir;
  const std::string out = (dir.path() / "run").string();
  use_engine_state(dir.path() / "engine");
  std::vector<std::string> args = flash_tune_args("slurm", out);
  args.insert(args.end(), {"--partition", "no-such-partition"});
  const sched::CommandResult r = ladle_run(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("slurm rejected the job"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out + "/tune.db"));
  EXPECT_FALSE(fs::exists((dir.path() / "engine" / "ledger")));
}

TEST(SlurmBackend, ReachesTheHiddenOptimumAndSurvivesAKillMidRound) {
  REQUIRE_SLURM();
  TempDir dir;
  const std::string reference = (dir.path() / "reference").string();
  use_engine_state(dir.path() / "reference-engine");
  const sched::CommandResult r = ladle_run(flash_tune_args("slurm", reference));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  expect_tuned_to_the_hidden_optimum(reference);
  expect_kill_and_resume_change_nothing("slurm", dir.path(), reference);
  // Every job name the loop used is a Slurm job, each exactly once.
  const sched::CommandResult jobs = sched::run_command({"scontrol", "show", "job", "-o"});
  for (const std::string& run : {reference, (dir.path() / "killed").string()}) {
    const nlohmann::json status = tune_status(run);
    for (const auto& t : status["trials"]) {
      const std::string name = "JobName=" + t["job_name"].get<std::string>() + " ";
      size_t count = 0;
      for (size_t at = jobs.out.find(name); at != std::string::npos;
           at = jobs.out.find(name, at + 1))
        ++count;
      EXPECT_EQ(count, 1u) << name;
    }
  }
}

}  // namespace
}  // namespace ladle::test
