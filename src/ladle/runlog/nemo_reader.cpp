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

#include "ladle/runlog/readers.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/text.hpp"

namespace ladle::runlog::detail {

size_t find_nemo_record(std::string_view s) {
  const size_t at = find_text(s, "Training epoch ");
  if (at == std::string_view::npos) return at;
  const size_t comma = find_text(s, ", iteration ", at);
  if (comma == std::string_view::npos || s.find('|', comma) == std::string_view::npos) return std::string_view::npos;
  return at;
}

bool is_lightning_progress(std::string_view s) {
  return find_text(s, "it/s") != std::string_view::npos && find_text(s, "global_step=") != std::string_view::npos;
}

namespace {

class NemoReader final : public LineRecordReader {
 public:
  using LineRecordReader::LineRecordReader;
  void add(LogLine line) override;
};

void NemoReader::add(LogLine line) {
  const std::string& path = path_;
  {
    const size_t at = find_nemo_record(line.text);
    if (at == std::string::npos) return;
    std::map<std::string, std::pair<std::string, int>> fields;
    size_t start = line.text.find('|', at);
    while (start != std::string::npos && start < line.text.size()) {
      size_t bar = line.text.find('|', start + 1);
      if (bar == std::string::npos) bar = line.text.size();
      const std::string_view field = std::string_view(line.text).substr(start + 1, bar - start - 1);
      const size_t colon = field.rfind(':');
      if (colon != std::string_view::npos) {
        fields[std::string(util::trim(field.substr(0, colon)))] = {std::string(util::trim(field.substr(colon + 1))),
                                                                  line.column(start + 1)};
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
      throw_input(SourceLocation{path, line.line, line.column(at), ""},
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
