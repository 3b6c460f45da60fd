// ray_scheduler.cpp: jobs through the Ray Jobs REST API of a running Ray cluster's dashboard
// (docs.ray.io, "Ray Jobs REST API"): POST /api/jobs/ submits an entrypoint under a submission_id
// (ladle's job name, so the job is found again by name), GET /api/jobs/{id} gives its status,
// GET /api/jobs/{id}/logs its output, POST /api/jobs/{id}/stop ends it.
#include <httplib.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "ladle/sched/process.hpp"
#include "ladle/sched/scheduler.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"

namespace ladle::sched {

namespace {

namespace fs = std::filesystem;

std::string first_line(std::string_view text) {
  const size_t end = text.find('\n');
  return std::string(text.substr(0, end));
}

class RayScheduler final : public Scheduler {
 public:
  explicit RayScheduler(std::string address) : address_(std::move(address)), client_(address_) {
    client_.set_connection_timeout(5, 0);
    client_.set_read_timeout(30, 0);
  }

  std::string name() const override { return "ray"; }

  void check_reachable() override {
    if (!client_.is_valid()) throw_usage("ray: '{}' is not an http://host:port address", address_);
    const auto res = client_.Get("/api/version");
    if (!res) {
      throw_usage("ray: cannot reach the Ray dashboard at {} ({})", address_,
                  httplib::to_string(res.error()));
    }
    if (res->status != 200)
      throw_usage("ray: {} answered /api/version with HTTP {}", address_, res->status);
  }

  std::string submit(const JobSpec& job) override {
    fs::create_directories(fs::path(job.script_path).parent_path());
    util::write_file_atomic(job.script_path, job.script);
    const nlohmann::json body = {
        {"entrypoint", "bash -c " + shell_quote(job.script)},
        {"submission_id", job.name},
        {"metadata", {{"ladle_job", job.name}}},
    };
    const auto res = client_.Post("/api/jobs/", body.dump(), "application/json");
    if (!res)
      throw_usage("ray: cannot reach the Ray dashboard at {} ({})", address_,
                  httplib::to_string(res.error()));
    if (res->status != 200) {
      throw_input(SourceLocation{job.script_path, 0, 0, ""}, "ray rejected the job: HTTP {}: {}",
                  res->status, first_line(res->body));
    }
    const nlohmann::json answer = nlohmann::json::parse(res->body, nullptr, false);
    if (answer.is_object() && answer.contains("submission_id") &&
        answer["submission_id"].is_string()) {
      return answer["submission_id"].get<std::string>();
    }
    return job.name;
  }

  std::optional<std::string> find(const std::string& job_name, const std::string&) override {
    const auto res = client_.Get("/api/jobs/" + job_name);
    if (!res)
      throw_usage("ray: cannot reach the Ray dashboard at {} ({})", address_,
                  httplib::to_string(res.error()));
    if (res->status == 200) return job_name;
    return std::nullopt;
  }

  JobStatus state(const std::string& id) override {
    JobStatus status;
    const auto res = client_.Get("/api/jobs/" + id);
    if (!res)
      throw_usage("ray: cannot reach the Ray dashboard at {} ({})", address_,
                  httplib::to_string(res.error()));
    if (res->status != 200) {
      status.reason = fmt::format("HTTP {}", res->status);
      return status;
    }
    const nlohmann::json info = nlohmann::json::parse(res->body, nullptr, false);
    if (!info.is_object() || !info.contains("status") || !info["status"].is_string()) {
      status.reason = "no status in the answer";
      return status;
    }
    const std::string word = info["status"].get<std::string>();
    status.state = parse_ray_status(word);
    status.reason = word;
    if (info.contains("message") && info["message"].is_string() &&
        !info["message"].get<std::string>().empty()) {
      status.reason += ": " + first_line(info["message"].get<std::string>());
    }
    if (info.contains("driver_exit_code") && info["driver_exit_code"].is_number_integer()) {
      status.exit_code = info["driver_exit_code"].get<int>();
    }
    return status;
  }

  void cancel(const std::string& id) override {
    client_.Post("/api/jobs/" + id + "/stop", "", "application/json");
  }

  std::string read_log(const std::string& id, const std::string& log_path) override {
    const auto res = client_.Get("/api/jobs/" + id + "/logs");
    if (!res || res->status != 200) return {};
    const nlohmann::json answer = nlohmann::json::parse(res->body, nullptr, false);
    if (!answer.is_object() || !answer.contains("logs") || !answer["logs"].is_string()) return {};
    const std::string logs = answer["logs"].get<std::string>();
    if (!log_path.empty()) {
      fs::create_directories(fs::path(log_path).parent_path());
      util::write_file_atomic(log_path, logs);
    }
    return logs;
  }

 private:
  std::string address_;
  httplib::Client client_;
};

}  // namespace

std::unique_ptr<Scheduler> make_ray_scheduler(const std::string& address) {
  return std::make_unique<RayScheduler>(address);
}

}  // namespace ladle::sched
