// Tests of the local back-end: real process groups on this machine.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "ladle/sched/process.hpp"
#include "ladle/sched/scheduler.hpp"
#include "ladle/util/file_io.hpp"
#include "support/test_support.hpp"

namespace ladle::sched {
namespace {

// A process that has not ended (a zombie has ended; its parent has yet to reap it).
bool running(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!in || !std::getline(in, text)) return false;
  const size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

JobStatus wait_finished(Scheduler& s, const std::string& id, double timeout_s = 20) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  JobStatus st = s.state(id);
  while (!is_finished(st.state) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    st = s.state(id);
  }
  return st;
}

JobSpec job(const test::TempDir& dir, const std::string& name, const std::string& script) {
  JobSpec j;
  j.name = name;
  j.script = script;
  j.script_path = (dir.path() / name / "job.sh").string();
  j.log_path = (dir.path() / name / "job.log").string();
  return j;
}

TEST(LocalScheduler, RunsAScriptAndRecordsItsExitStatusAndOutput) {
  test::TempDir dir;
  auto s = make_local_scheduler((dir.path() / "jobs").string());
  s->check_reachable();
  const JobSpec ok = job(dir, "ladle-t-1", "echo hello from $0\n");
  const std::string id = s->submit(ok);
  const JobStatus st = wait_finished(*s, id);
  EXPECT_EQ(st.state, JobState::succeeded);
  EXPECT_EQ(st.exit_code, 0);
  EXPECT_NE(s->read_log(id, ok.log_path).find("hello from"), std::string::npos);

  const JobSpec bad = job(dir, "ladle-t-2", "echo failing >&2\nexit 3\n");
  const JobStatus failed = wait_finished(*s, s->submit(bad));
  EXPECT_EQ(failed.state, JobState::failed);
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_NE(s->read_log("ladle-t-2", bad.log_path).find("failing"), std::string::npos);
}

TEST(LocalScheduler, FindsAJobByNameAfterARestartAndNeverSubmitsANameTwice) {
  test::TempDir dir;
  const std::string records = (dir.path() / "jobs").string();
  const JobSpec j = job(dir, "ladle-t-3", "sleep 0.2\n");
  {
    auto s = make_local_scheduler(records);
    s->submit(j);
  }
  auto again = make_local_scheduler(records);  // a new ladle process sees the same records
  EXPECT_EQ(again->find("ladle-t-3", j.log_path), "ladle-t-3");
  EXPECT_EQ(again->find("ladle-t-4", j.log_path), std::nullopt);
  EXPECT_LADLE_ERROR(again->submit(j), input, "already submitted");
  EXPECT_EQ(wait_finished(*again, "ladle-t-3").state, JobState::succeeded);
}

// A ladle killed after the fork but before the job's go byte leaves a record whose child exited
// without running the job (no "started" mark): a restarted ladle submits it again, once.
TEST(LocalScheduler, ARecordWhoseJobNeverStartedIsSubmittedAgain) {
  test::TempDir dir;
  const std::string records = (dir.path() / "jobs").string();
  const JobSpec j = job(dir, "ladle-t-5", "echo ran >> \"$(dirname \"$0\")/runs\"\n");
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);  // its pid names no live process now
  std::filesystem::create_directories(std::filesystem::path(records) / j.name);
  util::write_file_atomic((std::filesystem::path(records) / j.name / "pid").string(),
                   std::to_string(child) + " 1\n");
  auto s = make_local_scheduler(records);
  EXPECT_EQ(s->find(j.name, j.log_path), std::nullopt);
  const std::string id = s->submit(j);
  EXPECT_EQ(wait_finished(*s, id).state, JobState::succeeded);
  EXPECT_EQ(s->find(j.name, j.log_path), j.name);
  EXPECT_EQ(util::read_file((dir.path() / j.name / "runs").string()), "ran\n");
}

TEST(LocalScheduler, CancelEndsTheJobsSessionOnly) {
  test::TempDir dir;
  auto s = make_local_scheduler((dir.path() / "jobs").string());
  // A process outside the job's group, which the cancel must leave alone.
  const pid_t bystander = ::fork();
  if (bystander == 0) {
    ::execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const JobSpec j = job(dir, "ladle-t-5", "sleep 30 &\nchild=$!\necho child $child\nwait\n");
  const std::string id = s->submit(j);
  for (int i = 0; i < 100 && s->read_log(id, j.log_path).find("child") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(s->state(id).state, JobState::running);
  s->cancel(id);
  const JobStatus st = wait_finished(*s, id);
  EXPECT_EQ(st.state, JobState::cancelled);
  const std::string log = s->read_log(id, j.log_path);
  const long child = std::stol(log.substr(log.find("child ") + 6));
  EXPECT_FALSE(running(child)) << "the job's own child survived the cancel";
  EXPECT_TRUE(running(bystander)) << "the cancel reached a process outside the job";
  ::kill(bystander, SIGKILL);
}

TEST(LocalScheduler, ATimeLimitEndsTheJobAsTimeout) {
  test::TempDir dir;
  auto s = make_local_scheduler((dir.path() / "jobs").string());
  JobSpec j = job(dir, "ladle-t-6", "sleep 30\n");
  j.time_limit_s = 1;
  EXPECT_EQ(wait_finished(*s, s->submit(j)).state, JobState::timeout);
}

TEST(SchedulerNames, SlurmAndRayStatesMapToJobStates) {
  EXPECT_EQ(parse_slurm_state("COMPLETED"), JobState::succeeded);
  EXPECT_EQ(parse_slurm_state("CANCELLED by 0"), JobState::cancelled);
  EXPECT_EQ(parse_slurm_state("CANCELLED+"), JobState::cancelled);
  EXPECT_EQ(parse_slurm_state("TIMEOUT"), JobState::timeout);
  EXPECT_EQ(parse_slurm_state("NODE_FAIL"), JobState::node_fail);
  EXPECT_EQ(parse_slurm_state("OUT_OF_MEMORY"), JobState::out_of_memory);
  EXPECT_EQ(parse_slurm_state("PENDING"), JobState::pending);
  EXPECT_EQ(parse_slurm_state("WHATEVER"), JobState::unknown);
  EXPECT_EQ(parse_ray_status("STOPPED"), JobState::cancelled);
  EXPECT_EQ(parse_ray_status("SUCCEEDED"), JobState::succeeded);
  EXPECT_EQ(slurm_time_limit(1), "00:01:00");
  EXPECT_EQ(slurm_time_limit(3601), "01:01:00");
  EXPECT_EQ(slurm_time_limit(2 * 86400 + 60), "2-00:01:00");
  EXPECT_EQ(parse_job_state(to_string(JobState::out_of_memory)), JobState::out_of_memory);
  EXPECT_LADLE_ERROR(make_scheduler({"pbs"}), usage, "expected local, slurm or ray");
}

TEST(Process, RunsAProgramWithoutAShellAndReportsAMissingOne) {
  const CommandResult r = run_command({"bash", "-c", "echo out; echo err >&2; exit 4"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(run_command({"no-such-program-ladle"}).exit_code, 127);
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

TEST(LocalScheduler, ReadsALogOfAGigabyteWithABound) {
  test::TempDir dir;
  // 1.1 GB, sparse: a first record, a gigabyte of nothing, a last record.
  const std::string log = dir.file("job.log");
  {
    std::ofstream out(log, std::ios::binary);
    out << "step 0: first\n";
  }
  std::filesystem::resize_file(log, int64_t{1100} << 20);
  {
    std::ofstream out(log, std::ios::binary | std::ios::app);
    out << "\nstep 9: last\n";
  }
  auto local = make_local_scheduler(dir.file("jobs"));
  const std::string text = local->read_log("ladle-x-1", log);
  EXPECT_LE(text.size(), static_cast<size_t>(kMaxLogBytes) + 100);
  EXPECT_EQ(text.rfind("step 0: first\n", 0), 0u);
  EXPECT_NE(text.find(std::string(kLogSkippedMarker)), std::string::npos);
  EXPECT_TRUE(text.ends_with("\nstep 9: last\n"));
  // A FIFO in the log's place is refused, not waited on.
  const std::string fifo = dir.file("fifo.log");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_LADLE_ERROR(local->read_log("ladle-x-2", fifo), io, "not a regular file");
}

}  // namespace
}  // namespace ladle::sched
