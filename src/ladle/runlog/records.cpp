// records.cpp: what every reader does once it has its records: order, duplicates, gaps.
#include <algorithm>
#include <cmath>
#include <functional>
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

void WindowReader::add(LogLine line) {
  window_.push_back(std::move(line));
  while (window_.size() > static_cast<size_t>(kMaxRecordLines) + 1) consume();
}

ReadResult WindowReader::finish() {
  while (!window_.empty()) consume();
  return done();
}

void WindowReader::consume() {
  const size_t used = read_front(window_);
  LADLE_ASSERT(used >= 1 && used <= window_.size(), "a reader uses the front line and at most the window");
  window_.erase(window_.begin(), window_.begin() + static_cast<std::ptrdiff_t>(used));
}

void push_record(ReadResult& result, Step step) {
  if (!result.steps.empty() && same_record(result.steps.back(), step)) {
    ++result.folded;
    return;
  }
  result.steps.push_back(std::move(step));
}

void finish_records(ReadResult& result, const std::string& path, bool interval_records,
                    const std::string& duplicate_note) {
  fold_records(result, path, true, duplicate_note);
  set_iterations(result, interval_records);
}

void fold_records(ReadResult& result, const std::string& path, bool compare_counts,
                  const std::string& duplicate_note) {
  auto& steps = result.steps;
  const auto by_step = [](const Step& a, const Step& b) { return a.step < b.step; };
  // Logs are in step order, so the sort (which needs a buffer as large as half the records) runs
  // only for a log that is not.
  if (!std::is_sorted(steps.begin(), steps.end(), by_step)) std::stable_sort(steps.begin(), steps.end(), by_step);
  size_t kept = 0;
  size_t duplicates = result.folded;
  for (size_t k = 0; k < steps.size(); ++k) {
    if (kept > 0 && steps[kept - 1].step == steps[k].step) {
      const Step& first = steps[kept - 1];
      Step step = steps[k];
      if (!compare_counts) {
        step.iterations = first.iterations;
        step.samples = first.samples;
        step.tokens = first.tokens;
      }
      if (!same_record(first, step)) {
        throw_input(SourceLocation{path, step.line, 0, ""},
                    "step {} is printed twice with different values (lines {} and {}): a restarted or "
                    "interleaved run; split the log where the run restarts",
                    step.step, first.line, step.line);
      }
      ++duplicates;
      continue;
    }
    if (kept != k) steps[kept] = std::move(steps[k]);
    ++kept;
  }
  steps.resize(kept);
  if (duplicates > 0) {
    result.notes.push_back(duplicate_note.empty()
                               ? fmt::format("{} records printed more than once with identical values were kept once",
                                             duplicates)
                               : duplicate_note);
  }
}

void set_iterations(ReadResult& result, bool interval_records,
                    const std::function<void(size_t, int64_t)>& on_record) {
  auto& steps = result.steps;
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
  // From the last record to the first, so that on_record sees the records before k unchanged.
  for (size_t k = steps.size(); k-- > 0;) {
    const int64_t held = steps[k].iterations;
    if (interval_records) {
      if (k == 0) {
        steps[k].iterations = std::max<int64_t>(1, std::min(steps[k].step, interval));
      } else {
        const int64_t gap = steps[k].step - steps[k - 1].step;
        steps[k].iterations = gap <= interval ? gap : interval;
      }
    }
    if (on_record) on_record(k, held);
  }
  // The note names the first kMaxListedGaps gaps and counts the others, so that a log with a gap
  // at every record (NeMo logging every 10th step) holds one short note, not one per record.
  constexpr size_t kMaxListedGaps = 100;
  std::vector<std::string> gaps;
  size_t missing = 0;
  size_t unlisted = 0;
  for (size_t k = 1; k < steps.size(); ++k) {
    const int64_t gap = steps[k].step - steps[k - 1].step;
    if (gap > interval) {
      const int64_t first = steps[k - 1].step + interval;
      const int64_t last = steps[k].step - interval;
      missing += static_cast<size_t>((last - first) / interval + 1);
      if (gaps.size() == kMaxListedGaps) {
        ++unlisted;
        continue;
      }
      gaps.push_back(first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last));
    }
  }
  if (!gaps.empty()) {
    result.notes.push_back(fmt::format("{} record{} missing: step{} {}{}", missing, missing == 1 ? " is" : "s are",
                                       gaps.size() == 1 && missing == 1 ? "" : "s", fmt::join(gaps, ", "),
                                       unlisted > 0 ? fmt::format(" and {} more gaps", unlisted) : ""));
  }
}

}  // namespace ladle::runlog::detail
