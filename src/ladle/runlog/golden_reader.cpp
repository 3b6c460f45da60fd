// golden_reader.cpp: Megatron-LM's and Megatron-Bridge's CI golden-value files, per-metric step
// series.
//
// Format followed (observed in NVIDIA/Megatron-LM tests/functional_tests/test_cases/*/*/
// golden_values_*.json at d98e8a64, three of them kept in tests/data/runlog/real/): one JSON
// object; each training metric is {"start_step": a, "end_step": b, "step_interval": k,
// "values": {"<step>": number or "nan", ...}}, or, in older files, "values": [v0, v1, ...] at steps
// a, a + k, ... (below b). Each value is the metric at that one step, sampled every k steps, not an
// average. "lm loss" is the training loss and "iteration-time" the step time in seconds; the
// other metrics (num-zeros, mem-*-bytes, mtp losses) and scalars (iteration_timing_avg) are not
// step records ladle keeps.
//
// Megatron-Bridge's (NVIDIA-NeMo/Megatron-Bridge tests/functional_tests/test_groups/recipes/
// golden_values/*.json at 067f987d, one kept in tests/data/runlog/real/) hold one object per step
// instead: {"<step>": {"lm loss": x, "elapsed time per iteration (ms)": ms, "GPU utilization": y},
// ..., "alloc": GB, "max_alloc": GB}; keys that are not steps are scalars ladle does not keep.
//
// Neither states the batch, so the records carry no rows or tokens.
#include <map>
#include <optional>

#include "ladle/runlog/readers.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/json.hpp"
#include "ladle/util/limits.hpp"

namespace ladle::runlog::detail {

namespace {

// The metrics a record is made of, as Megatron-LM's training_log names them in TensorBoard, and
// Megatron-Bridge's step time as its iteration line prints it.
constexpr const char* kLossKey = "lm loss";
constexpr const char* kStepTimeKey = "iteration-time";
constexpr const char* kBridgeTimeKey = "elapsed time per iteration (ms)";
constexpr double kSecondsPerMs = 1e-3;
// The largest golden-value file read whole: the largest in Megatron-LM is below 1 MiB.
constexpr size_t kMaxGoldenBytes = size_t{64} << 20;

using Records = std::map<int64_t, Step>;

[[noreturn]] void bad(const std::string& path, const std::string& field, const std::string& what) {
  throw_input(SourceLocation{path, 0, 0, field}, "{}", what);
}

int64_t whole_field(const nlohmann::json& series, const char* key, const std::string& path, const std::string& metric) {
  const auto it = series.find(key);
  if (it == series.end() || !it->is_number_integer() || it->get<int64_t>() < 0 ||
      it->get<int64_t>() > limits::kMaxSteps) {
    bad(path, metric + "." + key,
        fmt::format("{}: expected a whole step number >= 0", it == series.end() ? "missing" : util::show_json(*it)));
  }
  return it->get<int64_t>();
}

// A value as the files write it: a number, or the string "nan" (also "inf", "-inf") for a step the
// metric was not finite or not measured.
double metric_value(const nlohmann::json& value, const std::string& path, const std::string& field) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    if (const auto number = parse_number(value.get<std::string>())) return *number;
  }
  bad(path, field, fmt::format("{}: expected a number or \"nan\"", util::show_json(value)));
}

// A key that is a step: digits without a leading zero (so no two keys name one step), at most
// limits::kMaxSteps.
std::optional<int64_t> step_key(const std::string& key) {
  if (key.empty() || key.find_first_not_of("0123456789") != std::string::npos || (key.size() > 1 && key[0] == '0')) {
    return std::nullopt;
  }
  const auto step = parse_integer(key);
  if (!step || *step > limits::kMaxSteps) return std::nullopt;
  return *step;
}

// Whether `root` is Megatron-Bridge's shape: an object per step.
bool is_bridge_shape(const nlohmann::json& root) {
  for (const auto& [key, value] : root.items()) {
    if (step_key(key) && value.is_object()) return true;
  }
  return false;
}

// Megatron-Bridge's records: "lm loss" and the step time in ms of each step object.
void read_bridge_records(const nlohmann::json& root, const std::string& path, Records& records) {
  for (const auto& [key, value] : root.items()) {
    const auto step = step_key(key);
    if (!step) continue;  // "alloc", "max_alloc": scalars of the whole run
    if (!value.is_object()) bad(path, key, fmt::format("{}: expected an object of the step's metrics", util::show_json(value)));
    Step& record = records[*step];
    record.step = *step;
    if (const auto loss = value.find(kLossKey); loss != value.end()) {
      record.loss = metric_value(*loss, path, fmt::format("{}.{}", key, kLossKey));
    }
    if (const auto ms = value.find(kBridgeTimeKey); ms != value.end()) {
      record.step_time_s = metric_value(*ms, path, fmt::format("{}.{}", key, kBridgeTimeKey)) * kSecondsPerMs;
    }
  }
}

// Adds the values of one metric to `records` through `set`.
template <typename Set>
void read_series(const nlohmann::json& root, const char* metric, const std::string& path, Records& records, Set set) {
  const auto found = root.find(metric);
  if (found == root.end()) return;
  const nlohmann::json& series = *found;
  if (!series.is_object()) bad(path, metric, "expected an object with start_step, end_step, step_interval and values");
  const int64_t start = whole_field(series, "start_step", path, metric);
  const int64_t end = whole_field(series, "end_step", path, metric);
  const int64_t interval = whole_field(series, "step_interval", path, metric);
  if (interval < 1 || end < start) {
    bad(path, std::string(metric) + ".step_interval",
        fmt::format("steps {} to {} every {}: expected start_step <= end_step and step_interval >= 1", start, end,
                    interval));
  }
  const auto values = series.find("values");
  if (values == series.end()) bad(path, std::string(metric) + ".values", "missing");
  const auto add = [&](int64_t step, const nlohmann::json& value, const std::string& field) {
    if (step < start || step > end) {
      bad(path, field, fmt::format("step {} is outside start_step {} to end_step {}", step, start, end));
    }
    Step& record = records[step];
    record.step = step;
    set(record, metric_value(value, path, field));
  };
  if (values->is_object()) {
    for (const auto& [key, value] : values->items()) {
      const std::string field = fmt::format("{}.values.\"{}\"", metric, key);
      const auto step = step_key(key);
      if (!step) bad(path, field, "expected a whole step number >= 0 as the key");
      add(*step, value, field);
    }
  } else if (values->is_array()) {
    // Older files list the values at start_step, start_step + step_interval, ... below end_step.
    int64_t step = start;
    for (size_t i = 0; i < values->size(); ++i, step += interval) {
      add(step, (*values)[i], fmt::format("{}.values[{}]", metric, i));
    }
  } else {
    bad(path, std::string(metric) + ".values", "expected an object of step: value or a list of values");
  }
}

class GoldenReader final : public RecordReader {
 public:
  explicit GoldenReader(const std::string& path) : path_(path) {}

  // Keeps the file's text, line for line, so a syntax error is reported where it is.
  void add(LogLine line) override {
    // Line N starts after N - 1 newlines.
    text_.append(static_cast<size_t>(line.line - 1 - newlines_), '\n');
    newlines_ = line.line - 1;
    text_ += line.text;
    if (text_.size() > kMaxGoldenBytes) {
      throw_input(SourceLocation{path_, line.line, 0, ""}, "a golden-value file holds at most {} MiB",
                  kMaxGoldenBytes >> 20);
    }
  }

  ReadResult finish() override {
    const nlohmann::json root = util::parse_json(text_, SourceLocation{path_, 0, 0, ""});
    text_.clear();
    if (!root.is_object()) bad(path_, "", "expected a JSON object of metric step series");
    Records records;
    // Megatron-LM's series first: its inference tests key objects by number too.
    const bool series = root.contains(kLossKey) || root.contains(kStepTimeKey);
    if (!series && is_bridge_shape(root)) {
      read_bridge_records(root, path_, records);
    } else {
      if (!series) {
        bad(path_, "", fmt::format("no \"{}\" or \"{}\" step series: not the golden values of a training run",
                                   kLossKey, kStepTimeKey));
      }
      read_series(root, kLossKey, path_, records, [](Step& s, double v) { s.loss = v; });
      read_series(root, kStepTimeKey, path_, records, [](Step& s, double v) { s.step_time_s = v; });
    }
    ReadResult result;
    for (auto& [step, record] : records) result.steps.push_back(record);
    finish_records(result, path_, false, "");
    result.notes.push_back(
        "golden values: each record is the value at its step, not an average; the file states no batch, so no rows "
        "or tokens");
    return result;
  }

 private:
  const std::string& path_;
  std::string text_;
  int newlines_ = 0;  ///< newlines in text_
};

}  // namespace

bool is_golden_values_marker(std::string_view s) {
  return find_text(s, "\"step_interval\"") != std::string_view::npos ||
         find_text(s, "\"elapsed time per iteration (ms)\"") != std::string_view::npos;
}

std::unique_ptr<RecordReader> golden_reader(const std::string& path) { return std::make_unique<GoldenReader>(path); }

}  // namespace ladle::runlog::detail
