#pragma once
// A loopback stand-in for a Ray cluster's dashboard, serving the documented Ray Jobs REST API
// (docs.ray.io "Ray Jobs REST API"): GET /api/version, POST /api/jobs/ (entrypoint,
// submission_id), GET /api/jobs/{id}, GET /api/jobs/{id}/logs, POST /api/jobs/{id}/stop. Each
// entrypoint runs as a local process group, as a Ray head node runs a job's driver. It listens on
// 127.0.0.1 only, on a free port.

#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "ladle/sched/scheduler.hpp"

namespace ladle::test {

class RayJobsServer {
 public:
  explicit RayJobsServer(std::filesystem::path dir)
      : dir_(std::move(dir)), runner_(sched::make_local_scheduler((dir_ / "records").string())) {
    server_.Get("/api/version", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"version": "test", "ray_version": "2.9.0"})", "application/json");
    });
    server_.Post("/api/jobs/",
                 [this](const httplib::Request& req, httplib::Response& res) { submit(req, res); });
    server_.Get(R"(/api/jobs/([^/]+)/logs)",
                [this](const httplib::Request& req, httplib::Response& res) {
                  std::lock_guard lock(mutex_);
                  const std::string id = req.matches[1];
                  if (!jobs_.count(id)) return not_found(res);
                  const nlohmann::json body = {{"logs", runner_->read_log(id, log_path(id))}};
                  res.set_content(body.dump(), "application/json");
                });
    server_.Post(R"(/api/jobs/([^/]+)/stop)",
                 [this](const httplib::Request& req, httplib::Response& res) {
                   std::lock_guard lock(mutex_);
                   const std::string id = req.matches[1];
                   if (!jobs_.count(id)) return not_found(res);
                   runner_->cancel(id);
                   res.set_content(R"({"stopped": true})", "application/json");
                 });
    server_.Get(R"(/api/jobs/([^/]+))",
                [this](const httplib::Request& req, httplib::Response& res) {
                  std::lock_guard lock(mutex_);
                  const std::string id = req.matches[1];
                  if (!jobs_.count(id)) return not_found(res);
                  const sched::JobStatus st = runner_->state(id);
                  nlohmann::json body = {
                      {"submission_id", id}, {"entrypoint", jobs_[id]}, {"type", "SUBMISSION"}};
                  switch (st.state) {
                    case sched::JobState::pending:
                      body["status"] = "PENDING";
                      break;
                    case sched::JobState::running:
                      body["status"] = "RUNNING";
                      break;
                    case sched::JobState::succeeded:
                      body["status"] = "SUCCEEDED";
                      break;
                    case sched::JobState::cancelled:
                      body["status"] = "STOPPED";
                      break;
                    default:
                      body["status"] = "FAILED";
                      break;
                  }
                  if (st.exit_code) body["driver_exit_code"] = *st.exit_code;
                  body["message"] = st.reason;
                  res.set_content(body.dump(), "application/json");
                });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ~RayJobsServer() {
    {
      std::lock_guard lock(mutex_);
      for (const auto& [id, entry] : jobs_) runner_->cancel(id);
    }
    server_.stop();
    thread_.join();
  }
  RayJobsServer(const RayJobsServer&) = delete;
  RayJobsServer& operator=(const RayJobsServer&) = delete;

  std::string address() const { return "http://127.0.0.1:" + std::to_string(port_); }
  /// Submissions received, including rejected duplicates.
  int submissions() const {
    std::lock_guard lock(mutex_);
    return submissions_;
  }

 private:
  static void not_found(httplib::Response& res) {
    res.status = 404;
    res.set_content(R"({"detail": "job not found"})", "application/json");
  }

  std::string log_path(const std::string& id) const {
    return (dir_ / "logs" / (id + ".log")).string();
  }

  void submit(const httplib::Request& req, httplib::Response& res) {
    std::lock_guard lock(mutex_);
    ++submissions_;
    const nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("entrypoint") || !body["entrypoint"].is_string()) {
      res.status = 400;
      res.set_content("entrypoint is required", "text/plain");
      return;
    }
    std::string id = body.value("submission_id", "raysubmit_" + std::to_string(submissions_));
    if (jobs_.count(id)) {
      res.status = 400;
      res.set_content("Job with submission_id " + id + " already exists.", "text/plain");
      return;
    }
    const std::string entrypoint = body["entrypoint"].get<std::string>();
    jobs_[id] = entrypoint;
    sched::JobSpec job;
    job.name = id;
    job.script = entrypoint + "\n";
    job.script_path = (dir_ / "entrypoints" / (id + ".sh")).string();
    job.log_path = log_path(id);
    runner_->submit(job);
    res.set_content(nlohmann::json{{"job_id", id}, {"submission_id", id}}.dump(),
                    "application/json");
  }

  std::filesystem::path dir_;
  std::unique_ptr<sched::Scheduler> runner_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::map<std::string, std::string> jobs_;
  int submissions_ = 0;
};

}  // namespace ladle::test
