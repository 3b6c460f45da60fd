// records.cpp: what every reader does once it has its records: order, duplicates, gaps.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/ranges.h>

#include "ladle/runlog/readers.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/limits.hpp"

namespace ladle::runlog::detail {

namespace {

bool same(const std::optional<double>& a, const std::optional<double>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  if (std::isnan(*a) && std::isnan(*b)) return true;
  return *a == *b;
}

// Two records of the same step that say the same thing (a log printed twice, miles' echo).
bool same_record(const Step& a, const Step& b) {
  return a.step == b.step && a.iterations == b.iterations && same(a.step_time_s, b.step_time_s) &&
         same(a.loss, b.loss) && same(a.grad_norm, b.grad_norm) && same(a.learning_rate, b.learning_rate) &&
         a.samples == b.samples && a.tokens == b.tokens && a.skipped_iterations == b.skipped_iterations;
}

}  // namespace

int64_t sample_count(double value, std::string_view key, const std::string& path, int line) {
  const auto count = util::exact_int64(value);
  if (!count || *count < 0) {
    throw_input(SourceLocation{path, line, 0, std::string(key)}, "{} is not a count of samples (a whole number >= 0)",
                value);
  }
  return *count;
}

void finish_records(ReadResult& result, const std::string& path, bool interval_records,
                    const std::string& duplicate_note) {
  auto& steps = result.steps;
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.step < b.step; });
  std::vector<Step> unique;
  size_t duplicates = 0;
  for (Step& step : steps) {
    if (!unique.empty() && unique.back().step == step.step) {
      const Step& kept = unique.back();
      if (!same_record(kept, step)) {
        throw_input(SourceLocation{path, step.line, 0, ""},
                    "step {} is printed twice with different values (lines {} and {}): a restarted or "
                    "interleaved run; split the log where the run restarts",
                    step.step, kept.line, step.line);
      }
      ++duplicates;
      continue;
    }
    unique.push_back(std::move(step));
  }
  steps = std::move(unique);
  if (duplicates > 0) {
    result.notes.push_back(duplicate_note.empty()
                               ? fmt::format("{} records printed more than once with identical values were kept once",
                                             duplicates)
                               : duplicate_note);
  }
  if (steps.empty()) return;

  // The log interval: the most common gap between records (ties: the smaller). Megatron-LM also
  // logs after iteration 1, so a run whose first record is step 1 has an odd first gap; leave it out.
  result.log_interval = 1;
  if (interval_records && steps.size() >= 2) {
    std::map<int64_t, int> counts;
    const size_t from = (steps.front().step == 1 && steps.size() >= 3) ? 2 : 1;
    for (size_t k = from; k < steps.size(); ++k) ++counts[steps[k].step - steps[k - 1].step];
    int best = 0;
    for (const auto& [gap, count] : counts) {
      if (count > best) {
        best = count;
        result.log_interval = gap;
      }
    }
  }
  const int64_t interval = result.log_interval;
  if (interval_records) {
    steps.front().iterations = std::max<int64_t>(1, std::min(steps.front().step, interval));
  }
  std::vector<std::string> gaps;
  size_t missing = 0;
  for (size_t k = 1; k < steps.size(); ++k) {
    const int64_t gap = steps[k].step - steps[k - 1].step;
    if (interval_records) steps[k].iterations = gap <= interval ? gap : interval;
    if (gap > interval) {
      const int64_t first = steps[k - 1].step + interval;
      const int64_t last = steps[k].step - interval;
      missing += static_cast<size_t>((last - first) / interval + 1);
      gaps.push_back(first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last));
    }
  }
  if (!gaps.empty()) {
    result.notes.push_back(fmt::format("{} record{} missing: step{} {}", missing, missing == 1 ? " is" : "s are",
                                       gaps.size() == 1 && missing == 1 ? "" : "s", fmt::join(gaps, ", ")));
  }
}

}  // namespace ladle::runlog::detail
