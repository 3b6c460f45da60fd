#include "ladle/sched/scheduler.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "ladle/util/error.hpp"

namespace ladle::sched {

namespace {

struct StateName {
  JobState state;
  const char* name;
};

constexpr std::array<StateName, 9> kStateNames = {{
    {JobState::pending, "pending"},
    {JobState::running, "running"},
    {JobState::succeeded, "succeeded"},
    {JobState::failed, "failed"},
    {JobState::cancelled, "cancelled"},
    {JobState::timeout, "timeout"},
    {JobState::node_fail, "node_fail"},
    {JobState::out_of_memory, "out_of_memory"},
    {JobState::unknown, "unknown"},
}};

// Slurm's job state words (squeue(1) "JOB STATE CODES") and what each means here.
struct SlurmWord {
  const char* word;
  JobState state;
};
constexpr std::array<SlurmWord, 20> kSlurmWords = {{
    {"PENDING", JobState::pending},     {"CONFIGURING", JobState::pending},
    {"REQUEUED", JobState::pending},    {"REQUEUE_HOLD", JobState::pending},
    {"REQUEUE_FED", JobState::pending}, {"RESV_DEL_HOLD", JobState::pending},
    {"RUNNING", JobState::running},     {"COMPLETING", JobState::running},
    {"SUSPENDED", JobState::running},   {"STAGE_OUT", JobState::running},
    {"SIGNALING", JobState::running},   {"RESIZING", JobState::running},
    {"COMPLETED", JobState::succeeded}, {"FAILED", JobState::failed},
    {"SPECIAL_EXIT", JobState::failed}, {"CANCELLED", JobState::cancelled},
    {"PREEMPTED", JobState::cancelled}, {"TIMEOUT", JobState::timeout},
    {"DEADLINE", JobState::timeout},    {"NODE_FAIL", JobState::node_fail},
}};

}  // namespace

const char* to_string(JobState state) {
  for (const StateName& s : kStateNames) {
    if (s.state == state) return s.name;
  }
  return "unknown";
}

JobState parse_job_state(std::string_view name) {
  for (const StateName& s : kStateNames) {
    if (name == s.name) return s.state;
  }
  throw Error(ErrorKind::input, fmt::format("unknown job state '{}'", name));
}

bool is_finished(JobState state) {
  return state != JobState::pending && state != JobState::running;
}

JobState parse_slurm_state(std::string_view word) {
  const size_t space = word.find(' ');  // "CANCELLED by 0"
  if (space != std::string_view::npos) word = word.substr(0, space);
  while (!word.empty() && (word.back() == '+' || word.back() == '\n')) word.remove_suffix(1);
  if (word == "BOOT_FAIL") return JobState::node_fail;
  if (word == "OUT_OF_MEMORY") return JobState::out_of_memory;
  for (const SlurmWord& w : kSlurmWords) {
    if (word == w.word) return w.state;
  }
  return JobState::unknown;
}

JobState parse_ray_status(std::string_view status) {
  // Ray's JobStatus (ray/dashboard/modules/job/common.py): PENDING, RUNNING, STOPPED, SUCCEEDED,
  // FAILED.
  if (status == "PENDING") return JobState::pending;
  if (status == "RUNNING") return JobState::running;
  if (status == "STOPPED") return JobState::cancelled;
  if (status == "SUCCEEDED") return JobState::succeeded;
  if (status == "FAILED") return JobState::failed;
  return JobState::unknown;
}

std::string read_log_file(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) return {};
  // A FIFO or a device in the log's place could block or never end.
  if (!std::filesystem::is_regular_file(st))
    throw Error(ErrorKind::io, fmt::format("the job log {} is not a regular file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::io, fmt::format("cannot read the job log {}", path));
  in.seekg(0, std::ios::end);
  const auto size = static_cast<int64_t>(in.tellg());
  in.seekg(0);
  const auto read = [&](int64_t bytes) {
    std::string text(static_cast<size_t>(std::max<int64_t>(0, bytes)), '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
    return text;
  };
  if (size <= kMaxLogBytes) return read(size);
  const int64_t half = kMaxLogBytes / 2;
  std::string head = read(half);
  in.seekg(size - half);
  std::string tail = read(half);
  // Whole lines on both sides of the cut, so no record is read half.
  if (const size_t end = head.rfind('\n'); end != std::string::npos) head.resize(end + 1);
  if (const size_t start = tail.find('\n'); start != std::string::npos) tail.erase(0, start + 1);
  const int64_t skipped = size - static_cast<int64_t>(head.size() + tail.size());
  return head + fmt::format("{}{} bytes\n", kLogSkippedMarker, skipped) + tail;
}

std::string slurm_time_limit(int64_t seconds) {
  const int64_t minutes = std::max<int64_t>(1, (seconds + 59) / 60);
  const int64_t days = minutes / (24 * 60);
  const int64_t hours = minutes / 60 % 24;
  const int64_t mins = minutes % 60;
  if (days > 0) return fmt::format("{}-{:02}:{:02}:00", days, hours, mins);
  return fmt::format("{:02}:{:02}:00", hours, mins);
}

std::unique_ptr<Scheduler> make_scheduler(const SchedulerOptions& options) {
  if (options.backend == "local") return make_local_scheduler(options.state_dir);
  if (options.backend == "slurm") return make_slurm_scheduler(options.partition, options.account);
  if (options.backend == "ray") {
    if (options.ray_address.empty()) {
      throw_usage(
          "--backend ray needs --ray-address, the dashboard's http://host:port (e.g. "
          "http://127.0.0.1:8265)");
    }
    return make_ray_scheduler(options.ray_address);
  }
  throw_usage("unknown backend '{}': expected local, slurm or ray", options.backend);
}

}  // namespace ladle::sched
