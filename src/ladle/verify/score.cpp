#include "ladle/verify/score.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "ladle/hw/catalog.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/model/params.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/rounding.hpp"
#include "ladle/util/text.hpp"

namespace ladle::verify {

namespace {

using util::round_to;
using util::round_significant;

// MFU counts 6 FLOPs per parameter per token (forward 2, backward 4), models/README.md.
constexpr double kFlopsPerParamPerToken = 6.0;
constexpr double kSecondsPerHour = 3600.0;
// The share of logged steps treated as warm-up by the default window.
constexpr int64_t kWarmupDivisor = 4;

SourceLocation at_line(const std::string& path, int line) { return SourceLocation{path, line, 0, ""}; }

}  // namespace

StepWindow default_window(const runlog::RunLog& log) {
  const auto n = static_cast<int64_t>(log.steps.size());
  if (n < 2) {
    throw_input(SourceLocation{log.path, 0, 0, ""},
                "{} record{}: nothing is left after warm-up; pass --window A:B", n, n == 1 ? "" : "s");
  }
  const int64_t skip = (n + kWarmupDivisor - 1) / kWarmupDivisor;
  return StepWindow{log.steps[static_cast<size_t>(skip)].step, log.steps.back().step};
}

StepWindow parse_window(std::string_view text) {
  const size_t colon = text.find(':');
  StepWindow window;
  const auto whole = [](std::string_view s, int64_t& out) {
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && ptr == s.data() + s.size() && !s.empty() && out >= 0;
  };
  if (colon == std::string_view::npos || !whole(text.substr(0, colon), window.first) ||
      !whole(text.substr(colon + 1), window.last) || window.first > window.last) {
    throw_usage("--window '{}': expected A:B with whole steps A <= B, e.g. 4:13", text);
  }
  return window;
}

ScoreInputs score_inputs_from_recipe(const Recipe& recipe, const std::string& recipe_path,
                                     std::optional<double> price) {
  ScoreInputs inputs;
  const auto need = [&](int64_t value, const char* field) {
    if (value <= 0) throw_input(SourceLocation{recipe_path, 0, 0, field}, "must be a positive number to score a run");
    return value;
  };
  inputs.gpus = need(recipe.gpu.count, "gpu.count");
  inputs.row_tokens = need(recipe.workload.row_tokens, "workload.row_tokens");
  inputs.global_batch = need(recipe.workload.global_batch, "workload.global_batch");
  inputs.gpu_name = recipe.gpu.type;
  if (recipe.result && recipe.result->active_params.count > 0) {
    inputs.active_params = recipe.result->active_params.count;
    inputs.active_params_source = recipe.result->active_params.source;
  } else if (const auto model = model::find_model(recipe.model)) {
    // A planned recipe carries no result yet: N is its model's (the same count `ladle check` R10
    // holds a result to).
    inputs.active_params = model::active_params(*model);
    inputs.active_params_source = model->source;
  } else if (recipe.predicted && recipe.predicted->active_params && recipe.predicted->active_params->count > 0) {
    // A model given as a config.json path: the N the planner counted from it, kept in the recipe.
    inputs.active_params = recipe.predicted->active_params->count;
    inputs.active_params_source = recipe.predicted->active_params->source;
  }
  if (const auto gpu = hw::find_gpu(recipe.gpu.type)) {
    inputs.peak_tflops = gpu->bf16_dense_tflops;
  } else if (recipe.predicted && recipe.predicted->peak_tflops && *recipe.predicted->peak_tflops > 0) {
    inputs.peak_tflops = recipe.predicted->peak_tflops;  // the peak the planner priced the GPU at
  }
  if (price) {
    if (!(*price > 0) || !util::is_finite_number(*price)) {
      throw_usage("--price {}: expected a positive, finite number of dollars per GPU-hour", *price);
    }
    inputs.usd_per_gpu_hour = price;
    inputs.price_source = "--price";
  } else if (!recipe.gpu.instance.empty()) {
    if (const auto instance = hw::find_instance(recipe.gpu.instance)) {
      inputs.usd_per_gpu_hour = instance->usd_per_gpu_hour();
      inputs.price_source = fmt::format("{} {} on-demand, {} ({})", instance->provider, instance->name,
                                        instance->price_region, instance->price_date);
    }
  }
  return inputs;
}

ScoreReport score_runs(const std::vector<runlog::RunLog>& runs, const ScoreInputs& inputs,
                       std::optional<StepWindow> window) {
  LADLE_ASSERT(!runs.empty(), "score_runs needs a run");
  ScoreReport report;
  report.inputs = inputs;
  std::vector<double> window_times;
  bool tokens_from_log = false;
  bool tokens_from_rows = false;
  bool tokens_from_batch = false;
  bool every_span = true;
  double spans = 0;
  for (const runlog::RunLog& log : runs) {
    // A diverged run is not scored, whatever its speed.
    for (const Step& step : log.steps) {
      if (step.loss && !std::isfinite(*step.loss)) {
        throw_input(at_line(log.path, step.line), "step {}: loss is {}: a diverged run is not scored", step.step,
                    *step.loss);
      }
    }
    RunScore run;
    run.path = log.path;
    run.format = log.format;
    run.steps_per_run = log.steps.back().step - log.steps.front().step + log.steps.front().iterations;
    run.window = window ? *window : default_window(log);
    run.span_s = log.span_s;
    run.first_timestamp = log.first_timestamp;
    const int64_t first_step = log.steps.front().step;
    const int64_t last_step = log.steps.back().step;
    if (run.window.first < first_step || run.window.last > last_step) {
      throw_input(SourceLocation{log.path, 0, 0, ""}, "window {}:{} is outside the run (steps {}-{})",
                  run.window.first, run.window.last, first_step, last_step);
    }
    // The window is the records whose step lies in [first, last]; both ends must be records and
    // the records between them must follow each other without a gap.
    std::optional<Step> previous;  // a copy: a series gives each record by value
    for (const Step& step : log.steps) {
      if (step.step < run.window.first || step.step > run.window.last) continue;
      if (!previous && step.step != run.window.first) {
        throw_input(SourceLocation{log.path, 0, 0, ""}, "step {} (the window's first) is not a record of the log",
                    run.window.first);
      }
      if (previous && step.step - step.iterations != previous->step) {
        throw_input(at_line(log.path, step.line), "steps {}-{} are missing from the window {}:{}", previous->step + 1,
                    step.step - step.iterations, run.window.first, run.window.last);
      }
      previous = step;
      if (!step.step_time_s) {
        throw_input(at_line(log.path, step.line), "step {} has no step time", step.step);
      }
      if (!std::isfinite(*step.step_time_s) || *step.step_time_s <= 0) {
        throw_input(at_line(log.path, step.line), "step {}: step time {} s is not a positive number", step.step,
                    *step.step_time_s);
      }
      int64_t tokens = 0;
      if (step.tokens) {
        tokens = *step.tokens;
        tokens_from_log = true;
      } else if (step.samples) {
        if (*step.samples != inputs.global_batch * step.iterations) {
          throw_input(at_line(log.path, step.line),
                      "step {} consumed {} rows but the recipe's global batch is {} (x {} iteration{}): the log "
                      "is not a run of this recipe",
                      step.step, *step.samples, inputs.global_batch, step.iterations, step.iterations == 1 ? "" : "s");
        }
        tokens = *step.samples * inputs.row_tokens;
        tokens_from_rows = true;
      } else {
        tokens = inputs.global_batch * step.iterations * inputs.row_tokens;
        tokens_from_batch = true;
      }
      ++run.window_records;
      run.window_iterations += step.iterations;
      run.window_tokens += tokens;
      run.window_time_s += *step.step_time_s * static_cast<double>(step.iterations);
      window_times.push_back(*step.step_time_s);
    }
    if (!previous || previous->step != run.window.last) {
      throw_input(SourceLocation{log.path, 0, 0, ""}, "step {} (the window's last) is not a record of the log",
                  run.window.last);
    }
    report.window_tokens += run.window_tokens;
    report.window_time_s += run.window_time_s;
    if (log.span_s) {
      spans += *log.span_s;
    } else {
      every_span = false;
    }
    if (log.log_interval > 1) {
      report.notes.push_back(fmt::format("{}: one record every {} steps; step times are interval averages, so the CV "
                                         "is of averages",
                                         log.path, log.log_interval));
    }
    report.runs.push_back(std::move(run));
  }
  const auto gpus = static_cast<double>(inputs.gpus);
  report.tokens_per_s_per_gpu = static_cast<double>(report.window_tokens) / report.window_time_s / gpus;
  double sum = 0;
  for (double t : window_times) sum += t;
  report.step_time_mean_s = sum / static_cast<double>(window_times.size());
  if (window_times.size() >= 2) {
    double squares = 0;
    for (double t : window_times) squares += (t - report.step_time_mean_s) * (t - report.step_time_mean_s);
    const double sample_sd = std::sqrt(squares / static_cast<double>(window_times.size() - 1));
    report.step_time_cv_percent = 100.0 * sample_sd / report.step_time_mean_s;
  } else {
    report.notes.push_back("one step in the window: no step-time CV");
  }
  if (inputs.active_params && inputs.peak_tflops) {
    report.mfu = kFlopsPerParamPerToken * static_cast<double>(*inputs.active_params) * report.tokens_per_s_per_gpu /
                 (*inputs.peak_tflops * 1e12);
  } else {
    report.notes.push_back(inputs.active_params ? fmt::format("GPU '{}' is not in the catalog: no MFU", inputs.gpu_name)
                                                : "the recipe has no result.active_params.count nor predicted.active_params "
                                                  "(N) and its model is not in the catalog: no MFU");
  }
  if (inputs.usd_per_gpu_hour) {
    report.usd_per_million_tokens = *inputs.usd_per_gpu_hour / (report.tokens_per_s_per_gpu * kSecondsPerHour) * 1e6;
  } else {
    report.notes.push_back("no price: pass --price USD_PER_GPU_HOUR or name a catalog instance in gpu.instance");
  }
  if (every_span) {
    report.gpu_hours = gpus * spans / kSecondsPerHour;
  } else {
    report.notes.push_back("a log has no timestamps: no GPU-hours");
  }
  std::vector<std::string> sources;
  if (tokens_from_log) sources.emplace_back("tokens printed in the log");
  if (tokens_from_rows) sources.emplace_back("rows printed in the log x the recipe's row_tokens");
  if (tokens_from_batch) sources.emplace_back("the recipe's global_batch x row_tokens per step");
  report.tokens_source = util::join(sources, "; ");
  double peak = 0;
  for (const runlog::RunLog& log : runs) peak = std::max(peak, runlog::peak_reserved_gib(log.memory));
  if (peak > 0) report.peak_memory_gib = peak;
  return report;
}

RecipeResult update_result(const std::optional<RecipeResult>& result, const ScoreReport& report) {
  RecipeResult out = result.value_or(RecipeResult{});
  if (out.active_params.count <= 0 && report.inputs.active_params) {
    out.active_params.count = *report.inputs.active_params;
    out.active_params.source = report.inputs.active_params_source;
  }
  out.tokens_per_s_per_gpu = round_to(report.tokens_per_s_per_gpu, 2);
  if (report.usd_per_million_tokens) out.usd_per_million_tokens = round_to(*report.usd_per_million_tokens, 2);
  if (report.step_time_cv_percent) out.step_time_cv_percent = round_to(*report.step_time_cv_percent, 2);
  if (report.mfu) out.mfu = round_to(*report.mfu, 4);
  const RunScore& first = report.runs.front();
  if (first.first_timestamp) out.measured = first.first_timestamp->substr(0, 10);
  out.steps_per_run = first.steps_per_run;
  out.window = {first.window.first, first.window.last};
  out.window_tokens = first.window_tokens;
  out.runs = static_cast<int64_t>(report.runs.size());
  if (report.gpu_hours) {
    out.gpu_hours = round_significant(*report.gpu_hours, 3);
    if (!out.gpu_hours_note) out.gpu_hours_note = "GPUs x (first to last timestamp of the log)";
  }
  if (report.peak_memory_gib) out.peak_memory_gib = round_to(*report.peak_memory_gib, 2);
  return out;
}

}  // namespace ladle::verify
