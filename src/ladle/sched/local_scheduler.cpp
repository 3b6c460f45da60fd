// local_scheduler.cpp: jobs as process groups on this machine. Each job is a session of its own
// (setsid), so a cancel signals that group only and a Ctrl-C at the terminal does not reach it;
// its record (pid with start time, exit status, cancel mark) lives in STATE_DIR/<name>/, so a
// restarted ladle finds it again.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "ladle/sched/process.hpp"
#include "ladle/sched/scheduler.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"

namespace ladle::sched {

namespace {

namespace fs = std::filesystem;

// The 22nd field of /proc/PID/stat (start time in clock ticks), and the state letter: together
// they tell our job from a later process that reuses its pid, and a zombie from a live process.
struct ProcStat {
  bool exists = false;
  char state = '?';
  std::string start_time;
};

ProcStat read_proc_stat(long pid) {
  ProcStat out;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!in || !std::getline(in, text)) return out;
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return out;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  std::vector<std::string> rest;
  while (fields >> field) rest.push_back(field);
  // rest[0] is field 3 (state); field 22 is rest[19].
  if (rest.size() < 20) return out;
  out.exists = true;
  out.state = rest[0].empty() ? '?' : rest[0][0];
  out.start_time = rest[19];
  return out;
}

class LocalScheduler final : public Scheduler {
 public:
  explicit LocalScheduler(std::string state_dir) : state_dir_(std::move(state_dir)) {}

  std::string name() const override { return "local"; }

  void check_reachable() override {
    if (find_program("bash").empty()) throw_usage("local: bash not found in PATH");
    if (state_dir_.empty()) throw_usage("local: no folder for job records");
  }

  std::string submit(const JobSpec& job) override {
    const fs::path record = fs::path(state_dir_) / job.name;
    if (fs::exists(record / "pid")) {
      throw_input(SourceLocation{job.script_path, 0, 0, ""},
                  "local: a job named '{}' was already submitted", job.name);
    }
    fs::create_directories(record);
    fs::create_directories(fs::path(job.script_path).parent_path());
    fs::create_directories(fs::path(job.log_path).parent_path());
    util::write_file_atomic(job.script_path, job.script);
    const std::string rc_path = (record / "rc").string();
    std::string runner = "bash \"$1\"";
    if (job.time_limit_s > 0)
      runner = fmt::format("timeout -s TERM -k 10 {} bash \"$1\"", job.time_limit_s);
    const std::string wrapper = runner + "; rc=$?; echo $rc > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"";
    const std::string started_path = (record / "started").string();
    // The child waits on a pipe until its record is written: a ladle killed between the fork and
    // the record leaves a child that reads end-of-file and exits without running the job, so a
    // restarted ladle never runs a job twice. The child marks "started" just before it runs.
    int go[2];
    if (::pipe2(go, O_CLOEXEC) != 0) throw Error(ErrorKind::io, "local: pipe failed");
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(go[0]);
      ::close(go[1]);
      throw Error(ErrorKind::io, "local: fork failed");
    }
    if (pid == 0) {
      ::setsid();
      ::close(go[1]);
      char byte = 0;
      ssize_t n;
      do {
        n = ::read(go[0], &byte, 1);
      } while (n < 0 && errno == EINTR);
      if (n != 1) ::_exit(0);
      const int mark = ::open(started_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (mark >= 0) ::close(mark);
      const int log = ::open(job.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      const int null = ::open("/dev/null", O_RDONLY);
      if (log >= 0) {
        ::dup2(log, 1);
        ::dup2(log, 2);
      }
      if (null >= 0) ::dup2(null, 0);
      ::execl("/bin/bash", "bash", "-c", wrapper.c_str(), "ladle-local-job",
              job.script_path.c_str(), rc_path.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(go[0]);
    // The start time is fixed at the fork; with the pid it tells our job from a later process
    // that reuses the pid.
    const ProcStat st = read_proc_stat(pid);
    try {
      util::write_file_atomic((record / "pid").string(),
                              fmt::format("{} {}\n", pid, st.start_time));
    } catch (...) {
      ::close(go[1]);  // the child reads end-of-file and exits without running
      throw;
    }
    const char byte = 1;
    ssize_t n;
    do {
      n = ::write(go[1], &byte, 1);
    } while (n < 0 && errno == EINTR);
    ::close(go[1]);
    return job.name;
  }

  std::optional<std::string> find(const std::string& job_name, const std::string&) override {
    const fs::path record = fs::path(state_dir_) / job_name;
    if (!fs::exists(record / "pid")) return std::nullopt;
    // A record without the "started" mark belongs to a child that is still waiting for its go
    // byte or that read end-of-file because the submitting ladle died: once it is gone without
    // the mark, the job never ran, and its record is dropped so that it is submitted again.
    for (int i = 0; i < 200 && !fs::exists(record / "started") && alive(record); ++i) {
      reap();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (fs::exists(record / "started")) return job_name;
    if (alive(record)) return job_name;  // still waiting after two seconds: treat as submitted
    std::error_code ec;
    fs::remove(record / "pid", ec);
    return std::nullopt;
  }

  JobStatus state(const std::string& id) override {
    const fs::path record = fs::path(state_dir_) / id;
    JobStatus status;
    if (!fs::exists(record / "pid")) return status;
    reap();
    const bool cancelled = fs::exists(record / "cancelled");
    if (fs::exists(record / "rc")) {
      const int rc = std::stoi(util::read_file((record / "rc").string()));
      status.exit_code = rc;
      status.state = rc == 0     ? JobState::succeeded
                     : rc == 124 ? JobState::timeout
                                 : JobState::failed;
      if (cancelled && rc != 0) status.state = JobState::cancelled;
      status.reason = fmt::format("exit {}", rc);
      return status;
    }
    if (alive(record)) {
      status.state = JobState::running;
      status.reason = cancelled ? "cancelling" : "running";
      return status;
    }
    status.state = cancelled ? JobState::cancelled : JobState::failed;
    status.reason = cancelled ? "cancelled" : "ended without an exit status";
    return status;
  }

  void cancel(const std::string& id) override {
    const fs::path record = fs::path(state_dir_) / id;
    if (!fs::exists(record / "pid") || fs::exists(record / "rc")) return;
    util::write_file_atomic((record / "cancelled").string(), "cancelled\n");
    const long pid = pid_of(record);
    if (pid <= 0 || !alive(record)) return;
    signal_session(pid, SIGTERM);
    for (int i = 0; i < 100 && !session_members(pid).empty(); ++i) {
      reap();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    signal_session(pid, SIGKILL);
    reap();
  }

  std::string read_log(const std::string&, const std::string& log_path) override {
    return read_log_file(log_path);
  }

 private:
  static long pid_of(const fs::path& record) {
    std::istringstream in(util::read_file((record / "pid").string()));
    long pid = 0;
    in >> pid;
    return pid;
  }

  // Our own children are reaped here so that they do not linger as zombies.
  static void reap() {
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
  }

  // The job is a session of its own (setsid); `timeout` and engines may open process groups inside
  // it, so a cancel signals every process of the session, and no other.
  static std::vector<long> session_members(long sid) {
    std::vector<long> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
      const std::string name = entry.path().filename().string();
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream in(entry.path() / "stat");
      std::string text;
      if (!in || !std::getline(in, text)) continue;
      const size_t close = text.rfind(')');
      if (close == std::string::npos) continue;
      std::istringstream fields(text.substr(close + 2));
      std::string state, ppid, pgrp, session;
      fields >> state >> ppid >> pgrp >> session;
      if (state != "Z" && session == std::to_string(sid)) out.push_back(std::stol(name));
    }
    return out;
  }

  static void signal_session(long sid, int sig) {
    for (long member : session_members(sid)) ::kill(static_cast<pid_t>(member), sig);
  }

  static bool alive(const fs::path& record) {
    std::istringstream in(util::read_file((record / "pid").string()));
    long pid = 0;
    std::string start;
    in >> pid >> start;
    const ProcStat st = read_proc_stat(pid);
    if (st.exists && st.start_time == start && st.state != 'Z' && st.state != 'X') return true;
    return false;
  }

  std::string state_dir_;
};

}  // namespace

std::unique_ptr<Scheduler> make_local_scheduler(const std::string& state_dir) {
  return std::make_unique<LocalScheduler>(state_dir);
}

}  // namespace ladle::sched
