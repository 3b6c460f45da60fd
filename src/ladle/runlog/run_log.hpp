#pragma once
// run_log.hpp: RunLog, the step series read from one training log, and the readers' entry points.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/runlog/log_format.hpp"
#include "ladle/runlog/memory_report.hpp"
#include "ladle/runlog/rollout.hpp"
#include "ladle/runlog/step.hpp"
#include "ladle/runlog/step_series.hpp"

namespace ladle::runlog {

/// A setting a log prints about its run, e.g. Megatron-LM's argument dump
/// "  hidden_size ..................................... 4096", as printed, with its line.
struct LogSetting {
  std::string key;    ///< the argument's name, e.g. "hidden_size"
  std::string value;  ///< as printed, e.g. "4096" or "None"
  int line = 0;       ///< 1-based line that prints it
  bool operator==(const LogSetting&) const = default;
};

/// What ladle understood of one log: its format, its step records in step order (unique), and what
/// it inferred or left out, in words.
struct RunLog {
  std::string path;
  LogFormat format = LogFormat::megatron;
  StepSeries steps;          ///< sorted by `step`, no two with the same step (held encoded)
  int64_t log_interval = 1;  ///< steps between records (Megatron --log-interval; 1 elsewhere)
  /// First and last timestamps printed anywhere in the log (startup and shutdown lines included),
  /// "YYYY-MM-DD HH:MM:SS[.ffffff]", and their distance in seconds.
  std::optional<std::string> first_timestamp;
  std::optional<std::string> last_timestamp;
  std::optional<double> span_s;
  std::vector<std::string> notes;  ///< inferences and gaps, one sentence each
  std::vector<MemoryReport> memory;  ///< Megatron-LM / Bridge memory lines, per rank, in log order
  /// The model and layout arguments the log prints (log_settings.hpp lists them), the first printing
  /// of each, in log order; empty when it prints none.
  std::vector<LogSetting> settings;
  /// slime / miles RL runs: one record per rollout that prints a perf or rollout line, in rollout
  /// order (rollout.hpp); empty for other formats.
  std::vector<Rollout> rollouts;

  bool operator==(const RunLog&) const = default;
};

/// Reads a training log. Detects the format unless `forced` names one. Throws Error(input) at
/// path:line:col for an empty log, a log with no step records, a record that is cut off, a value
/// that is not a number, conflicting duplicate steps, or a log of another format than `forced`.
RunLog read_log(std::string_view text, const std::string& path,
                std::optional<LogFormat> forced = std::nullopt);

/// read_log on a file's contents; throws Error(io) when the file cannot be read.
RunLog read_log_file(const std::string& path, std::optional<LogFormat> forced = std::nullopt);

/// The format read_log would pick for `text`; throws Error(input) with the reason when none fits.
LogFormat detect_log_format(std::string_view text, const std::string& path);

/// Seconds since 1970-01-01 of a "YYYY-MM-DD HH:MM:SS[.fff]" timestamp read as UTC, or nullopt.
std::optional<double> parse_timestamp_s(std::string_view timestamp);

}  // namespace ladle::runlog
