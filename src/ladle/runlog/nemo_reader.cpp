// nemo_reader.cpp: NeMo 2.0 training logs (and the PyTorch Lightning progress bar it cannot read).
//
// Format followed: NeMo 2.0's MegatronStrategy progress printer writes, every
// log_every_n_steps, "Training epoch E, iteration I/T | lr: x | global_batch_size: n |
// global_step: n | reduced_train_loss: x | train_step_timing in s: x | consumed_samples: n"
// (observed in the public log awslabs/awsome-distributed-training
// 3.test_cases/megatron/nemo/kubernetes/README.md at 0edaf152, kept in tests/data/runlog/).
// `iteration` restarts every epoch; `global_step` is the run's step, so it is the step index.
// train_step_timing is the time of the logged step.
#include <map>
#include <optional>

#include "ladle/runlog/readers.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/text.hpp"

namespace ladle::runlog::detail {

size_t find_nemo_record(std::string_view s) {
  const size_t at = find_text(s, "Training epoch ");
  if (at == std::string_view::npos) return at;
  const size_t comma = find_text(s, ", iteration ", at);
  if (comma == std::string_view::npos) return std::string_view::npos;
  if (s.find('|', comma) != std::string_view::npos) return at;
  // Wrapped before its first '|': the line ends with "iteration I/T".
  const std::string_view rest = util::trim(s.substr(comma + 12));
  const size_t slash = rest.find('/');
  const bool counts = slash != std::string_view::npos && slash > 0 && slash + 1 < rest.size() &&
                      rest.find_first_not_of("0123456789/") == std::string_view::npos;
  return counts ? at : std::string_view::npos;
}

bool is_lightning_progress(std::string_view s) {
  return find_text(s, "it/s") != std::string_view::npos && find_text(s, "global_step=") != std::string_view::npos;
}

namespace {

// Whether a record's text may go on on the next line: it has no global_step yet (NeMo prints one in
// every record), or its last field is cut before its value ("| train_step_timing in", "lr:").
bool incomplete(std::string_view record) {
  if (find_text(record, "global_step") == std::string_view::npos) return true;
  const size_t bar = record.rfind('|');
  const std::string_view last = util::trim(bar == std::string_view::npos ? record : record.substr(bar + 1));
  return last.empty() || last.find(':') == std::string_view::npos || last.back() == ':';
}

// A record hard-wrapped over several physical lines (a terminal or an editor folding it) goes on on
// lines that are not log lines of their own: no record, no timestamp, no "[NeMo I ...]" tag.
bool continues(const LogLine& line) {
  const std::string_view text = util::trim(line.text);
  return !text.empty() && text[0] != '[' && !line.timestamp && find_nemo_record(text) == std::string_view::npos;
}

class NemoReader final : public LineRecordReader {
 public:
  using LineRecordReader::LineRecordReader;
  void add(LogLine line) override;

 private:
  void flush() override;
  void read_record(const LogLine& line, size_t at, bool joined);

  std::optional<LogLine> pending_;  ///< a record whose next lines may continue it
  size_t pending_at_ = 0;
  int joined_ = 0;  ///< lines joined to pending_
};

void NemoReader::add(LogLine line) {
  if (pending_) {
    if (joined_ < kMaxNemoContinuationLines && incomplete(std::string_view(pending_->text).substr(pending_at_)) &&
        continues(line)) {
      // Joined with one blank, as at a wrap between words; trailing blanks go so `pending_at_` holds.
      std::string& text = pending_->text;
      text.erase(text.find_last_not_of(" \t") + 1);
      text += " ";
      text += util::trim(line.text);
      ++joined_;
      return;
    }
    flush();
  }
  const size_t at = find_nemo_record(line.text);
  if (at == std::string::npos) return;
  if (incomplete(std::string_view(line.text).substr(at))) {
    pending_ = std::move(line);
    pending_at_ = at;
    joined_ = 0;
    return;
  }
  read_record(line, at, false);
}

void NemoReader::flush() {
  if (!pending_) return;
  const LogLine line = std::move(*pending_);
  pending_.reset();
  read_record(line, pending_at_, joined_ > 0);
}

void NemoReader::read_record(const LogLine& line, size_t at, bool joined) {
  const std::string& path = path_;
  {
    // Columns are those of the first physical line; a joined record's fields have none.
    const auto column = [&](size_t index) { return joined ? 0 : line.column(index); };
    std::map<std::string, std::pair<std::string, int>> fields;
    size_t start = line.text.find('|', at);
    while (start != std::string::npos && start < line.text.size()) {
      size_t bar = line.text.find('|', start + 1);
      if (bar == std::string::npos) bar = line.text.size();
      const std::string_view field = std::string_view(line.text).substr(start + 1, bar - start - 1);
      const size_t colon = field.rfind(':');
      if (colon != std::string_view::npos) {
        fields[std::string(util::trim(field.substr(0, colon)))] = {std::string(util::trim(field.substr(colon + 1))),
                                                                  column(start + 1)};
      }
      start = bar;
    }
    const auto number = [&](const std::string& key) -> std::optional<double> {
      const auto it = fields.find(key);
      if (it == fields.end()) return std::nullopt;
      const auto value = parse_number(it->second.first);
      if (!value) {
        throw_input(SourceLocation{path, line.line, it->second.second, ""}, "'{}' is '{}', expected a number", key,
                    it->second.first);
      }
      return value;
    };
    const auto global_step = number("global_step");
    if (!global_step) {
      throw_input(SourceLocation{path, line.line, column(at), ""},
                  "NeMo record without 'global_step': the step is unknown");
    }
    const auto step_number = util::exact_int64(*global_step);
    if (!step_number || *step_number < 0) {
      throw_input(SourceLocation{path, line.line, fields["global_step"].second, "global_step"},
                  "'{}' is not a step number (a whole number >= 0)", fields["global_step"].first);
    }
    Step step;
    step.step = *step_number;
    step.line = line.line;
    step.timestamp = line.timestamp;
    step.loss = number("reduced_train_loss");
    step.step_time_s = number("train_step_timing in s");
    step.learning_rate = number("lr");
    if (const auto gbs = number("global_batch_size")) step.samples = sample_count(*gbs, "global_batch_size", path, line.line);
    push(std::move(step));
  }
}

}  // namespace

std::unique_ptr<RecordReader> nemo_reader(const std::string& path, size_t expected) {
  return std::make_unique<NemoReader>(path, expected);
}

}  // namespace ladle::runlog::detail
