#pragma once
// trial.hpp: Trial, one layout the tuning loop runs (or ran) as a short job, and the states it
// goes through. Every field is kept in the tuning database (tune_db.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ladle::tune {

/// Where a trial stands. A trial is proposed, then submitted (its job name written first, so a
/// restart finds the job instead of submitting it again), then runs, then ends in one of the
/// final states.
enum class TrialState {
  proposed,       ///< chosen, not yet submitted
  submitting,     ///< its job name is recorded; the submission may or may not have happened
  submitted,      ///< the scheduler holds the job (pending or running)
  scored,         ///< ran to the end and was scored from its log
  stopped_early,  ///< cancelled once its first steps were clearly slower than the incumbent; scored
                  ///< on those
  oom,            ///< ran out of GPU memory (a memory constraint for the next proposals)
  flaky,          ///< NCCL timeout, ECC error or node failure (retried once, then final)
  timeout,        ///< ran past its time limit
  cancelled,      ///< cancelled by the user or the scheduler
  failed,         ///< any other failure, with the last error lines
};

/// What the trial is for.
enum class TrialKind {
  explore,    ///< a proposed layout, short run
  confirm,    ///< the winner, run for the base recipe's run length; the candidate arm of the
              ///< convergence check
  reference,  ///< the base layout for the same run length; the reference arm of the convergence
              ///< check
};

/// "proposed", "scored", ...
const char* to_string(TrialState state);
/// "explore", "confirm", "reference".
const char* to_string(TrialKind kind);
/// Parses a state name; throws Error(input).
TrialState parse_trial_state(std::string_view name);
/// Parses a kind name; throws Error(input).
TrialKind parse_trial_kind(std::string_view name);
/// True when the trial no longer runs and will not run again.
bool is_final(TrialState state);
/// True when the trial has a measurement (scored or stopped early).
bool is_measured(TrialState state);

/// One trial.
struct Trial {
  int64_t id = 0;     ///< 1-based, in proposal order
  int64_t round = 0;  ///< 1-based exploration round; confirmation runs get the round after the last
  TrialKind kind = TrialKind::explore;
  std::string layout;  ///< the canonical layout spec (layout::format_layout_spec)
  int64_t attempt = 1;
  std::string job_name;  ///< "ladle-<run>-<id>" (attempt 2: "-r2" appended)
  std::string job_id;    ///< the scheduler's id, once known
  TrialState state = TrialState::proposed;
  int64_t steps = 0;  ///< run length in steps
  double predicted_tokens_per_s_per_gpu = 0;
  double predicted_sigma = 0;  ///< standard deviation of log(throughput) when proposed (belief.hpp)
  double predicted_memory_gib = 0;
  double expected_improvement = 0;  ///< relative to the best measured when proposed
  std::optional<double> measured_tokens_per_s_per_gpu;
  std::optional<double> step_time_s;  ///< median over the window
  std::optional<double> step_time_cv_percent;
  std::optional<double> gpu_hours;  ///< GPUs x the time its log spans
  std::string detail;               ///< why it failed (the log's last error lines) or what ended it
  std::string script_path;
  std::string log_path;
  double submitted_at = 0;  ///< seconds since 1970, when the job was submitted
  bool operator==(const Trial&) const = default;
};

}  // namespace ladle::tune
