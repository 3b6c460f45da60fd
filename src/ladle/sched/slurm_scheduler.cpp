// slurm_scheduler.cpp: jobs through Slurm's command-line tools: sbatch --parsable to submit,
// scontrol show job -o (and sacct where accounting is on) for the state, squeue/scontrol/sacct
// to find a job by name, scancel to end it.
#include <algorithm>
#include <filesystem>
#include <sstream>

#include "ladle/sched/process.hpp"
#include "ladle/sched/scheduler.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"

namespace ladle::sched {

namespace {

namespace fs = std::filesystem;

std::string first_line(std::string_view text) {
  while (!text.empty() && (text.front() == '\n' || text.front() == ' ')) text.remove_prefix(1);
  const size_t end = text.find('\n');
  return std::string(text.substr(0, end));
}

// The value of KEY=VALUE in one line of `scontrol show job -o` (values end at a space).
std::optional<std::string> scontrol_field(std::string_view line, std::string_view key) {
  const std::string needle = std::string(key) + "=";
  size_t pos = 0;
  while ((pos = line.find(needle, pos)) != std::string_view::npos) {
    if (pos == 0 || line[pos - 1] == ' ') {
      const size_t start = pos + needle.size();
      const size_t end = line.find(' ', start);
      return std::string(
          line.substr(start, end == std::string_view::npos ? line.size() - start : end - start));
    }
    pos += needle.size();
  }
  return std::nullopt;
}

std::optional<int> parse_exit_code(std::string_view text) {  // "1:0" = exit status 1, signal 0
  const size_t colon = text.find(':');
  try {
    const int status = std::stoi(std::string(text.substr(0, colon)));
    const int signal =
        colon == std::string_view::npos ? 0 : std::stoi(std::string(text.substr(colon + 1)));
    return signal != 0 ? 128 + signal : status;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

class SlurmScheduler final : public Scheduler {
 public:
  SlurmScheduler(std::string partition, std::string account)
      : partition_(std::move(partition)), account_(std::move(account)) {}

  std::string name() const override { return "slurm"; }

  void check_reachable() override {
    if (find_program("sbatch").empty())
      throw_usage("slurm: sbatch not found in PATH (is Slurm installed?)");
    const CommandResult ping = run_command({"scontrol", "ping"});
    if (ping.exit_code != 0 || ping.out.find("UP") == std::string::npos) {
      throw_usage("slurm: no slurmctld answers (scontrol ping: {})",
                  first_line(ping.out.empty() ? ping.err : ping.out));
    }
  }

  std::string submit(const JobSpec& job) override {
    fs::create_directories(fs::path(job.script_path).parent_path());
    fs::create_directories(fs::path(job.log_path).parent_path());
    util::write_file_atomic(job.script_path, job.script);
    std::vector<std::string> argv = {"sbatch",
                                     "--parsable",
                                     "--job-name=" + job.name,
                                     "--output=" + job.log_path,
                                     "--open-mode=append",
                                     "--chdir=" + fs::path(job.script_path).parent_path().string(),
                                     fmt::format("--nodes={}", job.nodes),
                                     "--ntasks-per-node=1",
                                     fmt::format("--gres=gpu:{}", job.gpus_per_node)};
    if (!partition_.empty()) argv.push_back("--partition=" + partition_);
    if (!account_.empty()) argv.push_back("--account=" + account_);
    if (job.time_limit_s > 0) argv.push_back("--time=" + slurm_time_limit(job.time_limit_s));
    argv.push_back(job.script_path);
    const CommandResult r = run_command(argv);
    std::string id = first_line(r.out);
    id = id.substr(0, id.find(';'));  // "123;cluster" on a multi-cluster set-up
    if (r.exit_code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
      throw_input(SourceLocation{job.script_path, 0, 0, ""}, "slurm rejected the job: {}",
                  first_line(r.err.empty() ? r.out : r.err));
    }
    return id;
  }

  std::optional<std::string> find(const std::string& job_name, const std::string&) override {
    std::vector<long> ids;
    const CommandResult q = run_command({"squeue", "-h", "--name=" + job_name, "-o", "%i"});
    collect_ids(q.out, ids);
    // Finished jobs: scontrol keeps them for MinJobAge; sacct (accounting) for longer.
    const CommandResult all = run_command({"scontrol", "show", "job", "-o"});
    std::istringstream lines(all.out);
    for (std::string line; std::getline(lines, line);) {
      if (scontrol_field(line, "JobName") == job_name) {
        if (auto id = scontrol_field(line, "JobId")) collect_ids(*id, ids);
      }
    }
    const CommandResult acct = run_command(
        {"sacct", "-n", "-X", "-P", "--name=" + job_name, "-o", "JobID", "-S", "now-30days"});
    if (acct.exit_code == 0) collect_ids(acct.out, ids);
    if (ids.empty()) return std::nullopt;
    return std::to_string(*std::max_element(ids.begin(), ids.end()));
  }

  JobStatus state(const std::string& id) override {
    JobStatus status;
    const CommandResult s = run_command({"scontrol", "show", "job", "-o", id});
    if (s.exit_code == 0) {
      if (auto state = scontrol_field(s.out, "JobState")) {
        status.state = parse_slurm_state(*state);
        status.reason = *state;
        if (auto reason = scontrol_field(s.out, "Reason"); reason && *reason != "None") {
          status.reason += " (" + *reason + ")";
        }
        if (is_finished(status.state)) {
          if (auto code = scontrol_field(s.out, "ExitCode"))
            status.exit_code = parse_exit_code(*code);
        }
        return status;
      }
    }
    const CommandResult a =
        run_command({"sacct", "-n", "-X", "-P", "-j", id, "-o", "State,ExitCode"});
    if (a.exit_code == 0) {
      const std::string line = first_line(a.out);
      const size_t bar = line.find('|');
      if (bar != std::string::npos) {
        status.state = parse_slurm_state(line.substr(0, bar));
        status.reason = line.substr(0, bar);
        status.exit_code = parse_exit_code(line.substr(bar + 1));
        return status;
      }
    }
    status.reason = "not known to slurmctld or accounting";
    return status;
  }

  void cancel(const std::string& id) override { run_command({"scancel", id}); }

  std::string read_log(const std::string&, const std::string& log_path) override {
    return read_log_file(log_path);
  }

 private:
  static void collect_ids(const std::string& text, std::vector<long>& ids) {
    std::istringstream in(text);
    for (std::string word; in >> word;) {
      word = word.substr(0, word.find_first_not_of("0123456789"));
      if (!word.empty()) ids.push_back(std::stol(word));
    }
  }

  std::string partition_;
  std::string account_;
};

}  // namespace

std::unique_ptr<Scheduler> make_slurm_scheduler(const std::string& partition,
                                                const std::string& account) {
  return std::make_unique<SlurmScheduler>(partition, account);
}

}  // namespace ladle::sched
