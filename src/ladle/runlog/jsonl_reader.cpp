// jsonl_reader.cpp: ladle's own step log, for engines ladle does not read directly.
//
// One JSON object per line, one line per optimizer step (blank lines and lines starting with '#'
// are skipped). Keys: "step" (integer, required), "iterations" (integer >= 1, default 1),
// "step_time_s", "loss", "grad_norm", "learning_rate" (numbers; null when unknown; the strings
// "nan", "inf" and "-inf" for non-finite values, which JSON cannot spell), "samples", "tokens"
// (integers consumed by the step) and "time" ("YYYY-MM-DD HH:MM:SS[.fff]" or ISO 8601 with 'T'
// and 'Z'). Any other key is an error, so a misspelt key is never silently ignored.
#include <nlohmann/json.hpp>

#include <array>

#include "ladle/runlog/readers.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/json.hpp"
#include "ladle/util/text.hpp"

namespace ladle::runlog::detail {

namespace {

const std::array<std::string, 9> kKeys = {"step",    "iterations", "step_time_s", "loss", "grad_norm",
                                          "learning_rate", "samples", "tokens",      "time"};

std::optional<double> real(const nlohmann::json& value, const std::string& key, const std::string& path, int line) {
  if (value.is_null()) return std::nullopt;
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (text == "nan" || text == "inf" || text == "-inf") return parse_number(text);
  }
  throw_input(SourceLocation{path, line, 0, key}, "'{}' is not a number (use \"nan\", \"inf\" or \"-inf\" for "
              "non-finite values)", value.dump());
}

int64_t whole(const nlohmann::json& value, const std::string& key, const std::string& path, int line, int64_t min) {
  if (!value.is_number_integer() || value.get<int64_t>() < min) {
    throw_input(SourceLocation{path, line, 0, key}, "'{}' is not a whole number >= {}", value.dump(), min);
  }
  return value.get<int64_t>();
}

}  // namespace

namespace {

class JsonlReader final : public LineRecordReader {
 public:
  using LineRecordReader::LineRecordReader;
  void add(LogLine line) override;
};

void JsonlReader::add(LogLine line) {
  const std::string& path = path_;
  {
    const std::string_view raw = util::trim(line.text);
    const int number = line.line;
    if (raw.empty() || raw[0] == '#') return;
    const nlohmann::json object = util::parse_json(raw, SourceLocation{path, number, 0, ""}, "not a JSON object");
    if (!object.is_object()) throw_input(SourceLocation{path, number, 1, ""}, "expected a JSON object per line");
    if (!object.contains("step")) throw_input(SourceLocation{path, number, 1, "step"}, "missing (required)");
    Step step;
    step.line = number;
    for (const auto& [key, value] : object.items()) {
      if (key == "step") {
        step.step = whole(value, key, path, number, 0);
      } else if (key == "iterations") {
        step.iterations = whole(value, key, path, number, 1);
      } else if (key == "step_time_s") {
        step.step_time_s = real(value, key, path, number);
      } else if (key == "loss") {
        step.loss = real(value, key, path, number);
      } else if (key == "grad_norm") {
        step.grad_norm = real(value, key, path, number);
      } else if (key == "learning_rate") {
        step.learning_rate = real(value, key, path, number);
      } else if (key == "samples") {
        step.samples = whole(value, key, path, number, 0);
      } else if (key == "tokens") {
        step.tokens = whole(value, key, path, number, 0);
      } else if (key == "time") {
        const auto match = value.is_string() ? find_timestamp(value.get<std::string>()) : std::nullopt;
        if (!match) {
          throw_input(SourceLocation{path, number, 0, key}, "'{}' is not a time 'YYYY-MM-DD HH:MM:SS'", value.dump());
        }
        step.timestamp = match->value;
      } else {
        throw_input(SourceLocation{path, number, 0, key}, "unknown key{}; known: {}",
                    util::did_you_mean(key, kKeys), util::join(kKeys, ", "));
      }
    }
    push(std::move(step));
  }
}

}  // namespace

std::unique_ptr<RecordReader> jsonl_reader(const std::string& path, size_t expected) {
  return std::make_unique<JsonlReader>(path, expected);
}

}  // namespace ladle::runlog::detail
