#include "ladle/tune/trial.hpp"

#include <array>

#include "ladle/util/error.hpp"

namespace ladle::tune {

namespace {

constexpr std::array<std::pair<TrialState, const char*>, 10> kStates = {{
    {TrialState::proposed, "proposed"},
    {TrialState::submitting, "submitting"},
    {TrialState::submitted, "submitted"},
    {TrialState::scored, "scored"},
    {TrialState::stopped_early, "stopped_early"},
    {TrialState::oom, "oom"},
    {TrialState::flaky, "flaky"},
    {TrialState::timeout, "timeout"},
    {TrialState::cancelled, "cancelled"},
    {TrialState::failed, "failed"},
}};

constexpr std::array<std::pair<TrialKind, const char*>, 3> kKinds = {{
    {TrialKind::explore, "explore"},
    {TrialKind::confirm, "confirm"},
    {TrialKind::reference, "reference"},
}};

}  // namespace

const char* to_string(TrialState state) {
  for (const auto& [s, name] : kStates) {
    if (s == state) return name;
  }
  return "failed";
}

const char* to_string(TrialKind kind) {
  for (const auto& [k, name] : kKinds) {
    if (k == kind) return name;
  }
  return "explore";
}

TrialState parse_trial_state(std::string_view name) {
  for (const auto& [s, n] : kStates) {
    if (name == n) return s;
  }
  throw Error(ErrorKind::input, fmt::format("unknown trial state '{}'", name));
}

TrialKind parse_trial_kind(std::string_view name) {
  for (const auto& [k, n] : kKinds) {
    if (name == n) return k;
  }
  throw Error(ErrorKind::input, fmt::format("unknown trial kind '{}'", name));
}

bool is_final(TrialState state) {
  return state != TrialState::proposed && state != TrialState::submitting &&
         state != TrialState::submitted;
}

bool is_measured(TrialState state) {
  return state == TrialState::scored || state == TrialState::stopped_early;
}

}  // namespace ladle::tune
