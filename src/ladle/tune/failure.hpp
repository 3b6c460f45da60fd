#pragma once
// failure.hpp: why a trial's job ended without a score, from its log and the scheduler's word.
// The log patterns are one table (failure.cpp), each with the engine message it matches.

#include <optional>
#include <string>
#include <string_view>

#include "ladle/sched/scheduler.hpp"
#include "ladle/tune/trial.hpp"

namespace ladle::tune {

/// A classified end.
struct FailureClass {
  TrialState state = TrialState::failed;  ///< oom, flaky, timeout, cancelled or failed
  std::string detail;                     ///< the matching line, or the last error lines
  bool operator==(const FailureClass&) const = default;
};

/// Classifies an ended job that did not succeed (or succeeded without steps). Order: the log's
/// out-of-memory lines first (a CUDA OOM often surfaces as an NCCL abort on the other ranks),
/// then the flaky signatures (NCCL timeouts, ECC errors, lost nodes; also Slurm's NODE_FAIL),
/// then the scheduler's timeout and cancel, else failed with the last three error lines.
FailureClass classify_failure(std::string_view log, const sched::JobStatus& status);

/// The last `count` lines of `log` that look like errors (Error, error:, Traceback, exception,
/// FAILED, Killed), or its last `count` lines when none does; joined with " | ".
std::string last_error_lines(std::string_view log, int count);

}  // namespace ladle::tune
