// slime_reader.cpp: slime and miles training logs.
//
// Format followed (cited, not copied):
// - slime `train` in slime/backends/megatron_utils/model.py (THUDM/slime, commit
//   00b5ed0e6c1167e87804ac1c151787575d692354): after every optimizer step, on the rank with DP 0,
//   TP 0 and the last PP stage, `logger.info(f"{role_tag}step {accumulated_step_id}: {log_dict}")`
//   where accumulated_step_id = rollout_id * steps_per_rollout + step_id (0-based), role_tag is ""
//   for the actor ("critic-" otherwise, not read here), and log_dict is a Python dict printed with
//   repr(): "train/<loss key>" (sft_loss_function reports "loss"), "train/grad_norm" (nan when the
//   step was skipped), "train/lr-pg_<i>", "train/global_batch_size", "train/step".
// - slime's perf log (slime/utils/train_metric_utils.py, same repository):
//   `logger.info(f"perf {rollout_id}: {log_dict}")` with "perf/step_time" = "perf/train_wait_time" +
//   "perf/train_time", the wall time of the whole rollout on the trainer.
// - The logging format, slime/utils/logging_utils.py: "[%(asctime)s] %(filename)s:%(lineno)d -
//   %(message)s" with datefmt "%Y-%m-%d %H:%M:%S"; under Ray each line also carries the actor
//   prefix "(ActorName pid=N, ip=A)".
// - miles (radixark/miles, miles/backends/megatron_utils/model.py, commit
//   00c915449b16a56ee9954fbc0a98893769dcdda6) prints the same line; its logs show every step line
//   twice (the logger and the tracker both print it), which the reader folds when identical.
// - RL phase times (rollout.hpp cites each key): the rollout manager's and the trainer's
//   "perf N:" lines and the trainer's "rollout N:" line become one Rollout per rollout id; a key
//   printed twice for one rollout with two values is refused.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include <fmt/ranges.h>

#include "ladle/runlog/py_literal.hpp"
#include "ladle/runlog/readers.hpp"
#include "ladle/util/error.hpp"

namespace ladle::runlog::detail {

namespace {

constexpr int kMaxDictLines = 50;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<double> number_of(const PyDict& dict, std::string_view key, const std::string& path, int line) {
  const auto it = dict.find(key);
  if (it == dict.end() || it->second.kind == PyValue::Kind::none) return std::nullopt;
  if (it->second.kind != PyValue::Kind::number) {
    throw_input(SourceLocation{path, line, 0, ""}, "'{}' is '{}', expected a number", key, it->second.text);
  }
  return it->second.number;
}

// The per-rollout keys read into a Rollout (rollout.hpp gives each one's source).
using RolloutTime = std::optional<double> Rollout::*;
constexpr std::array<std::pair<std::string_view, RolloutTime>, 10> kRolloutKeys = {{
    {"perf/rollout_time", &Rollout::rollout_time_s},
    {"perf/log_probs_time", &Rollout::log_probs_time_s},
    {"perf/ref_log_probs_time", &Rollout::ref_log_probs_time_s},
    {"perf/actor_train_time", &Rollout::actor_train_time_s},
    {"perf/train_time", &Rollout::train_time_s},
    {"perf/train_wait_time", &Rollout::train_wait_time_s},
    {"perf/update_weights_time", &Rollout::update_weights_time_s},
    {"perf/step_time", &Rollout::step_time_s},
    {"rollout/response_lengths", &Rollout::response_length_mean},
    {"rollout/total_lengths", &Rollout::total_length_mean},
}};

}  // namespace

size_t find_slime_record(std::string_view s, std::string_view kind) {
  size_t pos = 0;
  while ((pos = find_text(s, kind, pos)) != std::string_view::npos) {
    const bool boundary = pos == 0 || s[pos - 1] == ' ' || s[pos - 1] == '\t';
    size_t j = pos + kind.size();
    bool ok = boundary && j < s.size() && s[j] == ' ';
    if (ok) {
      ++j;
      const size_t digits = j;
      while (j < s.size() && is_digit(s[j])) ++j;
      ok = j > digits && j + 2 < s.size() && s[j] == ':' && s[j + 1] == ' ' && s[j + 2] == '{';
    }
    if (ok) return pos;
    pos += kind.size();
  }
  return std::string_view::npos;
}

namespace {

// A perf record: the wall time of one rollout.
struct Perf {
  int64_t id = 0;
  double seconds = 0;
  int line = 0;
};

class SlimeReader final : public WindowReader {
 public:
  SlimeReader(const std::string& path, bool miles, size_t expected) : path_(path), miles_(miles) {
    result_.steps.reserve(expected);
  }

 private:
  size_t read_front(const std::deque<LogLine>& lines) override;
  ReadResult done() override;
  void add_perf(int64_t id, double seconds, int line);
  void add_rollout_keys(int64_t id, const PyDict& dict, int line);
  void finish_rollouts(ReadResult& result);

  const std::string& path_;
  bool miles_ = false;
  ReadResult result_;
  std::vector<Perf> perf_;  ///< by id, unique (perf lines come in rollout order, so appended)
  bool perf_without_time_ = false;
  std::map<int64_t, Rollout> rollouts_;  ///< by rollout id
  std::map<int64_t, std::map<std::string_view, int>> key_lines_;  ///< where each rollout key was printed
};

void SlimeReader::add_rollout_keys(int64_t id, const PyDict& dict, int line) {
  for (const auto& [key, member] : kRolloutKeys) {
    const auto value = number_of(dict, key, path_, line);
    if (!value) continue;
    Rollout& rollout = rollouts_[id];
    if (rollout.line == 0) rollout.line = line;
    rollout.rollout = id;
    std::optional<double>& held = rollout.*member;
    auto& lines = key_lines_[id];
    if (held && *held != *value) {
      throw_input(SourceLocation{path_, line, 0, std::string(key)}, "rollout {} prints '{}' twice with different values (lines {} and {})",
                  id, key, lines[key], line);
    }
    if (!held) lines[key] = line;
    held = *value;
  }
}

void SlimeReader::add_perf(int64_t id, double seconds, int line) {
  auto it = perf_.end();
  if (!perf_.empty() && perf_.back().id >= id) {
    it = std::lower_bound(perf_.begin(), perf_.end(), id, [](const Perf& p, int64_t v) { return p.id < v; });
  }
  if (it != perf_.end() && it->id == id) {
    if (it->seconds != seconds) {
      throw_input(SourceLocation{path_, line, 0, ""}, "perf {} is printed twice with different step times (lines {} and {})",
                  id, it->line, line);
    }
    return;
  }
  perf_.insert(it, Perf{id, seconds, line});
}

size_t SlimeReader::read_front(const std::deque<LogLine>& lines) {
  const std::string& path = path_;
  size_t i = 0;
  const LogLine& line = lines[0];
  for (std::string_view kind : {std::string_view("step"), std::string_view("perf"), std::string_view("rollout")}) {
    const size_t at = find_slime_record(line.text, kind);
    if (at == std::string::npos) continue;
    const size_t digits = at + kind.size() + 1;
    const size_t colon = line.text.find(':', digits);
    const auto id_value = parse_integer(std::string_view(line.text).substr(digits, colon - digits));
    if (!id_value) {
      throw_input(SourceLocation{path, line.line, line.column(digits), ""}, "'{} {}' is not a step number", kind,
                  line.text.substr(digits, colon - digits));
    }
    const int64_t id = *id_value;
    const size_t brace = colon + 2;
    std::string buffer = line.text.substr(brace);
    int joined = 0;
    std::optional<PyDict> dict;
    while (true) {
      size_t pos = 0;
      size_t error_at = 0;
      std::string error;
      dict = parse_py_dict(buffer, pos, error_at, error);
      if (dict) break;
      // A dict hard-wrapped over several lines: join the next line (a terminal wrap loses no
      // characters, so nothing is inserted between the pieces).
      const size_t next = i + 1 + static_cast<size_t>(joined);
      if (error_at >= buffer.size() && joined < kMaxDictLines && next < lines.size() &&
          find_slime_record(lines[next].text, "step") == std::string::npos &&
          find_slime_record(lines[next].text, "perf") == std::string::npos &&
          find_slime_record(lines[next].text, "rollout") == std::string::npos) {
        buffer += lines[next].text;
        ++joined;
        continue;
      }
      if (error_at >= buffer.size()) {
        throw_input(SourceLocation{path, line.line, line.column(brace), ""},
                    "the dict of '{} {}' is cut off: the log looks truncated", kind, id);
      }
      const int col = joined == 0 ? line.column(brace + error_at) : 0;
      throw_input(SourceLocation{path, line.line, col, ""}, "in '{} {}': {}", kind, id, error);
    }
    i += static_cast<size_t>(joined);
    if (kind == "step") {
      Step step;
      step.step = id;
      step.line = line.line;
      step.timestamp = line.timestamp;
      step.loss = number_of(*dict, "train/loss", path, line.line);
      step.grad_norm = number_of(*dict, "train/grad_norm", path, line.line);
      step.learning_rate = number_of(*dict, "train/lr-pg_0", path, line.line);
      if (const auto gbs = number_of(*dict, "train/global_batch_size", path, line.line)) {
        step.samples = sample_count(*gbs, "train/global_batch_size", path, line.line);
      }
      push_record(result_, std::move(step));
    } else if (kind == "rollout") {
      add_rollout_keys(id, *dict, line.line);
    } else {
      add_rollout_keys(id, *dict, line.line);
      std::optional<double> seconds = number_of(*dict, "perf/step_time", path, line.line);
      if (!seconds) {
        const auto train = number_of(*dict, "perf/train_time", path, line.line);
        const auto wait = number_of(*dict, "perf/train_wait_time", path, line.line);
        if (train && wait) seconds = *train + *wait;
      }
      if (!seconds) {
        perf_without_time_ = true;
        continue;
      }
      add_perf(id, *seconds, line.line);
    }
  }
  return i + 1;
}

ReadResult SlimeReader::done() {
  ReadResult& result = result_;
  finish_records(result, path_, false,
                 miles_ ? "each step is printed twice, as miles does; identical copies were kept once"
                        : "each step is printed twice (as miles does); identical copies were kept once");
  if (result.steps.empty()) return std::move(result);
  finish_rollouts(result);

  if (perf_.empty()) {
    result.notes.push_back(perf_without_time_ ? "perf lines carry no perf/step_time: step times unknown"
                                              : "no 'perf N:' lines: step times unknown");
    return std::move(result);
  }
  // The records are in step order and unique (finish_records), as perf_ is by id.
  const auto find_step = [&](int64_t id) {
    const auto it = std::lower_bound(result.steps.begin(), result.steps.end(), id,
                                     [](const Step& s, int64_t v) { return s.step < v; });
    return it != result.steps.end() && it->step == id;
  };
  const size_t step_count = result.steps.size();
  // Generation timed by the rollout manager: an RL run, not a --debug-train-only one.
  const bool rl_phases = std::any_of(result.rollouts.begin(), result.rollouts.end(),
                                     [](const Rollout& r) { return r.rollout_time_s.has_value(); });
  if (step_count > perf_.size() && step_count % perf_.size() == 0 && rl_phases) {
    // An RL run: the rollouts carry the times (score reads them); the steps keep none.
    result.notes.push_back(fmt::format("{} training steps per rollout: step times are per rollout (the perf lines)",
                                       step_count / perf_.size()));
    return std::move(result);
  }
  if (step_count > perf_.size() && step_count % perf_.size() == 0) {
    const size_t per_rollout = step_count / perf_.size();
    throw_input(SourceLocation{path_, 0, 0, ""},
                "{} training steps per rollout: slime's perf lines time a whole rollout, so per-step times "
                "are unknown; ladle needs one step per rollout (global batch = rollout batch x samples "
                "per prompt)",
                per_rollout);
  }
  std::vector<int64_t> without_perf;
  for (Step& step : result.steps) {
    const auto it = std::lower_bound(perf_.begin(), perf_.end(), step.step,
                                     [](const Perf& p, int64_t v) { return p.id < v; });
    if (it == perf_.end() || it->id != step.step) {
      without_perf.push_back(step.step);
      continue;
    }
    step.step_time_s = it->seconds;
  }
  std::vector<int64_t> without_step;
  for (const Perf& p : perf_) {
    if (!find_step(p.id)) without_step.push_back(p.id);
  }
  if (!without_perf.empty()) {
    result.notes.push_back(fmt::format("steps without a perf line (no step time): {}", fmt::join(without_perf, ", ")));
  }
  if (!without_step.empty()) {
    result.notes.push_back(fmt::format("perf lines without a step line: {}", fmt::join(without_step, ", ")));
  }
  return std::move(result);
}

void SlimeReader::finish_rollouts(ReadResult& result) {
  if (rollouts_.empty()) return;
  // Step lines number steps rollout_id x steps_per_rollout + step_id (model.py); the trainer's perf
  // lines (those with perf/step_time or perf/train_time) give the rollout count.
  size_t trainer_lines = 0;
  for (const auto& [id, r] : rollouts_) {
    if (r.step_time_s || r.train_time_s) ++trainer_lines;
  }
  const size_t step_count = result.steps.size();
  std::optional<int64_t> per_rollout;
  if (trainer_lines > 0 && step_count % trainer_lines == 0 && step_count >= trainer_lines) {
    per_rollout = static_cast<int64_t>(step_count / trainer_lines);
  } else {
    result.notes.push_back(fmt::format("{} step lines for {} rollouts with trainer perf lines: samples per rollout "
                                       "unknown",
                                       step_count, trainer_lines));
  }
  if (per_rollout) {
    std::set<int64_t> without_samples;  // a rollout with a step that prints no batch has no count
    for (const Step& step : result.steps) {
      const auto it = rollouts_.find(step.step / *per_rollout);
      if (it == rollouts_.end()) continue;
      ++it->second.train_steps;
      if (!step.samples) without_samples.insert(it->first);
      if (step.samples) it->second.samples = it->second.samples.value_or(0) + *step.samples;
    }
    for (const int64_t id : without_samples) rollouts_[id].samples.reset();
  }
  result.rollouts.reserve(rollouts_.size());
  for (auto& [id, r] : rollouts_) result.rollouts.push_back(r);
}

}  // namespace

std::unique_ptr<RecordReader> slime_reader(const std::string& path, bool miles, size_t expected) {
  return std::make_unique<SlimeReader>(path, miles, expected);
}

}  // namespace ladle::runlog::detail
