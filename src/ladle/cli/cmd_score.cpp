// cmd_score.cpp: `ladle score`, a run's result figures from its logs; --write puts them into the
// recipe's `result` block.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/runlog/run_log.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/table.hpp"
#include "ladle/util/text.hpp"
#include "ladle/verify/log_identity.hpp"
#include "ladle/verify/rl_score.hpp"
#include "ladle/verify/score.hpp"
#include "ladle/verify/score_json.hpp"

namespace ladle::cli {

namespace {

struct ScoreOptions {
  std::vector<std::string> logs;
  std::string recipe_path;
  std::optional<std::string> window;
  std::optional<double> price;
  std::string format;
  bool json = false;
  bool write = false;
};

void print_json(const verify::ScoreReport& r, const std::string& recipe_path, const std::optional<Predicted>& predicted,
                Io& io) {
  nlohmann::ordered_json out;
  out["recipe"] = recipe_path;
  out.update(verify::to_json(r));
  out["predicted"] = predicted ? verify::prediction_json(*predicted, r.tokens_per_s_per_gpu)
                              : nlohmann::ordered_json(nullptr);
  io.out << out.dump(2) << "\n";
}

void print_table(const verify::ScoreReport& r, const std::string& recipe_path, const std::optional<Predicted>& predicted,
                 Io& io) {
  io.out << fmt::format("recipe: {} ({} GPUs, {})\n", recipe_path, r.inputs.gpus, r.inputs.gpu_name);
  util::Table runs;
  runs.header = {"log", "format", "window", "steps", "tokens", "time (s)"};
  for (const verify::RunScore& run : r.runs) {
    runs.rows.push_back({run.path, runlog::to_string(run.format),
                         fmt::format("{}-{} of {}", run.window.first, run.window.last, run.steps_per_run),
                         fmt::format("{}", run.window_iterations), util::format_grouped(run.window_tokens),
                         fmt::format("{:.3f}", run.window_time_s)});
  }
  io.out << runs.render() << "\n";
  util::Table figures;
  figures.header = {"figure", "value", "how"};
  figures.rows.push_back({"tokens/s per GPU", util::format_grouped(r.tokens_per_s_per_gpu, 2),
                          "window tokens / summed step time / GPUs"});
  figures.rows.push_back({"step-time CV",
                          r.step_time_cv_percent ? fmt::format("{:.2f}%", *r.step_time_cv_percent) : "-",
                          "sample standard deviation (n - 1) / mean of the window's step times"});
  figures.rows.push_back(
      {"MFU", r.mfu ? fmt::format("{:.2f}%", 100 * *r.mfu) : "-",  // a fraction in JSON and the recipe
       r.mfu ? fmt::format("6 x N x tokens/s per GPU / {} TFLOP/s dense BF16; N = {}", *r.inputs.peak_tflops,
                           util::format_grouped(static_cast<long long>(*r.inputs.active_params)))
             : "needs N and the GPU's peak"});
  figures.rows.push_back({"$ per 1M tokens", r.usd_per_million_tokens ? fmt::format("{:.2f}", *r.usd_per_million_tokens) : "-",
                          r.inputs.usd_per_gpu_hour ? fmt::format("at ${:.4f} per GPU-hour ({})", *r.inputs.usd_per_gpu_hour,
                                                                  r.inputs.price_source)
                                                    : "needs a price"});
  figures.rows.push_back({"GPU-hours", r.gpu_hours ? fmt::format("{:.3g}", *r.gpu_hours) : "-",
                          "GPUs x first to last timestamp of each log"});
  figures.rows.push_back({"window tokens", util::format_grouped(r.window_tokens), r.tokens_source});
  figures.rows.push_back({"peak memory GiB", r.peak_memory_gib ? fmt::format("{:.2f}", *r.peak_memory_gib) : "-",
                          r.peak_memory_gib ? "max reserved over every rank's memory lines" : "the logs print no memory lines"});
  if (predicted) {
    // The recipe's prediction beside each measured figure it has.
    figures.header = {"figure", "value", "predicted", "how"};
    const auto interval = predicted->tokens_per_s_per_gpu_low && predicted->tokens_per_s_per_gpu_high
                              ? fmt::format(" ({}-{})", util::format_grouped(*predicted->tokens_per_s_per_gpu_low, 0),
                                            util::format_grouped(*predicted->tokens_per_s_per_gpu_high, 0))
                              : std::string();
    const std::vector<std::string> column = {
        util::format_grouped(predicted->tokens_per_s_per_gpu, 2) + interval,
        "-",
        fmt::format("{:.2f}%", 100 * predicted->mfu),
        fmt::format("{:.2f}", predicted->usd_per_million_tokens),
        "-",
        "-",
        fmt::format("{:.2f}", predicted->memory_gib)};
    for (size_t i = 0; i < figures.rows.size(); ++i) {
      figures.rows[i].insert(figures.rows[i].begin() + 2, i < column.size() ? column[i] : "-");
    }
  }
  io.out << figures.render();
  if (predicted && predicted->tokens_per_s_per_gpu > 0) {
    const double ratio = r.tokens_per_s_per_gpu / predicted->tokens_per_s_per_gpu;
    const bool inside = predicted->tokens_per_s_per_gpu_low && predicted->tokens_per_s_per_gpu_high &&
                        r.tokens_per_s_per_gpu >= *predicted->tokens_per_s_per_gpu_low &&
                        r.tokens_per_s_per_gpu <= *predicted->tokens_per_s_per_gpu_high;
    io.out << fmt::format("measured / predicted tokens/s per GPU: {:.3f}{} (prediction: {})\n", ratio,
                          !predicted->tokens_per_s_per_gpu_low ? ""
                          : inside                             ? ", inside the 80% interval"
                                                               : ", outside the 80% interval",
                          predicted->planner);
  }
  for (const std::string& note : r.notes) io.out << "note: " << note << "\n";
}

void print_rl_json(const verify::RlScoreReport& r, const std::string& recipe_path, Io& io) {
  nlohmann::ordered_json out;
  out["recipe"] = recipe_path;
  out.update(verify::to_json(r));
  io.out << out.dump(2) << "\n";
}

void print_rl_table(const verify::RlScoreReport& r, const std::string& recipe_path, const RlWorkload& rl, Io& io) {
  io.out << fmt::format("recipe: {} ({} GPUs, {}; RL {} {}, {} prompts x {} samples per rollout)\n", recipe_path,
                        r.inputs.gpus, r.inputs.gpu_name, rl.algorithm, rl.mode, rl.prompts_per_rollout,
                        rl.samples_per_prompt);
  util::Table runs;
  runs.header = {"log", "format", "window (rollouts)", "samples", "tokens", "time (s)"};
  for (const verify::RlRunScore& run : r.runs) {
    runs.rows.push_back({run.path, runlog::to_string(run.format),
                         fmt::format("{}-{} of {}", run.window.first, run.window.last, run.rollouts),
                         util::format_grouped(run.window_samples),
                         util::format_grouped(static_cast<long long>(std::llround(run.window_tokens))),
                         fmt::format("{:.3f}", run.window_time_s)});
  }
  io.out << runs.render() << "\n";
  util::Table figures;
  figures.header = {"figure", "value", "how"};
  figures.rows.push_back({"samples/s", util::format_grouped(r.samples_per_s, 2), "window samples / summed step time"});
  figures.rows.push_back({"trained tokens/s per GPU", util::format_grouped(r.trained_tokens_per_s_per_gpu, 2),
                          "window tokens (prompt + response) / summed step time / GPUs"});
  figures.rows.push_back(
      {"$ per 1M trained tokens",
       r.usd_per_million_trained_tokens ? fmt::format("{:.2f}", *r.usd_per_million_trained_tokens) : "-",
       r.inputs.usd_per_gpu_hour
           ? fmt::format("at ${:.4f} per GPU-hour ({})", *r.inputs.usd_per_gpu_hour, r.inputs.price_source)
           : "needs a price"});
  figures.rows.push_back({"step time", fmt::format("{:.3f} s", r.step_time_mean_s), "mean of perf/step_time"});
  figures.rows.push_back({"step-time CV",
                          r.step_time_cv_percent ? fmt::format("{:.2f}%", *r.step_time_cv_percent) : "-",
                          "sample standard deviation (n - 1) / mean of the window's step times"});
  figures.rows.push_back({"MFU", r.mfu ? fmt::format("{:.2f}%", 100 * *r.mfu) : "-",
                          "6 x N x trained tokens/s per GPU / dense BF16 peak (training FLOPs only)"});
  figures.rows.push_back({"GPU-hours", r.gpu_hours ? fmt::format("{:.3g}", *r.gpu_hours) : "-",
                          "GPUs x first to last timestamp of each log"});
  const auto share = [](double f) { return fmt::format("{:.1f}%", 100 * f); };
  figures.rows.push_back({"rollout", share(r.phase_split.rollout), "perf/rollout_time the trainer waits for"});
  figures.rows.push_back({"log-prob", share(r.phase_split.log_prob), "perf/log_probs_time + perf/ref_log_probs_time"});
  figures.rows.push_back({"train", share(r.phase_split.train), "perf/actor_train_time"});
  figures.rows.push_back({"weight update", share(r.phase_split.weight_update), "perf/update_weights_time"});
  figures.rows.push_back({"other", share(r.phase_split.other), "the rest of perf/step_time"});
  io.out << figures.render();
  io.out << fmt::format("tokens: {}\n", r.tokens_source);
  for (const std::string& note : r.notes) io.out << "note: " << note << "\n";
}

void run_score(const ScoreOptions& options, Io& io) {
  std::optional<runlog::LogFormat> forced;
  if (!options.format.empty()) forced = runlog::parse_log_format(options.format);
  std::optional<verify::StepWindow> window;
  if (options.window) window = verify::parse_window(*options.window);  // "" is an error, not the default
  // A catalog name works as well as a path (resolve_recipe in commands.cpp).
  recipe::LoadedRecipe loaded = resolve_recipe(options.recipe_path);
  const std::string write_path = options.write ? resolve_recipe_file(options.recipe_path) : "";
  const verify::ScoreInputs inputs = verify::score_inputs_from_recipe(loaded.recipe, loaded.path, options.price);
  std::vector<runlog::RunLog> logs;
  for (const std::string& path : options.logs) logs.push_back(runlog::read_log_file(path, forced));
  // A log of another model, engine, batch or layout would give figures of another run.
  for (const runlog::RunLog& log : logs) {
    verify::check_log_matches_recipe(log, loaded.recipe, loaded.path, verify::LogIdentity::run);
  }
  const bool rl = std::any_of(logs.begin(), logs.end(), verify::is_rl_log);
  if (rl || loaded.recipe.workload.rl) {
    // An RL run: one rollout is one step (rl_score.hpp).
    for (const runlog::RunLog& log : logs) {
      if (!verify::is_rl_log(log)) {
        throw_input(SourceLocation{log.path, 0, 0, "workload.rl"},
                    "the recipe has an RL workload but the log times no rollout (no rollout manager 'perf N:' line "
                    "with perf/rollout_time, or no trainer one with perf/step_time)");
      }
    }
    const verify::RlScoreReport report = verify::score_rl_runs(logs, loaded.recipe, inputs, window);
    if (options.json) {
      print_rl_json(report, options.recipe_path, io);
    } else {
      print_rl_table(report, options.recipe_path, *loaded.recipe.workload.rl, io);
    }
    if (options.write) {
      recipe::update_recipe_file(write_path,
                                 [&report](Recipe& r) { r.result = verify::update_rl_result(r.result, report); });
      io.err << fmt::format("wrote result to {}\n", write_path);
    }
    io.exit_code = kExitOk;
    return;
  }
  const verify::ScoreReport report = verify::score_runs(logs, inputs, window);
  if (options.json) {
    print_json(report, options.recipe_path, loaded.recipe.predicted, io);
  } else {
    print_table(report, options.recipe_path, loaded.recipe.predicted, io);
  }
  if (options.write) {
    // Re-read under a lock, so a `converge --write` of the same recipe meanwhile is kept.
    recipe::update_recipe_file(write_path, [&report](Recipe& r) { r.result = verify::update_result(r.result, report); });
    io.err << fmt::format("wrote result to {}\n", write_path);
  }
  io.exit_code = kExitOk;
}

}  // namespace

void add_score_command(CLI::App& command, Io& io) {
  auto options = std::make_shared<ScoreOptions>();
  command.add_option("logs", options->logs, "training logs of runs of the recipe (one log per run)")->required();
  command.add_option("--recipe", options->recipe_path, "the recipe the runs ran (GPUs, rows, N, instance)")->required();
  command.add_option("--window", options->window,
                     "steps A:B to measure, inclusive, as the log prints them (default: skip the first quarter)");
  command.add_option("--price", options->price, "dollars per GPU-hour (default: the recipe's instance in the catalog)");
  command.add_option("--log-format", options->format, "read the logs as this format (default: detect)");
  command.add_flag("--write", options->write, "write the figures into the recipe's result block");
  add_json_flag(command, options->json);
  command.callback([options, &io] { run_score(*options, io); });
}

}  // namespace ladle::cli
