// ray_scheduler.cpp: jobs through the Ray Jobs REST API of a running Ray cluster's dashboard
// (docs.ray.io, "Ray Jobs REST API"): POST /api/jobs/ submits an entrypoint under a submission_id
// (ladle's job name, so the job is found again by name), GET /api/jobs/{id} gives its status,
// GET /api/jobs/{id}/logs its output, POST /api/jobs/{id}/stop ends it.
#include <httplib.h>

#include <algorithm>
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

// Whether body[i] is a backslash that starts an escape (not itself escaped).
bool starts_escape(const std::string& body, size_t i) {
  if (body[i] != '\\') return false;
  size_t run = 0;
  while (run < i && body[i - 1 - run] == '\\') ++run;
  return run % 2 == 0;
}

// A JSON answer {"logs": "..."} cut short, closed after its last whole character (no half UTF-8
// sequence, no half escape, no high surrogate without its pair) so that it parses.
std::string close_cut_answer(std::string body) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(body[i]); };
  size_t lead = body.size();
  size_t continuation = 0;
  while (lead > 0 && continuation < 3 && (byte(lead - 1) & 0xc0) == 0x80) {
    --lead;
    ++continuation;
  }
  if (lead > 0 && byte(lead - 1) >= 0xc0) {
    const size_t needed = byte(lead - 1) >= 0xf0 ? 3 : byte(lead - 1) >= 0xe0 ? 2 : 1;
    if (continuation < needed) body.resize(lead - 1);
  }
  const size_t from = body.size() > 6 ? body.size() - 6 : 0;
  for (size_t i = body.size(); i > from; --i) {
    if (!starts_escape(body, i - 1)) continue;
    const size_t rest = body.size() - (i - 1);
    const bool unicode = rest > 1 && body[i] == 'u';
    if (rest < 2 || (unicode && rest < 6)) body.resize(i - 1);
    break;
  }
  if (body.size() >= 6 && starts_escape(body, body.size() - 6) && body[body.size() - 5] == 'u' &&
      (body[body.size() - 4] == 'd' || body[body.size() - 4] == 'D') &&
      std::string_view("89abAB").find(body[body.size() - 3]) != std::string_view::npos) {
    body.resize(body.size() - 6);  // a high surrogate whose low half was cut off
  }
  return body + "\"}";
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
    // The Jobs API answers the whole log in one JSON string; it is received with the bound of
    // kMaxLogBytes (the download stops there), and a cut answer keeps the text before the cut.
    std::string body;
    bool cut = false;
    const auto res = client_.Get("/api/jobs/" + id + "/logs", [&](const char* data, size_t size) {
      const size_t room = static_cast<size_t>(kMaxLogBytes) - body.size();
      body.append(data, std::min(size, room));
      cut = size > room;
      return !cut;
    });
    if (!cut && (!res || res->status != 200)) return {};
    const nlohmann::json answer =
        nlohmann::json::parse(cut ? close_cut_answer(body) : body, nullptr, false);
    if (!answer.is_object() || !answer.contains("logs") || !answer["logs"].is_string()) return {};
    std::string logs = answer["logs"].get<std::string>();
    if (cut) {
      if (const size_t end = logs.rfind('\n'); end != std::string::npos) logs.resize(end + 1);
      logs += fmt::format("{}the rest (fetched up to {} bytes)\n", kLogSkippedMarker, kMaxLogBytes);
    }
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
