// records.cpp: what every reader does once it has its records: order, duplicates, gaps.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include <sys/mman.h>
#include <unistd.h>

#include <new>

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

void* allocate_bytes(size_t bytes) {
  if (bytes < kPagedBytes) return ::operator new(bytes);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void deallocate_bytes(void* p, size_t bytes) {
  if (bytes < kPagedBytes) {
    ::operator delete(p);
    return;
  }
  munmap(p, bytes);
}

void release_front(const StepVector& steps, size_t count) {
  const size_t capacity = steps.capacity() * sizeof(Step);
  if (capacity < kPagedBytes) return;
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t whole = count * sizeof(Step) / page * page;  // mmap's storage starts at a page
  if (whole > 0) madvise(const_cast<Step*>(steps.data()), whole, MADV_DONTNEED);
}

StepSeries to_series(StepVector& steps) {
  StepSeries series;
  constexpr size_t kReleaseEvery = size_t{1} << 14;
  for (size_t k = 0; k < steps.size(); ++k) {
    series.push_back(steps[k]);
    if ((k + 1) % kReleaseEvery == 0) release_front(steps, k + 1);
  }
  steps = StepVector();
  return series;
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
  GapNotes gaps;
  for (size_t k = 1; k < steps.size(); ++k) gaps.add(steps[k - 1].step, steps[k].step, interval);
  gaps.write(result.notes);
}

// The note names the first kMaxListedGaps gaps and counts the others, so that a log with a gap at
// every record (NeMo logging every 10th step) holds one short note, not one per record.
void GapNotes::add(int64_t before, int64_t after, int64_t interval) {
  const int64_t gap = after - before;
  if (gap <= interval) return;
  const int64_t first = before + interval;
  const int64_t last = after - interval;
  missing_ += static_cast<size_t>((last - first) / interval + 1);
  if (gaps_.size() == kMaxListedGaps) {
    ++unlisted_;
    return;
  }
  gaps_.push_back(first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last));
}

void GapNotes::write(std::vector<std::string>& notes) const {
  if (gaps_.empty()) return;
  notes.push_back(fmt::format("{} record{} missing: step{} {}{}", missing_, missing_ == 1 ? " is" : "s are",
                              gaps_.size() == 1 && missing_ == 1 ? "" : "s", fmt::join(gaps_, ", "),
                              unlisted_ > 0 ? fmt::format(" and {} more gaps", unlisted_) : ""));
}

void LineRecordReader::push(Step step) {
  if (!in_order_) {
    push_record(result_, std::move(step));
    return;
  }
  if (last_ && same_record(*last_, step)) {
    ++result_.folded;
    return;
  }
  if (!last_ || step.step > last_->step) {
    if (last_) gaps_.add(last_->step, step.step, 1);
    result_.series.push_back(step);
    last_ = std::move(step);
    return;
  }
  // Out of order, or a step printed again with other values: finish_records sorts and judges.
  in_order_ = false;
  result_.steps.reserve(expected_);
  for (const Step& s : result_.series) result_.steps.push_back(s);
  result_.series = StepSeries();
  push_record(result_, std::move(step));
}

ReadResult LineRecordReader::finish() {
  flush();
  if (!in_order_) {
    finish_records(result_, path_, false, "");
    return std::move(result_);
  }
  // What finish_records does for records in order with no step twice: the note of the identical
  // copies folded, the interval 1, and the gaps.
  if (result_.folded > 0) {
    result_.notes.push_back(
        fmt::format("{} records printed more than once with identical values were kept once", result_.folded));
  }
  result_.log_interval = 1;
  gaps_.write(result_.notes);
  return std::move(result_);
}

}  // namespace ladle::runlog::detail
