// Tests of the Ray back-end against a loopback server implementing the Ray Jobs REST API.
#include <chrono>
#include <thread>

#include "ladle/sched/scheduler.hpp"
#include "ladle/util/file_io.hpp"
#include "sched/ray_jobs_server.hpp"
#include "support/test_support.hpp"

namespace ladle::sched {
namespace {

JobStatus wait_finished(Scheduler& s, const std::string& id) {
  JobStatus st = s.state(id);
  for (int i = 0; i < 1000 && !is_finished(st.state); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    st = s.state(id);
  }
  return st;
}

TEST(RayScheduler, SubmitsFindsReadsLogsAndStopsJobsThroughTheJobsApi) {
  test::TempDir dir;
  test::RayJobsServer server(dir.path() / "ray");
  auto ray = make_ray_scheduler(server.address());
  ray->check_reachable();
  JobSpec job;
  job.name = "ladle-r-1";
  job.script = "echo \"it's running\"\nexit 0\n";
  job.script_path = (dir.path() / "1" / "job.sh").string();
  job.log_path = (dir.path() / "1" / "job.log").string();
  EXPECT_EQ(ray->find(job.name, job.log_path), std::nullopt);
  const std::string id = ray->submit(job);
  EXPECT_EQ(id, "ladle-r-1");
  EXPECT_EQ(ray->find(job.name, job.log_path), "ladle-r-1");
  const JobStatus st = wait_finished(*ray, id);
  EXPECT_EQ(st.state, JobState::succeeded) << st.reason;
  EXPECT_EQ(st.exit_code, 0);
  EXPECT_NE(ray->read_log(id, job.log_path).find("it's running"), std::string::npos);
  EXPECT_NE(util::read_file(job.log_path).find("it's running"), std::string::npos);
  // A second submission under the same id is refused by the cluster.
  EXPECT_LADLE_ERROR(ray->submit(job), input, "ray rejected the job: HTTP 400");

  JobSpec slow = job;
  slow.name = "ladle-r-2";
  slow.script = "sleep 30\n";
  const std::string slow_id = ray->submit(slow);
  EXPECT_EQ(ray->state(slow_id).state, JobState::running);
  ray->cancel(slow_id);
  EXPECT_EQ(wait_finished(*ray, slow_id).state, JobState::cancelled);

  JobSpec failing = job;
  failing.name = "ladle-r-3";
  failing.script = "exit 5\n";
  const JobStatus failed = wait_finished(*ray, ray->submit(failing));
  EXPECT_EQ(failed.state, JobState::failed);
  EXPECT_EQ(failed.exit_code, 5);
  EXPECT_EQ(ray->state("ladle-r-404").state, JobState::unknown);
}

TEST(RayScheduler, FetchesALogWithABound) {
  test::TempDir dir;
  test::RayJobsServer server(dir.path() / "ray");
  auto ray = make_ray_scheduler(server.address());
  JobSpec job;
  job.name = "ladle-r-big";
  // 72 MiB of 1 KiB lines (non-ASCII among them), more than ladle holds of a log.
  job.script =
      "line=$(printf '\\303\\251%.0s' $(seq 300))$(printf 'x%.0s' $(seq 423))\n"
      "for i in $(seq 72); do for j in $(seq 1024); do echo \"$line\"; done; done\n"
      "echo 'step 9: last'\n";
  job.script_path = (dir.path() / "1" / "job.sh").string();
  job.log_path = (dir.path() / "1" / "job.log").string();
  const std::string id = ray->submit(job);
  EXPECT_EQ(wait_finished(*ray, id).state, JobState::succeeded);
  const std::string log = ray->read_log(id, job.log_path);
  EXPECT_LE(log.size(), static_cast<size_t>(kMaxLogBytes));
  EXPECT_GT(log.size(), static_cast<size_t>(kMaxLogBytes) / 4);
  EXPECT_NE(log.find(std::string(kLogSkippedMarker)), std::string::npos);
  EXPECT_EQ(util::read_file(job.log_path), log);
}

TEST(RayScheduler, ARefusingAddressIsOneLineAndSubmitsNothing) {
  test::TempDir dir;
  int port = 0;
  {
    test::RayJobsServer server(dir.path() / "ray");  // take a free port, then close it
    port = std::stoi(server.address().substr(server.address().rfind(':') + 1));
  }
  auto ray = make_ray_scheduler("http://127.0.0.1:" + std::to_string(port));
  EXPECT_LADLE_ERROR(ray->check_reachable(), usage,
                     "ray: cannot reach the Ray dashboard at http://127.0.0.1:");
}

}  // namespace
}  // namespace ladle::sched
