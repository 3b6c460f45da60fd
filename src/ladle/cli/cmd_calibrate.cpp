// cmd_calibrate.cpp: `ladle calibrate`, fits the time model's free constants to measured recipes.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <ostream>
#include <string>

#include "ladle/args/launch_args.hpp"
#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/cli/launch_options.hpp"
#include "ladle/cli/scenario_options.hpp"
#include "ladle/layout/job_args.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/measurements.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/report_render.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/runlog/run_log.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/text.hpp"
#include "ladle/verify/score.hpp"

namespace ladle::cli {
namespace {

struct CalibrateOptions {
  std::vector<std::string> recipes;
  std::vector<std::string> measurements;
  std::string out;
  std::string prior;
  bool json = false;
  // The user's own runs: --log LOG --script SCRIPT pairs (in order) on one cluster.
  std::vector<std::string> logs;
  std::vector<std::string> scripts;
  /// What the runs ran on (--model, --gpu, --gpus, --instance, --cluster), whose defaults their
  /// scripts take (--engine), and the workload where a script gives none (--row-tokens, default
  /// 8192 as in predict; --global-batch): the shared options (scenario_options.hpp).
  ScenarioFlags scenario;
  bool own_only = false;
};

// One of the user's runs: the launch script read as `ladle predict --script` reads it, the log
// scored as `ladle score` scores it (the default window: the first quarter is warm-up).
plan::Measurement own_run(const CalibrateOptions& o, const std::string& log_path, const std::string& script,
                          std::ostream& err) {
  plan::Measurement m;
  m.name = log_path;
  m.source = "own runs";
  m.model = model::load_model(o.scenario.model);
  m.cluster = plan::make_cluster(o.scenario.hardware(), o.scenario.gpu_count);
  // The job through the one --args/--script policy (read_job): bash runs the script in the
  // sandbox, as predict --script runs it (the static reader where the sandbox cannot start, said
  // on one line); a launch that sets nothing is refused, not priced from ladle's defaults.
  ScenarioFlags flags = o.scenario;
  flags.script = script;
  const Job job = *read_job(flags, m.cluster.gpus_per_node(), err);
  check_job_model(job.args, m.model);
  // A run's tokens per step are what its log is scored by: a batch neither the script nor the
  // options give is refused, not taken from predict's default.
  if (!job.args.global_batch && !flags.global_batch) {
    throw Error(ErrorKind::input, "expected --global-batch-size in the launch arguments (or give --global-batch)",
                SourceLocation{script, 0, 0, "args"});
  }
  // The job's workload over the options', as in predict: an option that contradicts it is an error.
  m.workload.row_tokens = flags.row_tokens.value_or(8192);
  m.workload.global_batch = flags.global_batch.value_or(0);
  apply_job_workload(job.args, GivenWorkload{flags.row_tokens, flags.global_batch, std::nullopt}, m.workload);
  m.workload.flash_attention_2 = plan::selects_flash_attention_backend(job.launch.launch);
  const layout::LayoutContext context = m.context();
  m.layout = layout::resolve_layout(layout::job_layout(job.args, m.workload.row_tokens, m.model), context);
  require_valid_job_layout(m.layout, m.model, context, job.launch.launch, script);
  m.price_model();
  verify::ScoreInputs inputs;
  inputs.gpus = m.cluster.gpus;
  inputs.row_tokens = m.workload.row_tokens;
  inputs.global_batch = m.workload.global_batch;
  inputs.gpu_name = m.cluster.gpu.name;
  const std::vector<runlog::RunLog> logs{runlog::read_log_file(log_path)};
  m.measured_tokens_per_s_per_gpu = verify::score_runs(logs, inputs, std::nullopt).tokens_per_s_per_gpu;
  return m;
}

int run_calibrate(const CalibrateOptions& o, Io& io) {
  // With no arguments: the embedded public training set (data/measurements/, the catalog's
  // measured recipes included); otherwise the recipes and measurement files given.
  if (o.logs.size() != o.scripts.size()) {
    throw_usage("give one --script per --log (got {} logs and {} scripts)", o.logs.size(), o.scripts.size());
  }
  const ScenarioFlags& f = o.scenario;
  if (!o.logs.empty() && (f.model.empty() || (f.gpu.empty() && f.cluster.empty()) || f.gpu_count < 1)) {
    throw_usage("--log/--script need --model, --gpu (or --cluster) and --gpus: what the runs ran on");
  }
  if (o.own_only && o.logs.empty()) throw_usage("--own-only needs --log/--script pairs");
  check_workload_bounds(f);
  std::vector<plan::Measurement> measurements;
  if (o.own_only) {
    // Only the user's own runs.
  } else if (o.recipes.empty() && o.measurements.empty()) {
    measurements = plan::embedded_measurements().runs;
  } else {
    for (const std::string& name : o.recipes) {
      measurements.push_back(plan::measurement_from_recipe(recipe::find_recipe(name)));
    }
    plan::MeasurementSet set;
    for (const std::string& path : o.measurements) plan::merge_measurements(set, plan::read_measurements_path(path));
    for (plan::Measurement& m : set.runs) measurements.push_back(std::move(m));
  }
  for (size_t i = 0; i < o.logs.size(); ++i) measurements.push_back(own_run(o, o.logs[i], o.scripts[i], io.err));
  // Fit from the built-in priors (not from a previous fit), so that refitting is reproducible.
  const plan::Calibration prior = o.prior.empty() ? plan::Calibration{} : plan::read_calibration_file(o.prior);
  plan::CalibrationFit fit = plan::fit_calibration(measurements, prior);
  const std::string from = o.prior.empty() ? std::string("the built-in priors")
                                            : fmt::format("the priors of {} (held-out runs it was fitted on: the built-in "
                                                          "priors)",
                                                          o.prior);
  fit.calibration.fitted_note = fmt::format(
      "fitted by `ladle calibrate` from {}: bounded soft-L1 regression (scale 0.2, the interval half-width) on "
      "log(predicted / measured) tokens/s per GPU over the runs above, with a weak pull to the priors (NLopt BOBYQA in "
      "log space); the interval half-width from the leave-one-source-out residuals",
      from);
  io.out << (o.json ? plan::fit_json(fit) : util::terminal_safe(plan::render_fit(fit)));
  if (!o.out.empty()) {
    util::write_file_atomic(
        o.out, plan::write_calibration(
                   fit.calibration,
                   {"Calibration of ladle's time model, written by `ladle calibrate` on the public training set",
                    "of data/measurements/. Fitted constants are dimensionless fractions of published peaks, a",
                    "host Adam rate and per-layer sync costs, each within a physical range; fixed ones come from",
                    "public measurements named beside them. Refit: ladle calibrate --out data/calibration.yaml"}));
    if (!o.json) io.out << "\nwrote " << o.out << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_calibrate_command(CLI::App& command, Io& io) {
  auto options = std::make_shared<CalibrateOptions>();
  command.add_option("recipes", options->recipes,
                     "measured recipes (files or catalog names); default: the embedded training set");
  command.add_option("--measurements", options->measurements,
                     "measurement files or folders (data/measurements format) to fit on");
  command.add_option("--out", options->out, "write the fitted calibration YAML here");
  command.add_option("--prior", options->prior, "calibration YAML to start from (default: built-in priors)");
  command.add_option("--log", options->logs, "a log of one of your own runs (with --script, and --model, --gpu and --gpus: what the runs ran on; repeatable)");
  command.add_option("--script", options->scripts, "the launch script of that run (one per --log, in order)");
  // What the runs ran on (with --log): the shared options.
  add_model_option(command, options->scenario);
  add_cluster_options(command, options->scenario, GpuCounts::one);
  add_engine_option(command, options->scenario, "");
  // Several scripts share these, so their help says how each script's own value wins.
  command.add_option("--row-tokens", options->scenario.row_tokens,
                     "tokens per row where a script has no --seq-length (default 8192; refused where it contradicts "
                     "one)");
  command.add_option("--global-batch", options->scenario.global_batch,
                     "rows per step where a script has no --global-batch-size (refused where it contradicts one)");
  command.add_flag("--own-only", options->own_only, "fit on your own runs alone (default: with the training set)");
  add_json_flag(command, options->json);
  command.callback([options, &io] { io.exit_code = run_calibrate(*options, io); });
}

}  // namespace ladle::cli
