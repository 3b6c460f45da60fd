// megatron_reader.cpp: Megatron-LM and Megatron-Bridge training logs.
//
// Format followed (cited, not copied):
// - Megatron-LM `training_log` in megatron/training/training.py (NVIDIA/Megatron-LM, commit
//   001b00c2734d8f0fad096fe48a382fedf755d321): on the last rank, every --log-interval iterations
//   (and after the first), one line
//     " [YYYY-MM-DD HH:MM:SS.ffffff] iteration {:8d}/{:8d} | consumed samples: {:12d} |
//      elapsed time per iteration (ms): {:.1f} | [throughput per GPU (TFLOP/s/GPU): x |]
//      learning rate: {:.6E} | global batch size: {:5d} | <loss key>: {:.6E} | ... |
//      loss scale: x | grad norm: {:.3f} | [num zeros | params norm |]
//      number of skipped iterations: {:3d} | number of nan iterations: {:3d} |"
//   The elapsed time is the interval timer divided by the iterations since the last log
//   (advanced + skipped), and every loss is the sum over the interval divided by the advanced
//   iterations: both are averages over the log interval. A loss is printed only when that average
//   is >= 0, so an interval with only skipped iterations has no loss. Older versions print no
//   timestamp and fewer decimals (learning rate {:.3E}); Megatron-DeepSpeed adds
//   "consumed tokens: N" and prints "elapsed time per iteration (s)".
// - Megatron-Bridge `training_log` in src/megatron/bridge/training/utils/train_utils.py
//   (NVIDIA-NeMo/Megatron-Bridge, commit 031e7de6c238171a53ce14e8d71d0d3269a350b5): the same
//   iteration line (timestamp without microseconds) preceded, on rank 0, by
//     "Step Time : {:.2f}s GPU utilization: {:.1f}MODEL_TFLOP/s/GPU"
//   with the same interval-average step time.
// Validation lines ("validation loss at iteration N | lm loss value: ...") and timer lines
// ("time (ms) | forward-compute: ...") carry no "N/ M" and are not records.
#include <cmath>
#include <limits>
#include <map>

#include "ladle/runlog/readers.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/text.hpp"

namespace ladle::runlog::detail {

namespace {

constexpr int kMaxContinuationLines = 4;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

size_t skip_spaces(std::string_view s, size_t j) {
  while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
  return j;
}

std::string normalise_key(std::string_view key) {
  std::string out;
  bool space = false;
  for (char c : util::trim(key)) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

struct Field {
  std::string value;
  int col = 0;
};

[[noreturn]] void bad_value(const std::string& path, int line, int col, std::string_view key,
                            std::string_view value, std::string_view expected) {
  throw_input(SourceLocation{path, line, col, ""}, "'{}' is '{}', expected {}", key, value, expected);
}

double number_field(const std::map<std::string, Field>& fields, const std::string& key, const std::string& path,
                    int line) {
  const Field& f = fields.at(key);
  const auto value = parse_number(f.value);
  if (!value) bad_value(path, line, f.col, key, f.value, "a number");
  return *value;
}

long long integer_field(const std::map<std::string, Field>& fields, const std::string& key,
                        const std::string& path, int line) {
  const Field& f = fields.at(key);
  const auto value = parse_integer(f.value);
  if (!value || *value < 0) bad_value(path, line, f.col, key, f.value, "a whole number");
  return *value;
}

}  // namespace

size_t find_megatron_record(std::string_view s) {
  size_t pos = 0;
  while ((pos = find_text(s, "iteration", pos)) != std::string_view::npos) {
    const bool boundary = pos == 0 || s[pos - 1] == ' ' || s[pos - 1] == ']' || s[pos - 1] == '|';
    size_t j = pos + 9;
    const size_t after_word = j;
    j = skip_spaces(s, j);
    const size_t digits = j;
    while (j < s.size() && is_digit(s[j])) ++j;
    bool ok = boundary && j > digits && digits > after_word;
    if (ok) {
      j = skip_spaces(s, j);
      ok = j < s.size() && s[j] == '/';
    }
    if (ok) {
      // NeMo's "Training epoch 2, iteration 7/999 |" has the same shape: not Megatron-LM.
      const std::string_view before = s.substr(0, pos);
      ok = find_text(before, "epoch") == std::string_view::npos;
    }
    if (ok) return pos;
    pos += 9;
  }
  return std::string_view::npos;
}

bool is_bridge_step_time(std::string_view s) {
  return find_text(s, "Step Time :") != std::string_view::npos;
}

namespace {

class MegatronReader final : public WindowReader {
 public:
  MegatronReader(const std::string& path, bool bridge, size_t expected) : path_(path), bridge_(bridge) {
    result_.steps.reserve(expected);
  }

 private:
  size_t read_front(const std::deque<LogLine>& lines) override;
  ReadResult done() override;

  const std::string& path_;
  bool bridge_ = false;
  ReadResult result_;
  std::optional<double> pending_bridge_time_;  // "Step Time" printed before its iteration line
  size_t bridge_lines_ = 0;
  size_t bridge_mismatches_ = 0;
};

size_t MegatronReader::read_front(const std::deque<LogLine>& lines) {
  const std::string& path = path_;
  const LogLine& line = lines[0];
  if (is_bridge_step_time(line.text)) {
    const size_t at = line.text.find("Step Time :") + 11;
    const size_t end = line.text.find('s', at);
    const auto value = parse_number(std::string_view(line.text).substr(at, end == std::string::npos ? end : end - at));
    if (!value) {
      throw_input(SourceLocation{path, line.line, line.column(at), ""},
                  "'Step Time' is not followed by a number of seconds");
    }
    pending_bridge_time_ = *value;
    ++bridge_lines_;
    return 1;
  }
  const size_t start = find_megatron_record(line.text);
  if (start == std::string::npos) return 1;
  std::string record = line.text.substr(start);
  // A record hard-wrapped over several physical lines ends at the first line ending with '|'.
  int joined = 0;
  while (util::trim(record).empty() || util::trim(record).back() != '|') {
    const size_t next = 1 + static_cast<size_t>(joined);
    if (joined == kMaxContinuationLines || next >= lines.size() ||
        find_megatron_record(lines[next].text) != std::string::npos || lines[next].text.empty()) {
      throw_input(SourceLocation{path, line.line, line.column(start), ""},
                  "the record of '{}' is cut off (no closing '|'): the log looks truncated",
                  util::trim(std::string_view(record).substr(0, record.find('|'))));
    }
    record = std::string(util::trim(record)) + " " + std::string(util::trim(lines[next].text));
    ++joined;
  }
  const size_t used = 1 + static_cast<size_t>(joined);

  // Fields: "iteration N/ M", then "key: value" separated by '|'.
  std::map<std::string, Field> fields;
  Step step;
  step.line = line.line;
  step.timestamp = line.timestamp;
  size_t field_start = 0;
  bool first = true;
  while (field_start < record.size()) {
    size_t bar = record.find('|', field_start);
    if (bar == std::string::npos) bar = record.size();
    const std::string_view field = std::string_view(record).substr(field_start, bar - field_start);
    const int col = joined == 0 ? line.column(start + field_start) : 0;
    if (first) {
      const size_t slash = field.find('/');
      const auto number = parse_integer(field.substr(9, slash - 9));
      if (!number) bad_value(path, line.line, col, "iteration", field, "N/ M");
      step.step = *number;
      first = false;
    } else {
      const size_t colon = field.rfind(':');
      if (colon != std::string_view::npos) {
        fields[normalise_key(field.substr(0, colon))] = Field{std::string(util::trim(field.substr(colon + 1))), col};
      }
    }
    field_start = bar + 1;
  }
  const bool has_ms = fields.count("elapsed time per iteration (ms)") > 0;
  const bool has_s = fields.count("elapsed time per iteration (s)") > 0;
  if (!has_ms && !has_s && fields.count("consumed samples") == 0) return used;  // not a training record
  if (has_ms) {
    // Read "3741.2" ms as 3741.2e-3, the double nearest 3.7412 s, not 3741.2 / 1000 rounded twice.
    const std::string key = "elapsed time per iteration (ms)";
    const Field& f = fields.at(key);
    const bool plain = f.value.find_first_of("eE") == std::string::npos;
    const auto seconds = plain ? parse_number(f.value + "e-3") : std::nullopt;
    step.step_time_s = seconds ? *seconds : number_field(fields, key, path, line.line) / 1000.0;
  }
  if (has_s) step.step_time_s = number_field(fields, "elapsed time per iteration (s)", path, line.line);
  if (fields.count("lm loss")) step.loss = number_field(fields, "lm loss", path, line.line);
  if (fields.count("grad norm")) step.grad_norm = number_field(fields, "grad norm", path, line.line);
  if (fields.count("learning rate")) step.learning_rate = number_field(fields, "learning rate", path, line.line);
  if (fields.count("number of skipped iterations")) {
    const long long skipped = integer_field(fields, "number of skipped iterations", path, line.line);
    if (skipped > std::numeric_limits<int32_t>::max()) {
      const Field& f = fields.at("number of skipped iterations");
      bad_value(path, line.line, f.col, "number of skipped iterations", f.value, "a whole number below 2^31");
    }
    step.skipped_iterations = static_cast<int32_t>(skipped);
  }
  // Running totals, turned into per-record amounts in done() from each record's neighbour.
  if (fields.count("consumed samples")) step.samples = integer_field(fields, "consumed samples", path, line.line);
  if (fields.count("consumed tokens")) step.tokens = integer_field(fields, "consumed tokens", path, line.line);
  if (fields.count("global batch size")) {
    // Kept in `iterations` temporarily: done() overwrites it with the record's span.
    step.iterations = -integer_field(fields, "global batch size", path, line.line);
  }
  if (bridge_ && pending_bridge_time_) {
    if (step.step_time_s && std::fabs(*step.step_time_s - *pending_bridge_time_) > 0.0051) ++bridge_mismatches_;
    if (!step.step_time_s) step.step_time_s = pending_bridge_time_;
    pending_bridge_time_.reset();
  }
  push_record(result_, std::move(step));
  return used;
}

ReadResult MegatronReader::done() {
  ReadResult& result = result_;
  if (bridge_ && bridge_lines_ == 0) {
    throw_input(SourceLocation{path_, 0, 0, ""},
                "no 'Step Time :' lines: this is not a Megatron-Bridge log (try --format megatron)");
  }
  if (bridge_mismatches_ > 0) {
    result.notes.push_back(fmt::format(
        "{} 'Step Time' lines differ from their iteration line's elapsed time by more than rounding; "
        "the iteration line's milliseconds are used",
        bridge_mismatches_));
  }
  if (result.steps.empty()) return std::move(result);

  // Per-record samples and tokens from the running totals printed on each record, once the records
  // are in order: each record holds its totals (and its global batch size, as a negative
  // `iterations`) until set_iterations reaches it, from the last record to the first, so that the
  // record before still holds its totals.
  fold_records(result, path_, false, "");
  StepVector& steps = result.steps;
  set_iterations(result, true, [&](size_t k, int64_t held) {
    Step& step = steps[k];
    const int64_t global_batch = held < 0 ? -held : 0;
    const MaybeNumber<int64_t> samples = step.samples;
    const MaybeNumber<int64_t> tokens = step.tokens;
    step.samples.reset();
    step.tokens.reset();
    const bool consecutive = k > 0 && step.step - steps[k - 1].step == step.iterations;
    const Step* before = consecutive ? &steps[k - 1] : nullptr;
    if (before && samples && before->samples && *samples >= *before->samples) {
      step.samples = *samples - *before->samples;
    } else if (global_batch > 0) {
      const auto total = util::checked_mul(global_batch, step.iterations);
      if (!total) {
        throw_input(SourceLocation{path_, step.line, 0, ""},
                    "global batch size {} x {} iterations does not fit in 64 bits", global_batch, step.iterations);
      }
      step.samples = *total;
    }
    if (before && tokens && before->tokens && *tokens >= *before->tokens) {
      step.tokens = *tokens - *before->tokens;
    } else if (k == 0 && tokens && step.step == step.iterations) {
      step.tokens = tokens;  // the first record of a run that starts at 0
    }
  });
  return std::move(result);
}

}  // namespace

std::unique_ptr<RecordReader> megatron_reader(const std::string& path, bool bridge, size_t expected) {
  return std::make_unique<MegatronReader>(path, bridge, expected);
}

}  // namespace ladle::runlog::detail
