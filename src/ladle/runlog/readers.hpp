#pragma once
// readers.hpp: one reader per format (internal to runlog; read_log.cpp detects and dispatches).

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/runlog/log_lines.hpp"
#include "ladle/runlog/rollout.hpp"
#include "ladle/runlog/step.hpp"
#include "ladle/runlog/step_series.hpp"

namespace ladle::runlog::detail {

/// Storage of a reader's records that, when large (kPagedBytes or more), is pages of its own
/// (mmap), so that release_front can hand back the records already moved into a StepSeries while
/// the others are still moved: converting never holds both whole. Smaller storage is ordinary
/// (new/delete, so the sanitizers see it).
inline constexpr size_t kPagedBytes = size_t{16} << 20;
/// PageAllocator's storage: mapped pages of its own from kPagedBytes, else operator new.
void* allocate_bytes(size_t bytes);
void deallocate_bytes(void* p, size_t bytes);

template <typename T>
struct PageAllocator {
  using value_type = T;
  PageAllocator() = default;
  template <typename U>
  PageAllocator(const PageAllocator<U>&) {}  // NOLINT(google-explicit-constructor)
  T* allocate(size_t n) { return static_cast<T*>(allocate_bytes(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { deallocate_bytes(p, n * sizeof(T)); }
  friend bool operator==(const PageAllocator&, const PageAllocator&) { return true; }
};

using StepVector = std::vector<Step, PageAllocator<Step>>;
/// Hands back the whole pages that hold only steps[0, count) when the storage is paged (nothing
/// otherwise); those records must not be read again (they read as zeros).
void release_front(const StepVector& steps, size_t count);
/// Moves the records into a StepSeries, releasing each part once it is encoded; `steps` is left
/// empty.
StepSeries to_series(StepVector& steps);

/// What a reader found: records in log order (duplicates already resolved), the log interval and
/// notes about what it inferred. The records are in `steps`, or, for a reader that appends them
/// in order as they arrive (LineRecordReader), in `series`.
struct ReadResult {
  StepVector steps;
  StepSeries series;
  int64_t log_interval = 1;
  std::vector<std::string> notes;
  size_t folded = 0;  ///< identical copies push_record folded as they arrived
  std::vector<Rollout> rollouts;  ///< slime / miles: per-rollout records, by rollout id
};

/// Appends a record, or folds it into the record before when the two are the same (a log printed
/// twice, miles' echo), so that a log whose every record is printed twice holds each once.
void push_record(ReadResult& result, Step step);

/// Where a Megatron-LM "iteration N/ M |" record starts in `s`, or npos.
size_t find_megatron_record(std::string_view s);
/// Whether `s` is Megatron-Bridge's "Step Time : X.XXs GPU utilization: ..." line.
bool is_bridge_step_time(std::string_view s);
/// Where a slime/miles "step N: {" (kind "step"), "perf N: {" or "rollout N: {" record starts in
/// `s`, or npos.
size_t find_slime_record(std::string_view s, std::string_view kind);
/// Where NeMo 2.0's "Training epoch E, iteration I/T |" record starts in `s`, or npos; a line that
/// ends right after "I/T" starts a record hard-wrapped before its first '|'.
size_t find_nemo_record(std::string_view s);
/// The most physical lines after a NeMo record's first that may continue it (hard wraps).
inline constexpr int kMaxNemoContinuationLines = 4;
/// Whether `s` is a PyTorch Lightning progress-bar line ("... it/s, ... global_step=...").
bool is_lightning_progress(std::string_view s);
/// Whether `s` holds a key only golden values have: Megatron-LM's "step_interval" of a series, or
/// Megatron-Bridge's "elapsed time per iteration (ms)" of a step object.
bool is_golden_values_marker(std::string_view s);

/// The most physical lines one record may span (slime's hard-wrapped dicts); read_log hands a
/// reader every record line with up to this many continuation lines after it, and no other line.
inline constexpr int kMaxRecordLines = 50;

/// A reader of one format, fed one line at a time, so that reading a log holds its records (a
/// Step each), never its text: read_log streams the log and calls add() with each line it keeps
/// for the reader, in log order, then finish() once.
class RecordReader {
 public:
  virtual ~RecordReader() = default;
  virtual void add(LogLine line) = 0;
  virtual ReadResult finish() = 0;
};

/// A reader whose records may continue on the lines after them: it holds the last
/// kMaxRecordLines + 1 lines, and reads the record at the front of that window when the window is
/// full (or at the end), with every line a record may need after it.
class WindowReader : public RecordReader {
 public:
  void add(LogLine line) final;
  ReadResult finish() final;

 protected:
  /// Reads what starts at lines[0] (a record, or a line that is none), with lines[1..] the lines
  /// after it; returns how many lines it used (>= 1).
  virtual size_t read_front(const std::deque<LogLine>& lines) = 0;
  /// The result once every line was read.
  virtual ReadResult done() = 0;

 private:
  void consume();
  std::deque<LogLine> window_;
};

/// The readers. `expected`: how many records the log holds at most (the census of its record
/// lines), so the records are stored without reallocating; `lines` of JSONL: the log's non-blank
/// lines that do not start with '#', uncleaned (text = the raw line).
std::unique_ptr<RecordReader> megatron_reader(const std::string& path, bool bridge, size_t expected);
std::unique_ptr<RecordReader> slime_reader(const std::string& path, bool miles, size_t expected);
std::unique_ptr<RecordReader> nemo_reader(const std::string& path, size_t expected);
std::unique_ptr<RecordReader> jsonl_reader(const std::string& path, size_t expected);
/// Megatron-LM golden values: one JSON document, so it is given every line, uncleaned.
std::unique_ptr<RecordReader> golden_reader(const std::string& path);

/// A count of samples printed as a number: a whole number >= 0 within int64, else Error(input)
/// at path:line naming `key` (NaN, infinities and fractions such as 128.7 are refused).
int64_t sample_count(double value, std::string_view key, const std::string& path, int line);

/// Sorts records by step, resolves duplicates (identical ones collapse, with `duplicate_note`
/// when given; differing ones throw Error(input) naming both lines), infers the log interval from
/// the step gaps, sets each record's `iterations`, and notes gaps in the series.
void finish_records(ReadResult& result, const std::string& path, bool interval_records,
                    const std::string& duplicate_note);

/// finish_records in two parts. fold_records sorts (in place when the log is in order, as logs
/// are) and resolves duplicates in place; with `compare_counts` false, two records of a step that
/// differ only in `iterations`, `samples` or `tokens` are the same record (Megatron-LM keeps running
/// totals there until set_iterations has run). set_iterations infers the interval, sets each
/// record's `iterations` and notes gaps.
void fold_records(ReadResult& result, const std::string& path, bool compare_counts,
                  const std::string& duplicate_note);
/// The note set_iterations writes for the gaps in a series of steps, gathered one gap at a time.
class GapNotes {
 public:
  /// The records of steps `before` and `after` are consecutive; `interval` is the log interval.
  void add(int64_t before, int64_t after, int64_t interval);
  /// Appends the note, when there was a gap, to `notes`.
  void write(std::vector<std::string>& notes) const;

 private:
  static constexpr size_t kMaxListedGaps = 100;
  std::vector<std::string> gaps_;
  size_t missing_ = 0;
  size_t unlisted_ = 0;
};

/// `on_record(k, held)`, when given, runs for each record from the last to the first, right after
/// its `iterations` is set, with `held` the value it had; records before k are still unchanged.
void set_iterations(ReadResult& result, bool interval_records,
                    const std::function<void(size_t, int64_t)>& on_record = {});

/// A reader whose records are one line each (JSONL, NeMo's progress lines): add() pushes each
/// record with push(); finish() sorts and checks them as finish_records does. Records in step
/// order, as logs print them, go straight into the result's StepSeries (a 1 GB log never holds a
/// Step per record); at the first record out of order or printed again with other values, those
/// read so far are decoded back into `steps` and the rest follow as finish_records expects.
class LineRecordReader : public RecordReader {
 public:
  LineRecordReader(const std::string& path, size_t expected) : path_(path), expected_(expected) {}
  ReadResult finish() final;

 protected:
  void push(Step step);
  /// Runs first in finish(): a reader that holds a record back (one continued on the next lines)
  /// pushes it here.
  virtual void flush() {}

  const std::string& path_;
  ReadResult result_;

 private:
  size_t expected_ = 0;
  bool in_order_ = true;
  std::optional<Step> last_;  ///< the last record appended to the series
  GapNotes gaps_;
};

}  // namespace ladle::runlog::detail
