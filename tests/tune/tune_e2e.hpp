#pragma once
// Helpers of the end-to-end tune tests: run the built `ladle` with the stand-in engine
// (fake_engine.cpp) on a scheduler, read `tune status --json`, kill a run with SIGKILL mid-round.
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ladle/sched/process.hpp"
#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::test {

/// The GLM-4.7-Flash starting layout of the catalog recipe's notes
/// (tests/cli/predict/flash-start-layout).
inline constexpr const char* kFlashStart =
    "tp=4,pp=1,cp=1,ep=8,etp=1,dp=2,sp=on,recompute=full:uniform:1,offload=1,overlap=on,precision_"
    "aware=on,"
    "max_tokens=32768,rows_per_mb=4";

inline sched::CommandResult ladle_run(std::vector<std::string> args) {
  args.insert(args.begin(), LADLE_BINARY);
  return sched::run_command(args);
}

/// `ladle tune` arguments for the GLM-4.7-Flash workload on 8 H200 from the starting layout.
inline std::vector<std::string> flash_tune_args(const std::string& backend,
                                                const std::string& out) {
  return {"tune",
          "--model",
          "glm-4.7-flash",
          "--gpu",
          "h200",
          "--gpus",
          "8",
          "--engine",
          "slime",
          "--backend",
          backend,
          "--out",
          out,
          "--start",
          kFlashStart,
          "--engine-program",
          LADLE_FAKE_ENGINE};
}

/// The stand-in engine's hidden optimum and constants on `gpus` GPUs.
inline nlohmann::json hidden_truth(int gpus) {
  const sched::CommandResult r =
      sched::run_command({LADLE_FAKE_ENGINE, "--hidden", std::to_string(gpus)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

inline nlohmann::json tune_status(const std::string& dir) {
  const sched::CommandResult r = ladle_run({"tune", "status", dir, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

/// Points the stand-in engine at a fresh state folder (its flake marks and run ledger).
inline void use_engine_state(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  ::setenv("FAKE_ENGINE_STATE", dir.c_str(), 1);
}

/// Job names in the stand-in engine's ledger, with how often each ran.
inline std::map<std::string, int> ledger_counts(const std::filesystem::path& state) {
  std::map<std::string, int> counts;
  std::istringstream in(util::read_file((state / "ledger").string()));
  for (std::string name, steps, spec; in >> name >> steps >> spec;) ++counts[name];
  return counts;
}

/// One line per trial with everything that must not depend on a kill: id, round, kind, layout,
/// final state and measured throughput.
inline std::vector<std::string> trial_digest(const nlohmann::json& status) {
  std::vector<std::string> out;
  for (const auto& t : status["trials"]) {
    const std::string measured =
        t["measured_tokens_per_s_per_gpu"].is_null()
            ? "-"
            : fmt::format("{:.6f}", t["measured_tokens_per_s_per_gpu"].get<double>());
    out.push_back(fmt::format("{} r{} {} {} {} {}", t["id"].get<int>(), t["round"].get<int>(),
                              t["kind"].get<std::string>(), t["layout"].get<std::string>(),
                              t["state"].get<std::string>(), measured));
  }
  return out;
}

/// Starts `ladle args...` in the background; returns its pid.
inline pid_t ladle_spawn(std::vector<std::string> args, const std::string& log) {
  args.insert(args.begin(), LADLE_BINARY);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

/// Waits until `done(status json)` holds (polling `tune status`), up to `timeout_s`.
template <typename Pred>
bool wait_for_status(const std::string& dir, Pred done, double timeout_s) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < until) {
    if (std::filesystem::exists(std::filesystem::path(dir) / "tune.db")) {
      const sched::CommandResult r = ladle_run({"tune", "status", dir, "--json"});
      const nlohmann::json s = nlohmann::json::parse(r.out, nullptr, false);
      if (r.exit_code == 0 && s.is_object() && done(s)) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

/// The end-to-end checks of one finished run (`dir`) against the hidden truth.
inline void expect_tuned_to_the_hidden_optimum(const std::string& dir) {
  const nlohmann::json truth = hidden_truth(8);
  const nlohmann::json status = tune_status(dir);
  ASSERT_TRUE(status.is_object());
  int explore = 0;
  bool oom = false;
  bool retried = false;
  for (const auto& t : status["trials"]) {
    if (t["kind"] == "explore") ++explore;
    oom |= t["state"] == "oom";
    retried |= t["attempt"].get<int>() == 2 &&
               t["detail"].get<std::string>().find("Watchdog") != std::string::npos;
  }
  EXPECT_LE(explore, 12);
  EXPECT_TRUE(oom)
      << "no trial ran out of memory (the stand-in engine's cap is below the top predictions)";
  EXPECT_TRUE(retried) << "no NCCL timeout was retried";
  const double optimum = truth["optimum_tokens_per_s_per_gpu"];
  const double best = status["best"]["measured_tokens_per_s_per_gpu"];
  EXPECT_GE(best, 0.95 * optimum) << "best " << best << " vs hidden optimum " << optimum << " ("
                                  << truth["optimum_layout"] << ")";
  // The refitted constants move from the prior toward the hidden ones, each closing at least a
  // tenth of the gap in log space by the last round, GEMM efficiency (every layout's largest
  // term) moving toward it from the first round on. The dispatcher's host overheads trade off
  // against GEMM efficiency on these layouts (a slower GEMM and a faster dispatcher give nearly
  // the same step times), so for them the test asks what the trials can tell: the later rounds'
  // predictions (each made with the refit before it) err less than the first round's.
  const auto& rounds = status["rounds"];
  ASSERT_GE(rounds.size(), 3u);
  auto expect_closer = [&](const char* name, const nlohmann::json& round, double fraction) {
    const double prior = rounds.front()["constants"][name];
    const double hidden = truth["constants"][name];
    const double gap = std::fabs(std::log(prior / hidden));
    ASSERT_GT(gap, 0.1) << name << ": the hidden factor must differ from the prior";
    const double fitted = round["constants"][name];
    EXPECT_LT(std::fabs(std::log(fitted / hidden)), fraction * gap)
        << name << " after round " << round["round"] << ": prior " << prior << ", refitted "
        << fitted << ", hidden " << hidden;
  };
  // Round 1's three or four trials move GEMM efficiency toward the hidden value against a prior
  // fitted on the whole training set; the last round closes at least a tenth of the gap.
  expect_closer("gemm_efficiency", rounds[1], 1.0);
  for (const char* name : {"gemm_efficiency", "cpu_adam_params_per_s"}) {
    expect_closer(name, rounds.back(), 0.9);
  }
  std::vector<double> first_errors, later_errors;
  for (const auto& t : status["trials"]) {
    if (t["measured_tokens_per_s_per_gpu"].is_null() || t["kind"] != "explore") continue;
    const double error = std::fabs(std::log(t["predicted_tokens_per_s_per_gpu"].get<double>() /
                                            t["measured_tokens_per_s_per_gpu"].get<double>()));
    (t["round"].get<int>() == 1 ? first_errors : later_errors).push_back(error);
  }
  ASSERT_FALSE(first_errors.empty());
  ASSERT_FALSE(later_errors.empty());
  const auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
  };
  EXPECT_LT(mean(later_errors), mean(first_errors))
      << "the refitted rounds predict no better than the prior";
  const std::string recipe = (std::filesystem::path(dir) / "recipe.yaml").string();
  const sched::CommandResult check = ladle_run({"check", recipe});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  const std::string text = util::read_file(recipe);
  EXPECT_NE(text.find("status: verified"), std::string::npos);
  EXPECT_NE(text.find("  convergence:\n    steps: 20\n    result: pass"), std::string::npos);
  EXPECT_NE(text.find("  pytorch: missing"),
            std::string::npos);  // no PyTorch here: recorded as missing
  EXPECT_NE(util::read_file((std::filesystem::path(dir) / "chart.svg").string()).find("<svg"),
            std::string::npos);
  EXPECT_NE(util::read_file((std::filesystem::path(dir) / "report.md").string()).find("## Trials"),
            std::string::npos);
}

/// Runs the loop, kills it with SIGKILL at a random moment while a job is on the scheduler (once
/// a random number of trials, 0 to 9, have ended), resumes it, and checks that it ran the same
/// trials to the same winner as `reference_dir` and that no job name ran twice.
inline void expect_kill_and_resume_change_nothing(const std::string& backend,
                                                  const std::filesystem::path& root,
                                                  const std::string& reference_dir) {
  const std::string dir = (root / "killed").string();
  use_engine_state(root / "killed-engine");
  const int ended_before_kill = static_cast<int>(std::random_device{}() % 10);
  SCOPED_TRACE(fmt::format("killed once {} trials had ended", ended_before_kill));
  const pid_t pid = ladle_spawn(flash_tune_args(backend, dir), (root / "killed.log").string());
  const bool mid_round = wait_for_status(
      dir,
      [ended_before_kill](const nlohmann::json& s) {
        int ended = 0;
        bool on_scheduler = false;
        for (const auto& t : s["trials"]) {
          const std::string state = t["state"];
          ended += state != "proposed" && state != "submitting" && state != "submitted";
          on_scheduler |= state == "submitted" || state == "submitting";
        }
        return ended >= ended_before_kill && on_scheduler;
      },
      120);
  ::kill(pid, SIGKILL);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  ASSERT_TRUE(mid_round) << util::read_file((root / "killed.log").string());
  ASSERT_TRUE(WIFSIGNALED(wstatus));
  const sched::CommandResult resumed = ladle_run({"tune", "resume", dir});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  const nlohmann::json a = tune_status(reference_dir);
  const nlohmann::json b = tune_status(dir);
  EXPECT_EQ(trial_digest(a), trial_digest(b));
  EXPECT_EQ(a["best"]["layout"], b["best"]["layout"]);
  for (const auto& [name, runs] : ledger_counts(root / "killed-engine")) {
    EXPECT_EQ(runs, 1) << name << " ran " << runs << " times";
  }
  const auto counts = ledger_counts(root / "killed-engine");
  size_t jobs = 0;
  for (const auto& t : b["trials"]) jobs += static_cast<size_t>(t["attempt"].get<int>());
  EXPECT_EQ(counts.size(), jobs) << "every attempt of every trial ran exactly once";
}

}  // namespace ladle::test
