// End-to-end tests of `ladle tune` on the local back-end and on a loopback Ray Jobs server, with
// the stand-in engine; and its bad-input lines. The same loop on a real Slurm is tests/tune/slurm/.
#include "sched/ray_jobs_server.hpp"
#include "tune/tune_e2e.hpp"

namespace ladle::test {
namespace {

namespace fs = std::filesystem;

TEST(TuneLoop, LocalReachesTheHiddenOptimumAndSurvivesAKillMidRound) {
  TempDir dir;
  const std::string reference = (dir.path() / "reference").string();
  use_engine_state(dir.path() / "reference-engine");
  const sched::CommandResult r = ladle_run(flash_tune_args("local", reference));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  expect_tuned_to_the_hidden_optimum(reference);
  expect_kill_and_resume_change_nothing("local", dir.path(), reference);
}

TEST(TuneLoop, RayJobsApiRunsTheLoopUntilTheGpuHourBudgetIsSpent) {
  TempDir dir;
  RayJobsServer server(dir.path() / "ray");
  use_engine_state(dir.path() / "engine");
  const std::string out = (dir.path() / "run").string();
  std::vector<std::string> args = flash_tune_args("ray", out);
  args.insert(args.end(), {"--ray-address", server.address(), "--gpu-hours", "0.5"});
  const sched::CommandResult r = ladle_run(args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json status = tune_status(out);
  EXPECT_EQ(status["trials"].size(), 6u);  // 4 trials, the confirmation and the reference run
  int attempts = 0;
  for (const auto& t : status["trials"]) attempts += t["attempt"].get<int>();
  EXPECT_EQ(server.submissions(), attempts);
  // Round 1 alone spends more than the 0.5 GPU-hours allowed (simulated hours, from the logs).
  ASSERT_EQ(status["rounds"].size(), 2u);
  EXPECT_NE(status["rounds"][1]["decision"].get<std::string>().find("GPU-hour budget spent"),
            std::string::npos);
  EXPECT_EQ(ladle_run({"check", out + "/recipe.yaml"}).exit_code, 0);
}

TEST(TuneLoop, CtrlCCancelsTheRunningTrialAndResumeFinishes) {
  TempDir dir;
  use_engine_state(dir.path() / "engine");
  ::setenv("FAKE_ENGINE_TIME_SCALE", "0.02", 1);  // slow enough to interrupt a trial mid-run
  const std::string out = (dir.path() / "run").string();
  std::vector<std::string> args = flash_tune_args("local", out);
  args.insert(args.end(), {"--budget", "2", "--per-round", "2"});
  const pid_t pid = ladle_spawn(args, (dir.path() / "run.log").string());
  const bool running = wait_for_status(
      out,
      [](const nlohmann::json& s) {
        return s["trials"].size() > 0 && s["trials"][0]["state"] == "submitted";
      },
      60);
  ::kill(pid, SIGINT);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  ::setenv("FAKE_ENGINE_TIME_SCALE", "0.002", 1);
  ASSERT_TRUE(running);
  ASSERT_TRUE(WIFEXITED(wstatus));
  EXPECT_EQ(WEXITSTATUS(wstatus), 130) << util::read_file((dir.path() / "run.log").string());
  const nlohmann::json after = tune_status(out);
  EXPECT_EQ(after["trials"][0]["state"], "proposed");
  EXPECT_EQ(after["trials"][0]["attempt"], 2);
  // The interrupted job was cancelled: its process group is gone and it recorded no exit status.
  const sched::CommandResult resumed = ladle_run({"tune", "resume", out});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
}

TEST(TuneLoop, ATrialPastItsTimeLimitIsATimeout) {
  TempDir dir;
  use_engine_state(dir.path() / "engine");
  ::setenv("FAKE_ENGINE_HANG", "1", 1);
  const std::string out = (dir.path() / "run").string();
  std::vector<std::string> args = flash_tune_args("local", out);
  args.insert(args.end(), {"--budget", "1", "--time-limit", "2"});
  const sched::CommandResult r = ladle_run(args);
  ::unsetenv("FAKE_ENGINE_HANG");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no trial produced a measurement"), std::string::npos) << r.err;
  const nlohmann::json status = tune_status(out);
  EXPECT_EQ(status["trials"][0]["state"], "timeout");
}

TEST(TuneLoop, BadInputIsOneLineExitTwoAndSubmitsNothing) {
  TempDir dir;
  const std::string out = (dir.path() / "run").string();
  auto one_line = [](const sched::CommandResult& r, const std::string& text) {
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
  };
  std::vector<std::string> args = flash_tune_args("local", out);
  args.insert(args.end(), {"--budget", "0"});
  one_line(ladle_run(args), "--budget must be at least 1 trial, got 0");
  args = flash_tune_args("ray", out);
  args.insert(args.end(), {"--ray-address", "http://127.0.0.1:9"});
  one_line(ladle_run(args), "ray: cannot reach the Ray dashboard at http://127.0.0.1:9");
  const std::string path = ::getenv("PATH");
  ::setenv("PATH", "/nonexistent", 1);
  const sched::CommandResult no_sbatch = ladle_run(flash_tune_args("slurm", out));
  ::setenv("PATH", path.c_str(), 1);
  one_line(no_sbatch, "slurm: sbatch not found in PATH");
  EXPECT_FALSE(fs::exists(out + "/tune.db"));
  // A folder holding another run's database.
  use_engine_state(dir.path() / "engine");
  ::setenv("FAKE_ENGINE_HANG", "1", 1);
  args = flash_tune_args("local", out);
  args.insert(args.end(), {"--budget", "1", "--time-limit", "1"});
  ladle_run(args);
  ::unsetenv("FAKE_ENGINE_HANG");
  ASSERT_TRUE(fs::exists(out + "/tune.db"));
  const std::string run_id = tune_status(out)["settings"]["run_id"];
  one_line(ladle_run(flash_tune_args("local", out)), "already holds run " + run_id);
  one_line(ladle_run({"tune", "status", (dir.path() / "nothing").string()}),
           "no tuning database here");
}

// Starts `tune` with a slow stand-in engine on `out` and waits until its first trial runs.
pid_t start_slow_run(const TempDir& dir, const std::string& out) {
  use_engine_state(dir.path() / "engine");
  ::setenv("FAKE_ENGINE_TIME_SCALE", "0.02", 1);  // slow enough to act while a trial runs
  std::vector<std::string> args = flash_tune_args("local", out);
  args.insert(args.end(), {"--budget", "2", "--per-round", "2"});
  const pid_t pid = ladle_spawn(args, (dir.path() / "first.log").string());
  const bool running = wait_for_status(
      out,
      [](const nlohmann::json& s) {
        return s["trials"].size() > 0 && s["trials"][0]["state"] == "submitted";
      },
      60);
  ::setenv("FAKE_ENGINE_TIME_SCALE", "0.002", 1);
  EXPECT_TRUE(running) << util::read_file((dir.path() / "first.log").string());
  return pid;
}

int interrupt_and_wait(pid_t pid) {
  ::kill(pid, SIGINT);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

TEST(TuneLoop, ASecondResumeOfARunningRunIsRefusedNamingTheHolder) {
  TempDir dir;
  const std::string out = (dir.path() / "run").string();
  const pid_t pid = start_slow_run(dir, out);
  const sched::CommandResult second = ladle_run({"tune", "resume", out});
  const sched::CommandResult cancel = ladle_run({"tune", "cancel", out});
  const sched::CommandResult status = ladle_run({"tune", "status", out});
  EXPECT_EQ(interrupt_and_wait(pid), 130);
  EXPECT_EQ(second.exit_code, 2) << second.out << second.err;
  EXPECT_NE(second.err.find(fmt::format("{} is in use by pid {} on ", out, pid)), std::string::npos)
      << second.err;
  EXPECT_EQ(std::count(second.err.begin(), second.err.end(), '\n'), 1) << second.err;
  EXPECT_EQ(cancel.exit_code, 2) << cancel.out << cancel.err;
  EXPECT_EQ(status.exit_code, 0) << status.err;  // reading needs no lock
  // Once the holder is gone the run resumes, and no job ran twice.
  const sched::CommandResult resumed = ladle_run({"tune", "resume", out});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  for (const auto& [name, runs] : ledger_counts(dir.path() / "engine")) {
    EXPECT_EQ(runs, 1) << name << " ran " << runs << " times";
  }
}

TEST(TuneLoop, AResumedCopyOfARunWritesIntoItsOwnFolder) {
  TempDir dir;
  const fs::path a = dir.path() / "a";
  const pid_t pid = start_slow_run(dir, a.string());
  EXPECT_EQ(interrupt_and_wait(pid), 130);
  const fs::path b = dir.path() / "b";
  fs::copy(a, b, fs::copy_options::recursive);
  const sched::CommandResult resumed = ladle_run({"tune", "resume", b.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_TRUE(fs::exists(b / "recipe.yaml"));
  EXPECT_TRUE(fs::exists(b / "trials" / "2" / "job.log"));
  EXPECT_NE(resumed.out.find("wrote " + (b / "recipe.yaml").string()), std::string::npos)
      << resumed.out;
  // The original is as the interrupt left it: its second trial never ran, it has no recipe.
  EXPECT_FALSE(fs::exists(a / "recipe.yaml"));
  EXPECT_FALSE(fs::exists(a / "trials" / "2"));
  EXPECT_FALSE(fs::exists(a / "report.md"));
}

TEST(TuneLoop, EscapesAndInvalidBytesOfATrialsLogStayVisibleText) {
  TempDir dir;
  // An engine that fails printing a terminal escape and bytes that are not UTF-8.
  const std::string engine = dir.file("engine.sh");
  util::write_file_atomic(engine,
                          "#!/bin/bash\nprintf 'Error: \\033]0;pwned\\007\\033[2J\\377\\376 "
                          "bad\\n'\nexit 3\n");
  fs::permissions(engine, fs::perms::owner_all);
  const std::string out = (dir.path() / "run").string();
  std::vector<std::string> args = flash_tune_args("local", out);
  args.back() = engine;  // --engine-program
  args.insert(args.end(), {"--budget", "1"});
  const sched::CommandResult r = ladle_run(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Error: \\x1b]0;pwned\\x07\\x1b[2J\\xff\\xfe bad"), std::string::npos)
      << r.err;
  const sched::CommandResult status = ladle_run({"tune", "status", out, "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const nlohmann::json j = nlohmann::json::parse(status.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << status.out;
  EXPECT_NE(j["trials"][0]["detail"].get<std::string>().find("\\x1b]0;pwned\\x07"),
            std::string::npos)
      << j["trials"][0]["detail"];
}

TEST(TuneLoop, TwoLayoutsFailingTheSameWayStopTheRunOnce) {
  TempDir dir;
  // An engine that cannot start on any layout (its package is missing), as a wrong checkout is.
  const std::string engine = dir.file("engine.sh");
  util::write_file_atomic(engine,
                          "#!/bin/bash\necho 'Traceback (most recent call last):'\n"
                          "echo \"ModuleNotFoundError: No module named 'megatron'\"\nexit 1\n");
  fs::permissions(engine, fs::perms::owner_all);
  const std::string out = (dir.path() / "run").string();
  std::vector<std::string> args = flash_tune_args("local", out);
  args.back() = engine;  // --engine-program
  args.insert(args.end(), {"--budget", "8"});
  const sched::CommandResult r = ladle_run(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("trials 1 and 2 failed the same way before their first step, on two layouts: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ModuleNotFoundError: No module named 'megatron'"), std::string::npos)
      << r.err;
  const nlohmann::json status = tune_status(out);
  int failed = 0;
  for (const nlohmann::json& t : status["trials"]) failed += t["state"] == "failed";
  EXPECT_EQ(failed, 1) << status.dump();  // the second goes back to proposed; the budget is not spent
}

TEST(TuneLoop, ADryRunUsesAPrivateScratchFolderThatAKilledOneCannotBlock) {
  TempDir dir;
  const fs::path tmp = dir.path() / "tmp";
  fs::create_directories(tmp);
  // What a dry run killed before it cleaned up used to leave at a fixed name.
  util::write_file_atomic((tmp / "ladle-tune-dry-dryrun00.db").string(), "left by a killed run");
  std::vector<std::string> args = flash_tune_args("local", (dir.path() / "run").string());
  args.push_back("--dry-run");
  const std::string saved = ::getenv("TMPDIR") ? ::getenv("TMPDIR") : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  const sched::CommandResult r = ladle_run(args);
  if (saved.empty()) {
    ::unsetenv("TMPDIR");
  } else {
    ::setenv("TMPDIR", saved.c_str(), 1);
  }
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("dry run: round 1 of run dryrun00"), std::string::npos) << r.out;
  // Its scratch folder is gone; the stranger's file is untouched.
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(tmp)) left.push_back(entry.path().filename());
  EXPECT_EQ(left, std::vector<std::string>{"ladle-tune-dry-dryrun00.db"});
  EXPECT_FALSE(fs::exists(dir.path() / "run"));
}

}  // namespace
}  // namespace ladle::test

namespace ladle::test {
namespace {

TEST(TuneLoop, MegatronLmLaunchScriptsAndLogsRunTheLoop) {
  TempDir dir;
  use_engine_state(dir.path() / "engine");
  const std::string out = (dir.path() / "run").string();
  std::vector<std::string> args = flash_tune_args("local", out);
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--engine") args[i + 1] = "megatron";
  }
  args.insert(args.end(), {"--budget", "2", "--per-round", "2"});
  const sched::CommandResult r = ladle_run(args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string script = util::read_file(out + "/trials/1/job.sh");
  EXPECT_NE(script.find("pretrain_gpt.py"), std::string::npos);
  EXPECT_NE(script.find("--train-iters 10"), std::string::npos);
  EXPECT_NE(util::read_file(out + "/trials/1/job.log").find("iteration        1/      10 |"),
            std::string::npos);
  const nlohmann::json status = tune_status(out);
  EXPECT_FALSE(status["best"].is_null());
  EXPECT_NE(util::read_file(out + "/recipe.yaml").find("    result: pass"), std::string::npos);
  // Its window is in Megatron-LM's iteration numbers (1 .. train_iters), which R7 accepts.
  const sched::CommandResult check = ladle_run({"check", out + "/recipe.yaml"});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

}  // namespace
}  // namespace ladle::test
