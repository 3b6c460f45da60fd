#include "ladle/verify/rl_score.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ladle/util/error.hpp"
#include "ladle/util/rounding.hpp"
#include "ladle/util/text.hpp"

namespace ladle::verify {

namespace {

using util::round_to;
using util::round_significant;

constexpr double kSecondsPerHour = 3600.0;
// MFU counts 6 FLOPs per parameter per trained token (forward 2, backward 4), models/README.md.
constexpr double kFlopsPerParamPerToken = 6.0;
// The share of timed rollouts treated as warm-up by the default window (as score.cpp's steps).
constexpr int64_t kWarmupDivisor = 4;

bool timed(const Rollout& r) { return r.step_time_s.has_value(); }

SourceLocation at(const std::string& path, int line, const char* field) { return SourceLocation{path, line, 0, field}; }

}  // namespace

bool is_rl_log(const runlog::RunLog& log) {
  // perf/rollout_time comes from the rollout manager, which prints it only when it generated the
  // rollout (slime's --debug-train-only runs load rollouts from disk and print none).
  const bool generated = std::any_of(log.rollouts.begin(), log.rollouts.end(),
                                     [](const Rollout& r) { return r.rollout_time_s.has_value(); });
  return generated && std::any_of(log.rollouts.begin(), log.rollouts.end(), timed);
}

StepWindow default_rl_window(const runlog::RunLog& log) {
  std::vector<int64_t> ids;
  for (const Rollout& r : log.rollouts) {
    if (timed(r)) ids.push_back(r.rollout);
  }
  const auto n = static_cast<int64_t>(ids.size());
  if (n < 2) {
    throw_input(SourceLocation{log.path, 0, 0, ""},
                "{} timed rollout{}: nothing is left after warm-up; pass --window A:B (rollout ids)", n,
                n == 1 ? "" : "s");
  }
  const int64_t skip = (n + kWarmupDivisor - 1) / kWarmupDivisor;
  return StepWindow{ids[static_cast<size_t>(skip)], ids.back()};
}

RlScoreReport score_rl_runs(const std::vector<runlog::RunLog>& runs, const Recipe& recipe,
                            const ScoreInputs& inputs, std::optional<StepWindow> window) {
  LADLE_ASSERT(!runs.empty(), "score_rl_runs needs a run");
  if (!recipe.workload.rl) {
    throw_input(SourceLocation{runs.front().path, 0, 0, "workload.rl"},
                "the log is an RL run's (rollout perf lines) but the recipe has no RL workload");
  }
  const RlWorkload& rl = *recipe.workload.rl;
  const int64_t expected_samples = rl.prompts_per_rollout * rl.samples_per_prompt;
  RlScoreReport report;
  report.inputs = inputs;
  std::vector<double> step_times;
  double total_samples = 0;
  double total_tokens = 0;
  double total_time = 0;
  RlPhaseSplit seconds;
  bool tokens_from_log = false;
  bool tokens_from_recipe = false;
  bool samples_from_recipe = false;
  bool without_rollout_time = false;
  bool phases_exceed = false;
  for (const runlog::RunLog& log : runs) {
    RlRunScore run;
    run.path = log.path;
    run.format = log.format;
    run.first_timestamp = log.first_timestamp;
    run.rollouts = std::count_if(log.rollouts.begin(), log.rollouts.end(), timed);
    run.window = window ? *window : default_rl_window(log);
    for (int64_t id = run.window.first; id <= run.window.last; ++id) {
      const auto it = std::find_if(log.rollouts.begin(), log.rollouts.end(),
                                   [id](const Rollout& r) { return r.rollout == id; });
      if (it == log.rollouts.end() || !timed(*it)) {
        throw_input(at(log.path, it == log.rollouts.end() ? 0 : it->line, "perf/step_time"),
                    "rollout {} (in the window {}:{}) has no trainer perf line with perf/step_time", id,
                    run.window.first, run.window.last);
      }
      const Rollout& r = *it;
      const double step = *r.step_time_s;
      if (!std::isfinite(step) || step <= 0) {
        throw_input(at(log.path, r.line, "perf/step_time"), "rollout {}: step time {} s is not a positive number", id,
                    step);
      }
      if (r.train_steps > 0 && r.train_steps != rl.steps_per_rollout) {
        throw_input(at(log.path, r.line, "workload.rl.steps_per_rollout"),
                    "rollout {} has {} step lines but the recipe's RL workload has {} steps per rollout: the log is "
                    "not a run of this recipe",
                    id, r.train_steps, rl.steps_per_rollout);
      }
      int64_t samples = expected_samples;
      if (r.samples) {
        if (*r.samples != expected_samples) {
          throw_input(at(log.path, r.line, "train/global_batch_size"),
                      "rollout {} trained {} samples (train/global_batch_size over its steps) but the recipe's RL "
                      "workload has {} prompts x {} samples = {}: the log is not a run of this recipe",
                      id, *r.samples, rl.prompts_per_rollout, rl.samples_per_prompt, expected_samples);
        }
        samples = *r.samples;
      } else {
        samples_from_recipe = true;
      }
      double tokens = 0;
      if (r.total_length_mean) {
        tokens = static_cast<double>(samples) * *r.total_length_mean;
        tokens_from_log = true;
      } else if (rl.prompt_mean_tokens && rl.response_mean_tokens) {
        tokens = static_cast<double>(samples) * (*rl.prompt_mean_tokens + *rl.response_mean_tokens);
        tokens_from_recipe = true;
      } else {
        throw_input(at(log.path, r.line, "rollout/total_lengths"),
                    "rollout {} prints no rollout/total_lengths and the recipe's RL workload has no "
                    "prompt_mean_tokens and response_mean_tokens: trained tokens unknown",
                    id);
      }
      const std::pair<const char*, std::optional<double>> phases[] = {
          {"perf/rollout_time", r.rollout_time_s},         {"perf/log_probs_time", r.log_probs_time_s},
          {"perf/ref_log_probs_time", r.ref_log_probs_time_s}, {"perf/actor_train_time", r.actor_train_time_s},
          {"perf/update_weights_time", r.update_weights_time_s}, {"rollout/total_lengths", r.total_length_mean}};
      for (const auto& [key, value] : phases) {
        if (value && !(std::isfinite(*value) && *value >= 0)) {
          throw_input(at(log.path, r.line, key), "rollout {}: {} is {}, not a finite number >= 0", id, key, *value);
        }
      }
      const double log_prob = r.log_probs_time_s.value_or(0) + r.ref_log_probs_time_s.value_or(0);
      const double train = r.actor_train_time_s.value_or(0);
      const double update = r.update_weights_time_s.value_or(0);
      if (!r.rollout_time_s) without_rollout_time = true;
      const double left = step - log_prob - train - update;
      if (left < 0) phases_exceed = true;
      const double rollout = std::min(r.rollout_time_s.value_or(0), std::max(0.0, left));
      seconds.rollout += rollout;
      seconds.log_prob += log_prob;
      seconds.train += train;
      seconds.weight_update += update;
      seconds.other += std::max(0.0, left - rollout);
      ++run.window_rollouts;
      run.window_samples += samples;
      run.window_tokens += tokens;
      run.window_time_s += step;
      step_times.push_back(step);
    }
    total_samples += static_cast<double>(run.window_samples);
    total_tokens += run.window_tokens;
    total_time += run.window_time_s;
    report.runs.push_back(std::move(run));
  }
  report.samples_per_s = total_samples / total_time;
  report.trained_tokens_per_s_per_gpu = total_tokens / total_time / static_cast<double>(inputs.gpus);
  report.phase_split = RlPhaseSplit{seconds.rollout / total_time, seconds.log_prob / total_time,
                                    seconds.train / total_time, seconds.weight_update / total_time,
                                    seconds.other / total_time};
  double sum = 0;
  for (double t : step_times) sum += t;
  report.step_time_mean_s = sum / static_cast<double>(step_times.size());
  if (step_times.size() >= 2) {
    double squares = 0;
    for (double t : step_times) squares += (t - report.step_time_mean_s) * (t - report.step_time_mean_s);
    report.step_time_cv_percent =
        100.0 * std::sqrt(squares / static_cast<double>(step_times.size() - 1)) / report.step_time_mean_s;
  } else {
    report.notes.push_back("one rollout in the window: no step-time CV");
  }
  if (inputs.active_params && inputs.peak_tflops) {
    report.mfu = kFlopsPerParamPerToken * static_cast<double>(*inputs.active_params) *
                 report.trained_tokens_per_s_per_gpu / (*inputs.peak_tflops * 1e12);
  } else {
    report.notes.push_back("no N or no peak for the GPU: no MFU");
  }
  double spans = 0;
  bool every_span = true;
  for (const runlog::RunLog& log : runs) {
    if (log.span_s) {
      spans += *log.span_s;
    } else {
      every_span = false;
    }
  }
  if (every_span) {
    report.gpu_hours = static_cast<double>(inputs.gpus) * spans / kSecondsPerHour;
  } else {
    report.notes.push_back("a log has no timestamps: no GPU-hours");
  }
  if (inputs.usd_per_gpu_hour) {
    report.usd_per_million_trained_tokens =
        *inputs.usd_per_gpu_hour / (report.trained_tokens_per_s_per_gpu * kSecondsPerHour) * 1e6;
  } else {
    report.notes.push_back("no price: pass --price USD_PER_GPU_HOUR or name a catalog instance in gpu.instance");
  }
  std::vector<std::string> sources;
  if (tokens_from_log) sources.emplace_back("samples x the rollout line's rollout/total_lengths");
  if (tokens_from_recipe) sources.emplace_back("samples x the recipe's prompt_mean_tokens + response_mean_tokens");
  report.tokens_source = util::join(sources, "; ");
  if (samples_from_recipe) {
    report.notes.push_back("a rollout has no step lines with train/global_batch_size: its samples are the recipe's "
                           "prompts x samples per prompt");
  }
  if (without_rollout_time) {
    report.notes.push_back("a rollout has no perf/rollout_time (the rollout manager's perf line): its generation "
                           "counts as other");
  }
  if (phases_exceed) {
    report.notes.push_back("in a rollout, log-prob + train + weight update exceed perf/step_time: the split sums "
                           "to more than 1");
  }
  return report;
}

RecipeResult update_rl_result(const std::optional<RecipeResult>& result, const RlScoreReport& report) {
  RecipeResult out = result.value_or(RecipeResult{});
  RlResult rl;
  rl.samples_per_s = round_to(report.samples_per_s, 2);
  rl.trained_tokens_per_s_per_gpu = round_to(report.trained_tokens_per_s_per_gpu, 2);
  if (report.usd_per_million_trained_tokens) {
    rl.usd_per_million_trained_tokens = round_to(*report.usd_per_million_trained_tokens, 2);
  }
  rl.step_time_s = round_to(report.step_time_mean_s, 3);
  const RlPhaseSplit& p = report.phase_split;
  rl.phase_split = RlPhaseSplit{round_to(p.rollout, 4), round_to(p.log_prob, 4), round_to(p.train, 4),
                                round_to(p.weight_update, 4), round_to(p.other, 4)};
  out.rl = rl;
  out.tokens_per_s_per_gpu = rl.trained_tokens_per_s_per_gpu;
  out.usd_per_million_tokens = rl.usd_per_million_trained_tokens;
  if (report.step_time_cv_percent) out.step_time_cv_percent = round_to(*report.step_time_cv_percent, 2);
  if (report.mfu) {
    out.mfu = round_to(*report.mfu, 4);
    out.mfu_note = "RL: 6 N x trained tokens/s per GPU / dense BF16 peak, over the whole RL step (generation and "
                   "log-prob passes not counted)";
  }
  if (report.gpu_hours) {
    out.gpu_hours = round_significant(*report.gpu_hours, 3);
    out.gpu_hours_note = "GPUs x (first to last timestamp of the log)";
  }
  const RlRunScore& first = report.runs.front();
  if (first.first_timestamp) out.measured = first.first_timestamp->substr(0, 10);
  out.window = {first.window.first, first.window.last};
  out.steps_per_run = std::max<int64_t>(first.rollouts, 1);
  out.window_tokens = static_cast<int64_t>(std::llround(first.window_tokens));
  out.runs = static_cast<int64_t>(report.runs.size());
  return out;
}

}  // namespace ladle::verify
