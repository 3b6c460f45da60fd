// read_log.cpp: format detection, dispatch to the readers, and what every format shares.
#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <optional>
#include <set>

#include "ladle/runlog/log_lines.hpp"
#include "ladle/runlog/log_settings.hpp"
#include "ladle/runlog/memory_report.hpp"
#include "ladle/runlog/readers.hpp"
#include "ladle/runlog/run_log.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/text.hpp"

namespace ladle::runlog {

namespace {

struct Counts {
  size_t megatron = 0;
  size_t bridge = 0;
  size_t slime_steps = 0;
  size_t slime_generation = 0;  ///< the rollout manager's "perf N:" lines (perf/rollout_time)
  bool slime_repeats = false;
  size_t nemo = 0;
  size_t lightning = 0;
  bool jsonl = false;
  bool golden_start = false;  ///< the first meaningful line opens a JSON object that is not JSONL
  bool golden = false;        ///< ... and a line holds a golden-value series' "step_interval"
  bool empty = true;
};

// Whether a cleaned line starts a record of any format: the only lines (with their continuation
// lines) a reader is given, so reading a log holds its records, not its bytes.
bool starts_record(std::string_view text) {
  return detail::find_nemo_record(text) != std::string::npos ||
         detail::find_megatron_record(text) != std::string::npos || detail::is_bridge_step_time(text) ||
         detail::find_slime_record(text, "step") != std::string::npos ||
         detail::find_slime_record(text, "perf") != std::string::npos ||
         detail::find_slime_record(text, "rollout") != std::string::npos;
}

// How far a record is from closed: a Megatron record closes with '|', a slime dict when its braces
// balance. 0 when the line needs no continuation.
int open_brackets(std::string_view text) {
  int depth = 0;
  for (const char c : text) {
    depth += c == '{' ? 1 : c == '}' ? -1 : 0;
  }
  return depth;
}

// Pass 1 over a log: the census that picks the format, the first and last timestamps, and how
// many lines it has.
class Census {
 public:
  void add(std::string_view raw, int number) {
    lines = number;
    LogLine line = clean_line(raw, number);
    const bool blank = util::trim(line.text).empty();
    if (!blank) counts.empty = false;
    if (!blank && first_meaningful_ && line.text[0] != '#') {
      first_meaningful_ = false;
      counts.jsonl = line.text[0] == '{' && find_text(line.text, "\"step\"") != std::string::npos;
      if (counts.jsonl) jsonl_from = number;
      counts.golden_start = line.text[0] == '{' && !counts.jsonl;
    }
    if (counts.golden_start && !counts.golden) counts.golden = detail::is_golden_values_marker(line.text);
    if (line.any_timestamp) {
      if (!first_timestamp) first_timestamp = line.any_timestamp;
      last_timestamp = std::move(line.any_timestamp);
    }
    const std::string_view text = util::trim(raw);
    if (!text.empty() && text[0] != '#') ++jsonl_lines;
    if (blank) return;
    if (detail::find_nemo_record(line.text) != std::string::npos) {
      ++counts.nemo;
    } else if (detail::find_megatron_record(line.text) != std::string::npos) {
      ++counts.megatron;
    }
    if (detail::is_bridge_step_time(line.text)) ++counts.bridge;
    const size_t at = detail::find_slime_record(line.text, "step");
    if (at != std::string::npos) {
      ++counts.slime_steps;
      if (!counts.slime_repeats) note_slime_id(std::string_view(line.text).substr(at + 5, line.text.find(':', at) - at - 5));
    }
    if (detail::is_lightning_progress(line.text)) ++counts.lightning;
    if (detail::find_slime_record(line.text, "perf") != std::string::npos &&
        find_text(line.text, "'perf/rollout_time'") != std::string::npos) {
      ++counts.slime_generation;
    }
  }

  /// Frees what only the census needed (the slime ids), before the records are read.
  void done() {
    slime_ids_ = {};
    other_slime_ids_ = {};
  }

  Counts counts;
  int lines = 0;
  size_t jsonl_lines = 0;
  int jsonl_from = 0;  ///< the first meaningful line, when it makes the log JSONL
  std::optional<std::string> first_timestamp;
  std::optional<std::string> last_timestamp;

 private:
  // Whether a slime step id was seen before (miles prints every step twice): ids that fit in an
  // int64 in a sorted vector (8 bytes each; appended, as ids grow), others in a set; both are
  // dropped at the first repeat, which settles the question.
  void note_slime_id(std::string_view id) {
    const auto number = parse_integer(id);
    bool repeat = false;
    if (number && id.find('.') == std::string_view::npos) {
      if (slime_ids_.empty() || slime_ids_.back() < *number) {
        slime_ids_.push_back(*number);
      } else {
        const auto it = std::lower_bound(slime_ids_.begin(), slime_ids_.end(), *number);
        repeat = it != slime_ids_.end() && *it == *number;
        if (!repeat) slime_ids_.insert(it, *number);
      }
    } else {
      repeat = !other_slime_ids_.insert(std::string(id)).second;
    }
    if (repeat) {
      counts.slime_repeats = true;
      slime_ids_ = {};
      other_slime_ids_ = {};
    }
  }

  bool first_meaningful_ = true;
  std::vector<long long> slime_ids_;
  std::set<std::string> other_slime_ids_;
};

// Pass 2: hands the reader of the log's format the lines it reads, one at a time (record lines
// and their continuation lines; every line of JSONL), and keeps Megatron-LM's memory lines.
class Feed {
 public:
  /// `jsonl_from`: 0 for a log that is not JSONL, else its first line of JSON (1 when forced).
  /// `keep_memory`: read Megatron-LM's memory lines (reported at `path`). `whole`: hand the reader
  /// every line as it is (a JSON document).
  Feed(detail::RecordReader& reader, int jsonl_from, bool keep_memory, const std::string& path, bool whole = false)
      : reader_(reader), jsonl_from_(jsonl_from), keep_memory_(keep_memory), whole_(whole), path_(path) {}

  void add(std::string_view raw, int number) {
    if (whole_) {
      reader_.add(LogLine{std::string(raw), std::nullopt, std::nullopt, number, 0});
      return;
    }
    if (jsonl_from_ > 0) {
      if (number < jsonl_from_) return;
      const std::string_view text = util::trim(raw);
      if (!text.empty() && text[0] != '#') reader_.add(LogLine{std::string(text), std::nullopt, std::nullopt, number, 0});
      return;
    }
    LogLine line = clean_line(raw, number);
    line.any_timestamp.reset();
    const bool blank = util::trim(line.text).empty();
    if (blank) {
      if (follow_ > 0) keep(std::move(line));
      return;
    }
    if (auto setting = read_setting(line)) keep_setting(std::move(*setting));
    // Megatron-LM's memory lines are read apart, for the measured peak (memory_report.hpp); the
    // first bad one is reported once the records are read, as if they were read first.
    if (keep_memory_ && is_memory_report(line.text) && !memory_error) {
      try {
        for (MemoryReport& report : read_memory_reports({line}, path_)) memory.push_back(report);
      } catch (const Error&) {
        memory_error = std::current_exception();
      }
    }
    if (starts_record(line.text)) {
      const std::string_view t = util::trim(line.text);
      depth_ = open_brackets(t);
      const bool open_megatron = detail::find_megatron_record(t) != std::string::npos && t.back() != '|';
      follow_ = depth_ > 0 || open_megatron ? detail::kMaxRecordLines : 0;
      // A NeMo record has no closing mark: the reader decides which of the next lines continue it.
      nemo_ = detail::find_nemo_record(t) != std::string::npos;
      if (nemo_) follow_ = detail::kMaxNemoContinuationLines;
      reader_.add(std::move(line));
      return;
    }
    if (follow_ > 0 && nemo_) {
      keep(std::move(line));
      return;
    }
    if (follow_ > 0) {
      const std::string_view t = util::trim(line.text);
      depth_ += open_brackets(t);
      const bool closed = depth_ <= 0 && (t.empty() || t.back() == '|' || t.back() == '}');
      keep(std::move(line));
      if (closed) follow_ = 0;
    }
  }

  std::vector<MemoryReport> memory;  ///< Megatron-LM memory lines, read
  std::exception_ptr memory_error;   ///< the error of the first memory line that is not one
  std::vector<LogSetting> settings;  ///< the first printing of each setting

 private:
  void keep_setting(LogSetting setting) {
    for (const LogSetting& kept : settings) {
      if (kept.key == setting.key) return;
    }
    settings.push_back(std::move(setting));
  }

  void keep(LogLine line) {
    reader_.add(std::move(line));
    --follow_;
  }

  detail::RecordReader& reader_;
  int jsonl_from_ = 0;
  bool keep_memory_ = false;
  bool whole_ = false;
  const std::string& path_;
  int follow_ = 0;
  int depth_ = 0;
  bool nemo_ = false;  ///< the lines followed are after a NeMo record
};

std::optional<LogFormat> format_of(const Counts& census) {
  if (census.jsonl) return LogFormat::jsonl;
  if (census.golden) return LogFormat::megatron_golden;
  if (census.nemo > 0) return LogFormat::nemo;
  if (census.megatron > 0) return census.bridge > 0 ? LogFormat::megatron_bridge : LogFormat::megatron;
  if (census.slime_steps > 0) return census.slime_repeats ? LogFormat::miles : LogFormat::slime;
  return std::nullopt;
}

[[noreturn]] void no_format(const Counts& census, const std::string& path) {
  const SourceLocation where{path, 0, 0, ""};
  if (census.empty) throw_input(where, "the log is empty");
  if (census.lightning > 0) {
    throw_input(where,
                "a PyTorch Lightning progress bar (NeMo 1.x): it prints no step time and rounds global_step "
                "(e.g. 3.1e+4), so steps cannot be told apart; log per step or write ladle JSONL");
  }
  if (census.slime_generation > 0) {
    // slime's --debug-rollout-only: the rollout manager generates, nothing trains.
    throw_input(where,
                "slime/miles rollout lines (perf/rollout_time) but no 'step N:' training records: a rollout-only run "
                "(--debug-rollout-only) has no training steps to score");
  }
  throw_input(where,
              "no training-step records: not a Megatron-LM, Megatron-Bridge, slime, miles, NeMo 2.0, "
              "Megatron-LM golden-value or ladle JSONL log");
}

std::string expected_record(LogFormat format) {
  switch (format) {
    case LogFormat::megatron:
    case LogFormat::megatron_bridge:
      return "'iteration N/ M | ... |' lines";
    case LogFormat::slime:
    case LogFormat::miles:
      return "'step N: {...}' lines";
    case LogFormat::nemo:
      return "'Training epoch E, iteration I/T | ...' lines";
    case LogFormat::jsonl:
      return "JSON objects with a \"step\"";
    case LogFormat::megatron_golden:
      return "a JSON object of step series (\"lm loss\": {\"start_step\": ..., \"values\": ...})";
  }
  return "";
}

int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}


template <typename Sink>
void for_each_line(std::string_view text, Sink&& sink) {
  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    sink(text.substr(start, end - start), ++number);
    start = end + 1;
  }
}

// Reads a log in two passes over its lines: `lines(sink)` calls sink(raw, number) for each line,
// the same lines each time (the second pass stops at the first pass's last line, should the file
// grow in between).
template <typename Lines>
RunLog read_lines(Lines&& lines, const std::string& path, std::optional<LogFormat> forced) {
  Census scan;
  lines([&](std::string_view raw, int number) { scan.add(raw, number); });
  scan.done();
  const Counts& census = scan.counts;
  const std::optional<LogFormat> detected = format_of(census);
  if (!forced && !detected) no_format(census, path);
  const LogFormat format = forced ? *forced : *detected;

  size_t expected = 0;
  std::unique_ptr<detail::RecordReader> reader;
  switch (format) {
    case LogFormat::megatron:
    case LogFormat::megatron_bridge:
      expected = census.megatron;
      break;
    case LogFormat::slime:
    case LogFormat::miles:
      expected = census.slime_steps;
      break;
    case LogFormat::nemo:
      expected = census.nemo;
      break;
    case LogFormat::jsonl:
      expected = scan.jsonl_lines;
      break;
    case LogFormat::megatron_golden:
      break;  // one document; its reader bounds its size
  }
  if (expected > static_cast<size_t>(limits::kMaxLogRecords)) {
    throw_input(SourceLocation{path, 0, 0, ""}, "{} record lines: a log holds at most {} records ({})", expected,
                limits::kMaxLogRecords, limits::kMaxLogRecordsReason);
  }
  switch (format) {
    case LogFormat::megatron:
    case LogFormat::megatron_bridge:
      reader = detail::megatron_reader(path, format == LogFormat::megatron_bridge, expected);
      break;
    case LogFormat::slime:
    case LogFormat::miles:
      reader = detail::slime_reader(path, format == LogFormat::miles, expected);
      break;
    case LogFormat::nemo:
      reader = detail::nemo_reader(path, expected);
      break;
    case LogFormat::jsonl:
      reader = detail::jsonl_reader(path, expected);
      break;
    case LogFormat::megatron_golden:
      reader = detail::golden_reader(path);
      break;
  }
  // slime and miles train with Megatron-LM: their actors print the same memory lines behind a Ray
  // prefix.
  const bool megatron = format == LogFormat::megatron || format == LogFormat::megatron_bridge ||
                        format == LogFormat::slime || format == LogFormat::miles;
  Feed feed(*reader, format != LogFormat::jsonl ? 0 : forced ? 1 : scan.jsonl_from, megatron, path,
            format == LogFormat::megatron_golden);
  lines([&](std::string_view raw, int number) {
    if (number <= scan.lines) feed.add(raw, number);
  });
  detail::ReadResult read = reader->finish();
  reader.reset();
  if (read.steps.empty() && read.series.empty()) {
    if (census.empty) throw_input(SourceLocation{path, 0, 0, ""}, "the log is empty");
    std::string hint;
    if (detected && *detected != format) hint = fmt::format("; it looks like a {} log", to_string(*detected));
    throw_input(SourceLocation{path, 0, 0, ""}, "no step records for format {}: expected {}{}", to_string(format),
                expected_record(format), hint);
  }

  RunLog log;
  log.path = path;
  log.format = format;
  log.steps = !read.series.empty() ? std::move(read.series) : detail::to_series(read.steps);
  log.log_interval = read.log_interval;
  log.notes = std::move(read.notes);
  log.settings = std::move(feed.settings);
  log.rollouts = std::move(read.rollouts);
  if (megatron) {
    if (feed.memory_error) std::rethrow_exception(feed.memory_error);
    log.memory = std::move(feed.memory);
  }
  if (format == LogFormat::jsonl) {
    for (const Step& step : log.steps) {
      if (!step.timestamp) continue;
      if (!log.first_timestamp) log.first_timestamp = *step.timestamp;
      log.last_timestamp = *step.timestamp;
    }
  } else {
    log.first_timestamp = scan.first_timestamp;
    log.last_timestamp = scan.last_timestamp;
  }
  if (log.first_timestamp && log.last_timestamp) {
    const auto first = parse_timestamp_s(*log.first_timestamp);
    const auto last = parse_timestamp_s(*log.last_timestamp);
    if (first && last && *last >= *first) log.span_s = *last - *first;
  }
  return log;
}

}  // namespace

std::optional<double> parse_timestamp_s(std::string_view timestamp) {
  const auto match = find_timestamp(timestamp);
  if (!match || match->begin != 0) return std::nullopt;
  const std::string& v = match->value;
  const auto num = [&](size_t at, size_t n) { return std::stoll(v.substr(at, n)); };
  const int64_t month = num(5, 2);
  const int64_t day = num(8, 2);
  if (!util::is_calendar_date(std::string_view(v).substr(0, 10)) || num(11, 2) > 23 || num(14, 2) > 59 ||
      num(17, 2) > 60) {
    return std::nullopt;
  }
  double seconds = static_cast<double>(days_from_civil(num(0, 4), month, day)) * 86400.0 +
                   static_cast<double>(num(11, 2) * 3600 + num(14, 2) * 60 + num(17, 2));
  if (v.size() > 20) seconds += std::stod("0" + v.substr(19));
  return seconds;
}

LogFormat detect_log_format(std::string_view text, const std::string& path) {
  Census scan;
  for_each_line(text, [&](std::string_view raw, int number) { scan.add(raw, number); });
  if (const auto format = format_of(scan.counts)) return *format;
  no_format(scan.counts, path);
}

RunLog read_log(std::string_view text, const std::string& path, std::optional<LogFormat> forced) {
  return read_lines([&](auto&& sink) { for_each_line(text, sink); }, path, forced);
}

RunLog read_log_file(const std::string& path, std::optional<LogFormat> forced) {
  return read_lines(
      [&](auto&& sink) {
        util::LineReader reader(path);
        std::string_view raw;
        while (reader.next(raw)) sink(raw, reader.line_number());
      },
      path, forced);
}

}  // namespace ladle::runlog
