// cmd_predict.cpp: `ladle predict`, the memory and step time of one layout.
#include <algorithm>
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/cli/launch_options.hpp"
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
#include "ladle/plan/recipe_writer.hpp"
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
  std::string model;
  std::string gpu;
  int64_t gpus = 0;
  std::string instance;
  std::string cluster;          ///< --cluster: an on-prem cluster file
  std::optional<double> price;  ///< --price: USD per GPU-hour
  std::string layout;
  int64_t row_tokens = 8192;
  int64_t global_batch = 128;
  int64_t image_tokens = 0;  ///< --image-tokens: image tokens per row of a VL model
  std::string precision = "bf16";
  std::string stack;  ///< --stack: the Megatron-Core release (plan/stack.hpp)
  std::optional<double> fit_confidence;  ///< --fit-confidence: the memory verdict's confidence
  std::string calibration;
  std::string args;    ///< a line of training arguments
  std::string script;  ///< a launch script
  ScriptFlags script_flags;  ///< how bash runs the script (--script-arg, --env, --launch)
  /// slime | miles | megatron | bridge: whose defaults --args/--script take (default: guessed from
  /// them), and the job of --emit and the `args` of --json (default megatron)
  std::string engine;
  std::string emit;
  std::string base;
  bool slurm = false;
  bool json = false;
  bool row_tokens_given = false;
  bool global_batch_given = false;
  bool precision_given = false;
};

// The workload a job's own arguments give; options that contradict them are errors (as in plan).
void apply_job(const PredictOptions& o, const layout::JobArgs& job, plan::Measurement& m) {
  GivenWorkload given;
  if (o.row_tokens_given) given.row_tokens = o.row_tokens;
  if (o.global_batch_given) given.global_batch = o.global_batch;
  if (o.precision_given) given.precision = o.precision;
  apply_job_workload(job, given, m.workload);
}

// Megatron-LM rejects a pipeline the layers do not split over (megatron/training/arguments.py
// validate_args; transformer_config.py for uneven stages): one line naming the argument, with the
// split the planner predicts best as the arguments that give it.
void require_job_split(const plan::Measurement& m, const args::LaunchArgs& launch,
                       const plan::Calibration& calibration, const layout::LayoutContext& context,
                       const std::string& file) {
  const Layout& l = m.layout;
  if (l.pp < 2 || layout::has_split(l) || !layout::virtual_stage_layers(l, m.model.num_layers).empty()) return;
  const bool pp_divides = m.model.num_layers % l.pp == 0;
  const layout::Knob* knob = layout::find_knob(pp_divides ? "vpp" : "pp");
  const SourceLocation where = knob_argument(launch, knob->key, file, knob->args.front().flag);
  const std::optional<Prediction> best =
      plan::best_split(l, m.model, m.costs, m.cluster, m.workload, calibration, context);
  const std::string what =
      pp_divides ? fmt::format("{} does not divide the {} layers of each of the {} pipeline stages", l.vpp,
                               m.model.num_layers / l.pp, l.pp)
                 : fmt::format("{} does not divide {} layers", l.pp, m.model.num_layers);
  // No valid split: another rule is broken too, and find_layout_violation names the first.
  if (!best) return;
  throw_input(where, "{}; try {}", what, layout::split_arguments(best->layout));
}

int run_predict(const PredictOptions& o, Io& io) {
  const plan::Calibration calibration =
      o.calibration.empty() ? plan::default_calibration() : plan::read_calibration_file(o.calibration);
  plan::Measurement m;
  double measured = 0;
  std::optional<std::vector<std::string>> not_priced;
  std::vector<args::LaunchArg> carried;  // the user's arguments that set no knob, for the job
  std::optional<JobLaunch> base_job;             // the user's job, the base of --emit's job
  std::optional<layout::JobArgs> base_job_read;  // and its engine
  std::vector<std::string> chosen;         // what a partial spec left out, as filled in
  std::vector<plan::ValueSource> sources;  // where each value came from
  if (!o.recipe.empty()) {
    if (!o.model.empty() || !o.layout.empty() || !o.gpu.empty() || !o.cluster.empty()) {
      throw_usage("give either --recipe or --model/--gpu/--cluster/--gpus/--layout, not both");
    }
    if (!o.args.empty() || !o.script.empty()) {
      throw_usage("give either --recipe or --args/--script, not both");
    }
    const recipe::LoadedRecipe loaded = recipe::find_recipe(o.recipe);
    if (loaded.recipe.result) {
      m = plan::measurement_from_recipe(loaded);
      measured = m.measured_tokens_per_s_per_gpu;
    } else {
      m = plan::run_from_recipe(loaded);  // planned: nothing measured to compare with
    }
    if (o.price) plan::override_price(m.cluster, *o.price);
    sources.push_back({"layout", layout::layout_label(m.layout), "the recipe " + o.recipe});
    sources.push_back({"workload", fmt::format("{} x {} {}", m.workload.row_tokens, m.workload.global_batch,
                                               plan::to_string(m.workload.precision)),
                       "the recipe " + o.recipe});
  } else {
    const bool from_args = !o.args.empty() || !o.script.empty();
    if (o.model.empty() && o.script.empty()) {
      throw_usage("predict needs --recipe, or --model with --gpu, --gpus and --layout (or --args/--script)");
    }
    if (o.gpu.empty() && o.cluster.empty())
      throw_usage("predict needs --gpu (e.g. h200) or --cluster FILE");
    if (o.gpus < 1) throw_usage("predict needs --gpus, the number of GPUs (at least 1)");
    if (!o.args.empty() && !o.script.empty()) throw_usage("give --args or --script, not both");
    if (from_args && !o.layout.empty()) throw_usage("give --layout or --args/--script, not both");
    if (!from_args && o.layout.empty()) {
      throw_usage("predict needs --layout, e.g. 'tp=1,ep=8,recompute=full', or the job's own --args/--script");
    }
    // The bounds plan takes: a row or a step beyond them is no workload anyone trains.
    if (o.row_tokens < 1 || o.row_tokens > limits::kMaxSequenceTokens) {
      throw_usage("--row-tokens must be 1 to {} (the limit of one row), got {}", limits::kMaxSequenceTokens, o.row_tokens);
    }
    if (o.global_batch < 1 || o.global_batch > limits::kMaxGlobalBatchRows) {
      throw_usage("--global-batch must be 1 to {} rows (the limit of one step), got {}", limits::kMaxGlobalBatchRows,
                  o.global_batch);
    }
    m.cluster =
        plan::make_cluster(plan::ClusterOptions{o.gpu, o.instance, o.cluster, o.price}, o.gpus);
    // The job's own launch: --args as text, --script as bash runs it (the model may come from its
    // architecture arguments when --model is absent).
    std::optional<JobLaunch> job_launch;
    std::optional<layout::JobArgs> job_read;
    if (from_args) {
      job_launch = read_job_launch(o.args, o.script, o.script_flags, static_cast<int>(m.cluster.gpus_per_node()), io.err);
      std::optional<layout::Engine> engine;
      if (!o.engine.empty()) engine = layout::parse_engine(o.engine);
      job_read = layout::read_job_args(job_launch->launch, engine, job_launch->file);
      require_job_sets_something(*job_read, *job_launch);
      base_job = job_launch;
      base_job_read = job_read;
    }
    const std::string model_name = o.model.empty() ? model_from_job(*job_read) : o.model;
    m.model = model::load_model(model_name);
    if (o.model.empty()) sources.push_back({"model", m.model.name, "the job's architecture arguments"});
    m.workload = plan::Workload{o.row_tokens, o.global_batch, plan::parse_precision(o.precision)};
    m.workload.image_tokens = o.image_tokens;
    m.workload.stack_generation = plan::choose_stack(o.stack).generation;
    if (o.image_tokens > 0) {
      sources.push_back({"image_tokens", std::to_string(o.image_tokens), "--image-tokens (per row, one image)"});
    }
    layout::LayoutContext context = plan::checking_context(m.model, m.cluster, m.workload);
    if (from_args) {
      const std::string& file = job_launch->file;
      const args::LaunchArgs& launch = job_launch->launch;
      const layout::JobArgs& job = *job_read;
      check_job_model(job, m.model);
      carried = layout::training_args(launch);
      apply_job(o, job, m);
      context.row_tokens = m.workload.row_tokens;  // the job's own row length and batch
      context.global_batch = m.workload.global_batch;
      m.workload.flash_attention_2 = plan::selects_flash_attention_backend(launch);
      not_priced = job.not_priced;
      m.costs = plan::model_costs(m.model, m.workload.row_tokens, m.workload.image_tokens);
      // The job's own arguments run as Megatron-LM would run them: nothing is filled in.
      m.layout = layout::resolve_layout(layout::job_layout(job, m.workload.row_tokens, m.model), context);
      require_job_split(m, launch, calibration, context, file);
      require_valid_job_layout(m.layout, m.model, context, launch, file);
      for (plan::ValueSource& v : job_sources(launch, job, m.layout, file)) sources.push_back(std::move(v));
      const auto given = [&](const std::string& name) {
        return std::any_of(sources.begin(), sources.end(), [&](const plan::ValueSource& v) { return v.name == name; });
      };
      std::string other = "Megatron-LM's default";
      if (job.engine != layout::Engine::megatron) other = fmt::format("{}'s default", layout::to_string(job.engine));
      if (!given("row_tokens")) {
        sources.push_back({"row_tokens", std::to_string(m.workload.row_tokens),
                           o.row_tokens_given ? "--row-tokens" : "ladle's default"});
      }
      if (!given("global_batch")) {
        sources.push_back({"global_batch", std::to_string(m.workload.global_batch),
                           o.global_batch_given ? "--global-batch" : "ladle's default"});
      }
      if (!given("precision")) {
        sources.push_back({"precision", plan::to_string(m.workload.precision),
                           o.precision_given ? "--precision" : "ladle's default"});
      }
      sources.push_back({"other knobs", "", other});
    } else {
      m.costs = plan::model_costs(m.model, m.workload.row_tokens, m.workload.image_tokens);
      const plan::CompletedLayout completed =
          plan::complete_layout(layout::parse_partial_layout_spec(o.layout), m.model, m.costs, m.cluster,
                                m.workload, calibration, context);
      m.layout = completed.layout;
      chosen = completed.chosen;
      sources.push_back({"layout", layout::layout_label(m.layout), "--layout (the rest: chose)"});
      sources.push_back({"row_tokens", std::to_string(m.workload.row_tokens),
                         o.row_tokens_given ? "--row-tokens" : "ladle's default"});
      sources.push_back({"global_batch", std::to_string(m.workload.global_batch),
                         o.global_batch_given ? "--global-batch" : "ladle's default"});
      sources.push_back({"precision", plan::to_string(m.workload.precision),
                         o.precision_given ? "--precision" : "ladle's default"});
    }
    if (auto violation = layout::find_layout_violation(m.layout, m.model, context)) {
      throw Error(ErrorKind::input, *violation, SourceLocation{"", 0, 0, "layout"});
    }
  }
  plan::apply_stack(m, o.stack, sources);
  const Prediction p = plan::predict(m.costs, m.model, m.layout, m.cluster, m.workload, calibration);
  // The job's own engine unless --engine names another.
  const layout::Engine engine = job_engine(o.engine, base_job_read);
  // The job's base: --base, else the recipe predicted when it drives the engine's family, else
  // the catalog's recipe of the model for that family, else ladle's defaults.
  std::string base_name = o.base;
  if (base_name.empty() && !o.recipe.empty()) {
    const launch::Base own = launch::base_from_recipe(recipe::find_recipe(o.recipe), o.recipe);
    const auto& engines = launch::engine_table();
    if (engines.engine(own.engine).family == engines.engine(engine).family) base_name = o.recipe;
  }
  launch::Base base;
  if (base_job && base_name.empty()) {
    // The user's job is the base: everything that is not a layout knob is the job's, verbatim.
    Workload workload;
    workload.row_tokens = m.workload.row_tokens;
    workload.global_batch = m.workload.global_batch;
    workload.precision = plan::to_string(m.workload.precision);
    base = launch::base_from_job(base_job->launch, base_job_read->engine, engine, base_job->file, workload);
  } else {
    base = launch::resolve_base(base_name, m.model, engine, m.workload.row_tokens, m.workload.global_batch);
    launch::carry_job_args(base, carried, o.script.empty() ? "--args" : o.script);  // errors name the file
  }
  if (!o.emit.empty() && base.from_recipe &&
      (base.workload.row_tokens != m.workload.row_tokens || base.workload.global_batch != m.workload.global_batch)) {
    throw_usage("the workload ({} x {}) differs from the base's ({} x {}, {}); the emitted recipe keeps the base's",
                m.workload.row_tokens, m.workload.global_batch, base.workload.row_tokens, base.workload.global_batch,
                base.name);
  }
  plan::ReportHeader header{m.model.name, m.costs.n_params, m.cluster, m.workload, calibration.source};
  header.engine = layout::to_string(engine);
  header.not_priced = not_priced;
  header.chosen = chosen;
  header.sources = sources;
  header.fit_confidence = plan::verdict_confidence(o.fit_confidence);
  header.moe = m.model.num_experts > 0;
  header.precision = plan::priced_precision(p.layout, m.workload);
  header.launch_args = launch_args_for(base, m.model, m.cluster, m.workload, engine);
  std::optional<Recipe> recipe;
  if (!o.emit.empty()) {
    recipe = plan::planned_recipe(m.model, m.cluster, m.workload, p, engine, calibration, base, o.slurm);
  }
  // The header quotes the recipe, the model's config and the user's arguments: escaped.
  io.out << (o.json ? plan::prediction_json(p, header, measured)
                    : util::terminal_safe(plan::render_prediction(p, header, measured)));
  // A colocated slime/miles job: its rollout phase must fit too (plan/cost_colocate.hpp).
  const auto colocated = plan::colocated_rollout_fit(p, p.layout, plan::memory_facts(), m.cluster.gpus_per_node());
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
  command.add_option("--recipe", options->recipe, "a recipe file or catalog name to predict");
  command.add_option("--model", options->model, "model name or config.json path");
  command.add_option("--gpu", options->gpu, "GPU name, e.g. h200");
  command.add_option("--gpus", options->gpus, "number of GPUs");
  command.add_option("--instance", options->instance, "instance type (default: the first carrying the GPU)");
  command.add_option(
      "--cluster", options->cluster,
      "an on-prem cluster file (YAML: gpu, gpus_per_node, nvlink_domain, fabric, nics, nic_gbps, "
      "host_memory_gib, usd_per_gpu_hour)");
  command.add_option("--price", options->price,
                     "USD per GPU-hour, overriding the instance's or cluster's price");
  command.add_option("--layout", options->layout, "layout spec, e.g. 'tp=4,pp=4,ep=32,sp=on,recompute=selective'");
  command.add_option("--args", options->args,
                     "the job's own Megatron-LM / slime / miles arguments, e.g. --args=\"--tensor-model-parallel-size 2 ...\"");
  command.add_option("--script", options->script,
                     "the job's launch script (slime, miles, Megatron-LM or Megatron-Bridge), run by bash in a sandbox "
                     "whose launchers record what they are given");
  add_script_flags(command, options->script_flags);
  command.add_option("--row-tokens", options->row_tokens, "tokens per row (default 8192)")
      ->each([options](const std::string&) { options->row_tokens_given = true; });
  command.add_option("--global-batch", options->global_batch, "rows per step (default 128)")
      ->each([options](const std::string&) { options->global_batch_given = true; });
  command.add_option("--image-tokens", options->image_tokens,
                     "image tokens per row of a VL model (one image each), priced through its vision tower "
                     "(default 0: text only)");
  command.add_option("--precision", options->precision, "bf16 or fp8 (default bf16)")
      ->each([options](const std::string&) { options->precision_given = true; });
  command.add_option("--stack", options->stack,
                     "the Megatron-Core release the job runs, e.g. 0.16 or core_v0.16.0 (default: the recipe's "
                     "stack.megatron_lm, else the newest in data/hw/stacks.yaml)");
  command.add_option("--fit-confidence", options->fit_confidence,
                     "the confidence the memory verdict is worded at (default 0.9)");
  command.add_option("--calibration", options->calibration, "calibration YAML (default: the embedded one)");
  command.add_option("--emit", options->emit, "write the layout as a planned recipe with its job to this file");
  command.add_option("--engine", options->engine,
                     "slime, miles, megatron or bridge: whose defaults --args/--script take (default: guessed from "
                     "them), and the job of --emit and the args of --json (default megatron)");
  command.add_option("--base", options->base,
                     "recipe (file or catalog name) the job keeps everything but the layout from (default: --recipe "
                     "when it drives the engine's family, else the catalog recipe of the model for that family, else "
                     "ladle's defaults for the engine)");
  command.add_flag("--slurm", options->slurm, "write the job as an sbatch script (with --emit)");
  add_json_flag(command, options->json);
  command.callback([options, &io] { io.exit_code = run_predict(*options, io); });
}

}  // namespace ladle::cli
