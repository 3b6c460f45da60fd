#pragma once
// scheduler.hpp: one interface over the schedulers ladle launches trial jobs on: a process group
// on this machine (local), Slurm's command-line tools (slurm), and the Ray Jobs REST API (ray).
// A job is a bash script with a unique name; the name finds the job again after ladle restarts.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ladle::sched {

/// Where a job stands, in the words every back-end maps its own states to.
enum class JobState {
  pending,  ///< queued, not started
  running,
  succeeded,      ///< finished with exit status 0
  failed,         ///< finished with a non-zero exit status
  cancelled,      ///< ended by a cancel (ladle's or someone else's)
  timeout,        ///< ended by the scheduler's time limit
  node_fail,      ///< ended because its node failed (Slurm NODE_FAIL, BOOT_FAIL)
  out_of_memory,  ///< ended by the scheduler's memory limit (Slurm OUT_OF_MEMORY)
  unknown,        ///< the scheduler no longer knows the job
};

/// "pending", "running", ...
const char* to_string(JobState state);
/// Parses a JobState name; throws Error(input).
JobState parse_job_state(std::string_view name);
/// True for every state after which the job no longer runs.
bool is_finished(JobState state);

/// A job's state and, once finished, its exit status.
struct JobStatus {
  JobState state = JobState::unknown;
  std::optional<int> exit_code;
  std::string reason;  ///< the scheduler's own word for it (Slurm's state, Ray's message)
  bool operator==(const JobStatus&) const = default;
};

/// What to run.
struct JobSpec {
  std::string name;         ///< unique, e.g. "ladle-3f2a-7"; finds the job again
  std::string script;       ///< the bash script's text
  std::string script_path;  ///< where the script is written before submission
  std::string log_path;     ///< where its standard output and error go (on this machine)
  int64_t nodes = 1;
  int64_t gpus_per_node = 8;
  int64_t time_limit_s = 0;  ///< 0: the scheduler's default
  bool operator==(const JobSpec&) const = default;
};

/// A scheduler. Every call may run a command or a request; failures to reach the scheduler
/// throw Error(usage) in one line naming it.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  /// "local", "slurm", "ray".
  virtual std::string name() const = 0;
  /// Throws Error(usage) in one line when the scheduler cannot be reached (no sbatch, a refused
  /// address); submits nothing.
  virtual void check_reachable() = 0;
  /// Writes the script and submits it; returns the job id. Throws Error(input) when the
  /// scheduler rejects the job, with the scheduler's first line of explanation.
  virtual std::string submit(const JobSpec& job) = 0;
  /// The id of a job named `name` that the scheduler knows (queued, running or finished), if any.
  virtual std::optional<std::string> find(const std::string& name, const std::string& log_path) = 0;
  /// The job's state now.
  virtual JobStatus state(const std::string& id) = 0;
  /// Ends the job (and only it); a finished job is left as it is.
  virtual void cancel(const std::string& id) = 0;
  /// The job's output so far, read from `log_path` (Ray: fetched from the cluster and written
  /// there).
  virtual std::string read_log(const std::string& id, const std::string& log_path) = 0;
};

/// How to reach a scheduler.
struct SchedulerOptions {
  std::string backend = "local";  ///< local | slurm | ray
  std::string state_dir;          ///< local: where job records live (pid, exit status)
  std::string partition;          ///< slurm --partition
  std::string account;            ///< slurm --account
  std::string ray_address;        ///< ray: http://host:port of the dashboard
  bool operator==(const SchedulerOptions&) const = default;
};

/// The back-end named by `options.backend`; throws Error(usage) for an unknown name.
std::unique_ptr<Scheduler> make_scheduler(const SchedulerOptions& options);

/// Each back-end on its own (make_scheduler picks one).
std::unique_ptr<Scheduler> make_local_scheduler(const std::string& state_dir);
std::unique_ptr<Scheduler> make_slurm_scheduler(const std::string& partition,
                                                const std::string& account);
std::unique_ptr<Scheduler> make_ray_scheduler(const std::string& address);

/// The most of a job's log ladle holds at once. A trial may print without bound (a log of a
/// gigabyte); the step records it is scored on are a few kilobytes, so a longer log is read as
/// its first and last halves of this bound around a line that says how much was skipped.
inline constexpr int64_t kMaxLogBytes = int64_t{64} << 20;

/// The line put where a log's middle was skipped (followed by the number of bytes and a newline).
inline constexpr std::string_view kLogSkippedMarker = "ladle: log longer than the bound; skipped ";

/// The log at `path` read with the bound of kMaxLogBytes ("" when there is none yet). Throws
/// Error(io) naming the path when it cannot be read.
std::string read_log_file(const std::string& path);

/// "HH:MM:SS" or "D-HH:MM:SS" for a time limit in seconds, rounded up to whole minutes (Slurm's
/// granularity), at least one minute.
std::string slurm_time_limit(int64_t seconds);

/// A Slurm state word (squeue %T, scontrol JobState, sacct State; "CANCELLED by 0" too) as a
/// JobState.
JobState parse_slurm_state(std::string_view word);

/// A Ray job status (PENDING, RUNNING, STOPPED, SUCCEEDED, FAILED) as a JobState.
JobState parse_ray_status(std::string_view status);

}  // namespace ladle::sched
