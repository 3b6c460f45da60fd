// cmd_predict.cpp: `ladle predict`, the memory and step time of one layout.
#include <algorithm>
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/cli/launch_options.hpp"
#include "ladle/cli/scenario_options.hpp"
#include "ladle/launch/planned_recipe.hpp"
#include "ladle/layout/job_args.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/cost_colocate.hpp"
#include "ladle/plan/cost_gemm_shape.hpp"
#include "ladle/plan/partial_layout.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/report_render.hpp"
#include "ladle/plan/stack.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {
namespace {

struct PredictOptions {
  std::string recipe;
  ScenarioFlags scenario;  ///< --model, --gpu, --gpus, --row-tokens, --args/--script, ... (scenario_options.hpp)
  std::string layout;
  std::string emit;
  std::string base;
  bool slurm = false;
  bool json = false;
};

// Megatron-LM rejects a pipeline the layers do not split over (megatron/training/arguments.py
// validate_args; transformer_config.py for uneven stages): one line naming the argument, with the
// split the planner predicts best as the arguments that give it.
void require_job_split(const plan::Measurement& m, const args::LaunchArgs& launch, const std::string& file) {
  const Layout& l = m.layout;
  if (l.pp < 2 || layout::has_split(l) || !layout::virtual_stage_layers(l, m.model.num_layers).empty()) return;
  const bool pp_divides = m.model.num_layers % l.pp == 0;
  const layout::Knob* knob = layout::find_knob(pp_divides ? "vpp" : "pp");
  const SourceLocation where = knob_argument(launch, knob->key, file, knob->args.front().flag);
  const std::optional<Prediction> best =
      plan::best_split(l, m);
  const std::string what =
      pp_divides ? fmt::format("{} does not divide the {} layers of each of the {} pipeline stages", l.vpp,
                               m.model.num_layers / l.pp, l.pp)
                 : fmt::format("{} does not divide {} layers", l.pp, m.model.num_layers);
  // No valid split: another rule is broken too, and find_layout_violation names the first.
  if (!best) return;
  throw_input(where, "{}; try {}", what, layout::split_arguments(best->layout));
}

int run_predict(const PredictOptions& o, Io& io) {
  const ScenarioFlags& f = o.scenario;
  plan::Measurement m;
  double measured = 0;
  std::optional<std::vector<std::string>> not_priced;
  std::vector<args::LaunchArg> carried;  // the user's arguments that set no knob, for the job
  std::optional<Job> job;                // the user's job, the base of --emit's job
  std::vector<std::string> chosen;       // what a partial spec left out, as filled in
  if (!o.recipe.empty()) {
    if (!f.model.empty() || !o.layout.empty() || !f.gpu.empty() || !f.cluster.empty()) {
      throw_usage("give either --recipe or --model/--gpu/--cluster/--gpus/--layout, not both");
    }
    if (f.has_job()) throw_usage("give either --recipe or --args/--script, not both");
    const recipe::LoadedRecipe loaded = recipe::find_recipe(o.recipe);
    if (loaded.recipe.result) {
      m = plan::measurement_from_recipe(loaded);
      measured = m.measured_tokens_per_s_per_gpu;
    } else {
      m = plan::run_from_recipe(loaded);  // planned: nothing measured to compare with
    }
    m.calibration = flag_calibration(f);
    if (f.price) plan::override_price(m.cluster, *f.price);
    m.sources.push_back({"layout", layout::layout_label(m.layout), "the recipe " + o.recipe});
    m.sources.push_back({"workload", fmt::format("{} x {} {}", m.workload.row_tokens, m.workload.global_batch,
                                                 plan::to_string(m.workload.precision)),
                         "the recipe " + o.recipe});
  } else {
    const bool from_args = f.has_job();
    if (f.model.empty() && f.script.empty()) {
      throw_usage("predict needs --recipe, or --model with --gpu, --gpus and --layout (or --args/--script)");
    }
    if (f.gpu.empty() && f.cluster.empty()) throw_usage("predict needs --gpu (e.g. h200) or --cluster FILE");
    if (f.gpu_count < 1) throw_usage("predict needs --gpus, the number of GPUs (at least 1)");
    if (!f.args.empty() && !f.script.empty()) throw_usage("give --args or --script, not both");
    if (from_args && !o.layout.empty()) throw_usage("give --layout or --args/--script, not both");
    if (!from_args && o.layout.empty()) {
      throw_usage("predict needs --layout, e.g. 'tp=1,ep=8,recompute=full', or the job's own --args/--script");
    }
    check_workload_bounds(f);
    plan::Cluster cluster = plan::make_cluster(f.hardware(), f.gpu_count);
    // The job's own launch: --args as text, --script as bash runs it (the model may come from its
    // architecture arguments when --model is absent).
    job = read_job(f, cluster.gpus_per_node(), io.err);
    plan::Scenario given;
    given.model = scenario_model(f, job, given.sources);
    given.cluster = std::move(cluster);
    given.workload = plan::Workload{f.row_tokens.value_or(8192), f.global_batch.value_or(128),
                                    plan::parse_precision(f.precision.value_or("bf16"))};
    static_cast<plan::Scenario&>(m) = make_scenario(f, std::move(given), job);
    const layout::LayoutContext context = m.context();
    if (job) {
      const std::string& file = job->launch.file;
      const args::LaunchArgs& launch = job->launch.launch;
      carried = layout::training_args(launch);
      not_priced = job->args.not_priced;
      // The job's own arguments run as Megatron-LM would run them: nothing is filled in.
      m.layout = layout::resolve_layout(layout::job_layout(job->args, m.workload.row_tokens, m.model), context);
      require_job_split(m, launch, file);
      require_valid_job_layout(m.layout, m.model, context, launch, file);
      for (plan::ValueSource& v : job_sources(launch, job->args, m.layout, file)) m.sources.push_back(std::move(v));
      add_workload_sources(m, f, "ladle's default");
      std::string other = "Megatron-LM's default";
      if (job->args.engine != layout::Engine::megatron) {
        other = fmt::format("{}'s default", layout::to_string(job->args.engine));
      }
      m.sources.push_back({"other knobs", "", other});
    } else {
      const plan::CompletedLayout completed =
          plan::complete_layout(layout::parse_partial_layout_spec(o.layout), m);
      m.layout = completed.layout;
      chosen = completed.chosen;
      m.sources.push_back({"layout", layout::layout_label(m.layout), "--layout (the rest: chose)"});
      add_workload_sources(m, f, "ladle's default");
    }
    if (auto violation = layout::find_layout_violation(m.layout, m.model, context)) {
      throw Error(ErrorKind::input, *violation, SourceLocation{"", 0, 0, "layout"});
    }
  }
  plan::apply_stack(m, f.stack, m.sources);
  const Prediction p = plan::predict(m.costs, m.model, m.layout, m.cluster, m.workload, m.calibration);
  // The job's own engine unless --engine names another.
  const layout::Engine engine =
      job_engine(f.engine, job ? std::optional<layout::JobArgs>(job->args) : std::nullopt);
  // The job's base: --base, else the recipe predicted when it drives the engine's family, else
  // the catalog's recipe of the model for that family, else ladle's defaults.
  std::string base_name = o.base;
  if (base_name.empty() && !o.recipe.empty()) {
    const launch::Base own = launch::base_from_recipe(recipe::find_recipe(o.recipe), o.recipe);
    const auto& engines = launch::engine_table();
    if (engines.engine(own.engine).family == engines.engine(engine).family) base_name = o.recipe;
  }
  launch::Base base;
  if (job && base_name.empty()) {
    // The user's job is the base: everything that is not a layout knob is the job's, verbatim.
    Workload workload;
    workload.row_tokens = m.workload.row_tokens;
    workload.global_batch = m.workload.global_batch;
    workload.precision = plan::to_string(m.workload.precision);
    base = launch::base_from_job(job->launch.launch, job->args.engine, engine, job->launch.file, workload);
  } else {
    base = launch::resolve_base(base_name, m.model, engine, m.workload.row_tokens, m.workload.global_batch);
    launch::carry_job_args(base, carried, f.script.empty() ? "--args" : f.script);  // errors name the file
  }
  if (!o.emit.empty() && base.from_recipe &&
      (base.workload.row_tokens != m.workload.row_tokens || base.workload.global_batch != m.workload.global_batch)) {
    throw_usage("the workload ({} x {}) differs from the base's ({} x {}, {}); the emitted recipe keeps the base's",
                m.workload.row_tokens, m.workload.global_batch, base.workload.row_tokens, base.workload.global_batch,
                base.name);
  }
  plan::ReportHeader header = plan::report_header(m);
  header.engine = layout::to_string(engine);
  header.not_priced = not_priced;
  header.chosen = chosen;
  header.sources = m.sources;
  header.fit_confidence = plan::verdict_confidence(f.fit_confidence);
  header.precision = plan::priced_precision(p.layout, m.workload);
  header.launch_args = launch_args_for(base, m, engine);
  std::optional<Recipe> recipe;
  if (!o.emit.empty()) {
    recipe = launch::planned_recipe(m, p, engine, base, o.slurm);
  }
  // The header quotes the recipe, the model's config and the user's arguments: escaped.
  io.out << (o.json ? plan::prediction_json(p, header, measured)
                    : util::terminal_safe(plan::render_prediction(p, header, measured)));
  // A colocated slime/miles job: its rollout phase must fit too (plan/cost_colocate.hpp).
  const auto colocated = plan::colocated_rollout_fit(p, p.layout, hw::memory_facts(), m.cluster.gpus_per_node());
  if (colocated) (o.json ? io.err : io.out) << colocated->line;
  if (recipe) {
    write_emitted(o.emit, *recipe);
    if (!o.json) {
      io.out << fmt::format("\nwrote {} ({} job{}, base {}, status planned)\n", o.emit, layout::to_string(engine),
                            o.slurm ? " for sbatch" : "", base.name);
    }
  }
  return p.fits && (!colocated || colocated->fits) ? kExitOk : kExitNo;
}

}  // namespace

void add_predict_command(CLI::App& command, Io& io) {
  auto options = std::make_shared<PredictOptions>();
  ScenarioFlags& f = options->scenario;
  command.add_option("--recipe", options->recipe, "a recipe file or catalog name to predict");
  add_model_option(command, f);
  add_cluster_options(command, f, GpuCounts::one);
  add_price_option(command, f);
  command.add_option("--layout", options->layout, "layout spec, e.g. 'tp=4,pp=4,ep=32,sp=on,recompute=selective'");
  add_job_options(command, f);
  add_workload_options(command, f);
  add_stack_option(command, f);
  add_fit_confidence_option(command, f);
  add_calibration_option(command, f);
  command.add_option("--emit", options->emit, "write the layout as a planned recipe with its job to this file");
  add_engine_option(command, f);
  command.add_option("--base", options->base,
                     "recipe (file or catalog name) the job keeps everything but the layout from (default: --recipe "
                     "when it drives the engine's family, else the catalog recipe of the model for that family, else "
                     "ladle's defaults for the engine)");
  command.add_flag("--slurm", options->slurm, "write the job as an sbatch script (with --emit)");
  add_json_flag(command, options->json);
  command.callback([options, &io] { io.exit_code = run_predict(*options, io); });
}

}  // namespace ladle::cli
