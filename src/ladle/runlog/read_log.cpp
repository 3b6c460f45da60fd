// read_log.cpp: format detection, dispatch to the readers, and what every format shares.
#include <cmath>
#include <optional>
#include <map>
#include <set>

#include "ladle/runlog/log_lines.hpp"
#include "ladle/runlog/memory_report.hpp"
#include "ladle/runlog/readers.hpp"
#include "ladle/runlog/run_log.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/text.hpp"

namespace ladle::runlog {

namespace {

struct Census {
  size_t megatron = 0;
  size_t bridge = 0;
  size_t slime_steps = 0;
  bool slime_repeats = false;
  size_t nemo = 0;
  size_t lightning = 0;
  bool jsonl = false;
  bool empty = true;
};

// Whether a cleaned line starts a record of any format: the only lines (with their continuation
// lines) a reader is given, so reading a log holds its records, not its bytes.
bool starts_record(std::string_view text) {
  return detail::find_nemo_record(text) != std::string::npos ||
         detail::find_megatron_record(text) != std::string::npos || detail::is_bridge_step_time(text) ||
         detail::find_slime_record(text, "step") != std::string::npos ||
         detail::find_slime_record(text, "perf") != std::string::npos;
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

// A log seen one line at a time: the census that picks the format, the first and last timestamps,
// and the lines the readers need (record lines and their continuation lines; every line of JSONL).
class LogScan {
 public:
  explicit LogScan(std::optional<LogFormat> forced) : forced_jsonl_(forced == LogFormat::jsonl) {}

  void add(std::string_view raw, int number) {
    LogLine line = clean_line(raw, number);
    const bool blank = util::trim(line.text).empty();
    if (!blank) census.empty = false;
    if (!blank && first_meaningful_ && line.text[0] != '#') {
      first_meaningful_ = false;
      census.jsonl = line.text[0] == '{' && line.text.find("\"step\"") != std::string::npos;
    }
    if (line.any_timestamp) {
      if (!first_timestamp) first_timestamp = line.any_timestamp;
      last_timestamp = std::move(line.any_timestamp);
      line.any_timestamp.reset();
    }
    if (census.jsonl || forced_jsonl_) {
      const std::string_view text = util::trim(raw);
      if (!text.empty() && text[0] != '#') jsonl.push_back(LogLine{std::string(text), std::nullopt, std::nullopt, number, 0});
    }
    if (blank) {
      if (follow_ > 0) keep(std::move(line));
      return;
    }
    if (detail::find_nemo_record(line.text) != std::string::npos) {
      ++census.nemo;
    } else if (detail::find_megatron_record(line.text) != std::string::npos) {
      ++census.megatron;
    }
    if (detail::is_bridge_step_time(line.text)) ++census.bridge;
    const size_t at = detail::find_slime_record(line.text, "step");
    if (at != std::string::npos) {
      ++census.slime_steps;
      std::string id = line.text.substr(at + 5, line.text.find(':', at) - at - 5);
      if (!slime_ids_.insert(std::move(id)).second) census.slime_repeats = true;
    }
    if (detail::is_lightning_progress(line.text)) ++census.lightning;
    // Megatron-LM's memory lines are kept apart, for the measured peak (memory_report.hpp).
    if (is_memory_report(line.text)) memory.push_back(line);
    if (starts_record(line.text)) {
      const std::string_view t = util::trim(line.text);
      depth_ = open_brackets(t);
      const bool open_megatron = detail::find_megatron_record(t) != std::string::npos && t.back() != '|';
      follow_ = depth_ > 0 || open_megatron ? detail::kMaxRecordLines : 0;
      kept.push_back(std::move(line));
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

  Census census;
  std::vector<LogLine> kept;   ///< record lines and their continuation lines, cleaned
  std::vector<LogLine> memory;  ///< Megatron-LM memory lines, cleaned
  std::vector<LogLine> jsonl;  ///< raw non-blank, non-comment lines when the log is JSONL
  std::optional<std::string> first_timestamp;
  std::optional<std::string> last_timestamp;

 private:
  void keep(LogLine line) {
    kept.push_back(std::move(line));
    --follow_;
  }

  bool forced_jsonl_ = false;
  bool first_meaningful_ = true;
  int follow_ = 0;
  int depth_ = 0;
  std::set<std::string> slime_ids_;
};

std::optional<LogFormat> format_of(const Census& census) {
  if (census.jsonl) return LogFormat::jsonl;
  if (census.nemo > 0) return LogFormat::nemo;
  if (census.megatron > 0) return census.bridge > 0 ? LogFormat::megatron_bridge : LogFormat::megatron;
  if (census.slime_steps > 0) return census.slime_repeats ? LogFormat::miles : LogFormat::slime;
  return std::nullopt;
}

[[noreturn]] void no_format(const Census& census, const std::string& path) {
  const SourceLocation where{path, 0, 0, ""};
  if (census.empty) throw_input(where, "the log is empty");
  if (census.lightning > 0) {
    throw_input(where,
                "a PyTorch Lightning progress bar (NeMo 1.x): it prints no step time and rounds global_step "
                "(e.g. 3.1e+4), so steps cannot be told apart; log per step or write ladle JSONL");
  }
  throw_input(where,
              "no training-step records: not a Megatron-LM, Megatron-Bridge, slime, miles, NeMo 2.0 or "
              "ladle JSONL log");
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

RunLog finish_log(LogScan& scan, const std::string& path, std::optional<LogFormat> forced) {
  const Census& census = scan.census;
  const std::optional<LogFormat> detected = format_of(census);
  if (!forced && !detected) no_format(census, path);
  const LogFormat format = forced ? *forced : *detected;

  detail::ReadResult read;
  switch (format) {
    case LogFormat::megatron:
      read = detail::read_megatron(scan.kept, path, false);
      break;
    case LogFormat::megatron_bridge:
      read = detail::read_megatron(scan.kept, path, true);
      break;
    case LogFormat::slime:
      read = detail::read_slime(scan.kept, path, false);
      break;
    case LogFormat::miles:
      read = detail::read_slime(scan.kept, path, true);
      break;
    case LogFormat::nemo:
      read = detail::read_nemo(scan.kept, path);
      break;
    case LogFormat::jsonl:
      read = detail::read_jsonl(scan.jsonl, path);
      break;
  }
  if (read.steps.empty()) {
    if (census.empty) throw_input(SourceLocation{path, 0, 0, ""}, "the log is empty");
    std::string hint;
    if (detected && *detected != format) hint = fmt::format("; it looks like a {} log", to_string(*detected));
    throw_input(SourceLocation{path, 0, 0, ""}, "no step records for format {}: expected {}{}", to_string(format),
                expected_record(format), hint);
  }

  RunLog log;
  log.path = path;
  log.format = format;
  log.steps = std::move(read.steps);
  log.log_interval = read.log_interval;
  log.notes = std::move(read.notes);
  // slime and miles train with Megatron-LM: their actors print the same lines behind a Ray prefix.
  if (format == LogFormat::megatron || format == LogFormat::megatron_bridge || format == LogFormat::slime ||
      format == LogFormat::miles) {
    log.memory = read_memory_reports(scan.memory, path);
  }
  if (format == LogFormat::jsonl) {
    for (const Step& step : log.steps) {
      if (!step.timestamp) continue;
      if (!log.first_timestamp) log.first_timestamp = step.timestamp;
      log.last_timestamp = step.timestamp;
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
  LogScan scan(std::nullopt);
  for_each_line(text, [&](std::string_view raw, int number) { scan.add(raw, number); });
  if (const auto format = format_of(scan.census)) return *format;
  no_format(scan.census, path);
}

RunLog read_log(std::string_view text, const std::string& path, std::optional<LogFormat> forced) {
  LogScan scan(forced);
  for_each_line(text, [&](std::string_view raw, int number) { scan.add(raw, number); });
  return finish_log(scan, path, forced);
}

RunLog read_log_file(const std::string& path, std::optional<LogFormat> forced) {
  util::LineReader reader(path);
  LogScan scan(forced);
  std::string_view raw;
  while (reader.next(raw)) scan.add(raw, reader.line_number());
  return finish_log(scan, path, forced);
}

}  // namespace ladle::runlog
