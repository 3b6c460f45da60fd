// cmd_plan.cpp: `ladle plan`, searches every layout of a model on a cluster and ranks them.
#include <algorithm>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <charconv>
#include <ostream>
#include <string>

#include "ladle/cli/cmd_plan_rl.hpp"
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
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/partial_layout.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/report_json.hpp"
#include "ladle/plan/report_render.hpp"
#include "ladle/plan/search.hpp"
#include "ladle/plan/stack.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/progress.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {
namespace {

// The most layouts --top prints: more than anyone reads, and a bound on the search, whose pruning
// compares against the top-ranked pool (an unbounded --top enumerates every layout and keeps
// each one).
constexpr int64_t kMaxTop = 1000;

struct PlanOptions {
  std::string model_positional;
  ScenarioFlags scenario;  ///< --model, --gpu, --gpus, --row-tokens, --args/--script, ... (scenario_options.hpp)
  int64_t top = 5;
  std::string objective = "throughput";
  std::string rank = "median";
  double margin = plan::kPlanMemoryMargin;
  bool margin_given = false;
  std::vector<std::string> compare;
  std::string emit;
  std::string base;
  bool slurm = false;
  bool json = false;
  bool wide = false;  ///< the full spec in the table rows
  bool quiet = false;  // no progress over a sweep
  PlanRlOptions rl;    ///< --rl and its workload (cmd_plan_rl.cpp)
};

int run_plan(const PlanOptions& o, Io& io) {
  const ScenarioFlags& f = o.scenario;
  if (o.rl.rl) {  // an RL job: cmd_plan_rl.cpp
    PlanRlCommon common{f, o.top, o.objective, o.margin_given ? std::optional<double>(o.margin) : std::nullopt,
                        o.emit, o.json};
    if (common.scenario.model.empty()) common.scenario.model = o.model_positional;
    return run_plan_rl(common, o.rl, io);
  }
  if (!f.model.empty() && !o.model_positional.empty() && f.model != o.model_positional) {
    throw_usage("the model is given twice ('{}' and --model '{}')", o.model_positional, f.model);
  }
  ScenarioFlags given = f;  // the model may be the positional one
  if (given.model.empty()) given.model = o.model_positional;
  if (given.model.empty() && f.script.empty()) throw_usage("plan needs a model: ladle plan MODEL --gpu G --gpus N");
  if (f.gpu.empty() && f.cluster.empty()) throw_usage("plan needs --gpu (e.g. h200) or --cluster FILE");
  if (f.gpu_counts.empty()) throw_usage("plan needs --gpus, a GPU count or a list such as 64,128,256");
  // The job's own launch: --args as text, --script as bash runs it (its architecture arguments name
  // the model when none is given).
  std::optional<Job> job;
  if (f.has_job()) {
    if (!f.args.empty() && !f.script.empty()) throw_usage("give --args or --script, not both");
    job = read_job(f, plan::make_cluster(f.hardware(), parse_gpu_counts(f.gpu_counts)[0]).gpus_per_node(), io.err);
  }
  plan::Scenario scenario;  // its sources: where each fixed value came from
  scenario.model = scenario_model(given, job, scenario.sources);
  const ModelSpec& model = scenario.model;
  check_workload_bounds(f);
  const std::vector<int64_t> counts = parse_gpu_counts(f.gpu_counts);
  const plan::ClusterOptions hardware = f.hardware();
  // The job's own engine unless --engine names another.
  const layout::Engine engine = job_engine(f.engine, job ? std::optional<layout::JobArgs>(job->args) : std::nullopt);
  const std::string engine_name = layout::to_string(engine);
  // The base supplies what is not layout: the plan runs on its workload unless told otherwise.
  // The user's job is the base unless --base names one (launch::base_from_job, below).
  launch::Base base = job && o.base.empty()
                          ? launch::default_base(model, engine, f.row_tokens.value_or(8192),
                                                 f.global_batch.value_or(128))
                          : launch::resolve_base(o.base, model, engine, f.row_tokens.value_or(8192),
                                                 f.global_batch.value_or(128));
  scenario.workload = launch_workload(base, f.row_tokens, f.global_batch, f.precision, !o.emit.empty());
  scenario.cluster = plan::make_cluster(hardware, counts[0]);
  // The scenario: the job's workload over the base's (an option that contradicts the job is an
  // error, as in predict).
  plan::PlanRequest request;
  static_cast<plan::Scenario&>(request) = make_scenario(f, std::move(scenario), job);
  std::optional<std::vector<std::string>> not_priced;
  std::vector<args::LaunchArg> carried;  // the user's arguments that set no knob, for the job
  if (job) {
    // The user's own arguments are the fixed part: the knobs they set are not searched.
    const std::string& file = job->launch.file;
    const args::LaunchArgs& launch = job->launch.launch;
    carried = layout::training_args(launch);
    request.base = layout::job_layout(job->args, request.workload.row_tokens, request.model);
    for (const layout::Knob* knob : job->args.layout.set) request.fixed.emplace_back(knob->key);
    // The job's numerics stay: its gradient reduce dtype, as written or by the engine's default.
    if (o.base.empty()) request.fixed.emplace_back("grad_reduce");
    for (plan::ValueSource& v : job_sources(launch, job->args, request.base, file)) {
      request.sources.push_back(std::move(v));
    }
    if (job->args.rows_per_mb_given) request.fixed.emplace_back("rows_per_mb");
    not_priced = job->args.not_priced;
  }
  // A base recipe's numerics stay: the gradient reduce dtype changes what is computed (a BF16
  // reduce is a precision change that no configuration check passes), so it is not searched.
  if (base.layout && std::find(request.fixed.begin(), request.fixed.end(), "grad_reduce") == request.fixed.end()) {
    request.base.grad_reduce = base.layout->grad_reduce;
    request.fixed.emplace_back("grad_reduce");
  }
  if (job && o.base.empty()) {
    // The user's job is the base: everything that is not a layout knob is the job's, verbatim.
    Workload job_workload = base.workload;
    job_workload.row_tokens = request.workload.row_tokens;
    job_workload.global_batch = request.workload.global_batch;
    job_workload.precision = plan::to_string(request.workload.precision);
    base = launch::base_from_job(job->launch.launch, job->args.engine, engine, job->launch.file, job_workload);
  } else {
    // ladle's defaults follow the workload the arguments settled on.
    if (!base.from_recipe) {
      base = launch::default_base(request.model, engine, request.workload.row_tokens, request.workload.global_batch);
    }
    launch::carry_job_args(base, carried, job ? job->launch.file : "--args");  // errors name the file
  }
  request.top = o.top;
  request.objective = plan::parse_objective(o.objective);
  request.rank = plan::parse_rank(o.rank);
  // --margin when given, else the margin at which a counted layout fits at --fit-confidence.
  const double margin = plan::plan_memory_margin(o.margin_given ? std::optional<double>(o.margin) : std::nullopt,
                                                 f.fit_confidence, request.calibration);
  request.memory_margin = margin;
  const plan::StackChoice stack = plan::choose_stack(f.stack);
  // A precision the GPU cannot run (MXFP8 on Hopper) is refused as predict and check refuse it,
  // through the scenario's checking context, at the job's argument that asks for it.
  if (std::optional<layout::LayoutViolation> v = layout::precision_violation(request.base, request.context())) {
    if (job) throw Error(ErrorKind::input, v->message, knob_argument(job->launch.launch, v->knob, job->launch.file, "layout"));
    throw_usage("layout: {}", v->message);
  }

  if (counts.size() > 1) {
    if (!o.emit.empty()) throw_usage("--emit needs a single GPU count, not a sweep");
    std::vector<plan::SweepPoint> points;
    plan::ReportHeader header = plan::report_header(request);  // on counts[0]
    util::Progress progress(io.err, "plan", "GPU counts", static_cast<int64_t>(counts.size()),
                            util::progress_style(util::stderr_is_terminal(), o.quiet || o.json));
    header.not_priced = not_priced;
    header.wide = o.wide;
    for (int64_t count : counts) {
      request.cluster = plan::make_cluster(hardware, count);
      const plan::PlanReport report = plan::plan_layouts(request);
      points.push_back(plan::SweepPoint{count, report.top.front(), false});
      progress.update(static_cast<int64_t>(points.size()));
    }
    progress.finish();
    plan::mark_frontier(points);
    io.out << (o.json ? plan::sweep_json(points, header) : util::terminal_safe(plan::render_sweep(points, header)));
    return kExitOk;
  }
  request.cluster = plan::make_cluster(hardware, counts[0]);
  std::vector<std::string> chosen;  // what each --compare spec left out, as filled in
  for (const std::string& spec : o.compare) {
    // A compared spec means what it means to predict: plan's defaults and the best split.
    const plan::CompletedLayout completed =
        plan::complete_layout(layout::parse_partial_layout_spec(spec), request, margin);
    for (const std::string& item : completed.chosen) chosen.push_back(fmt::format("'{}': {}", spec, item));
    request.watch.push_back(completed.layout);
  }
  plan::PlanReport report;
  try {
    report = plan::plan_layouts(request);
  } catch (const Error& e) {
    // --json answers in JSON also when nothing fits: the reason (which names what binds), exit 1.
    if (!o.json || e.kind() != ErrorKind::no) throw;
    io.out << plan::no_fit_json(request.model.name, request.cluster.gpu.name, request.cluster.gpus, e.message()).dump(2) << "\n";
    return kExitNo;
  }
  plan::ReportHeader header = plan::report_header(request);
  header.engine = engine_name;
  header.not_priced = not_priced;
  header.chosen = chosen;
  // The workload's values the job did not set: an option, the base recipe, or ladle's default.
  add_workload_sources(request, f, base.from_recipe ? "the base recipe " + base.name : std::string("ladle's default"));
  request.sources.push_back({"stack", plan::stack_label(*stack.generation), plan::stack_source(*stack.generation, stack.origin)});
  request.sources.push_back({"other knobs", "", "searched"});
  header.sources = request.sources;
  header.wide = o.wide;
  header.launch_args = launch_args_for(base, request, engine);
  // The recipe is built before anything is printed, so that a base that cannot be written stops here.
  std::optional<Recipe> recipe;
  if (!o.emit.empty()) {
    recipe = launch::planned_recipe(request, report.top.front(), engine, base, o.slurm);
  }
  // The header quotes the model's config and the user's arguments: escaped, as every text report.
  if (!o.margin_given) header.fit_confidence = f.fit_confidence.value_or(plan::kDefaultFitConfidence);
  io.out << (o.json ? plan::plan_json(report, header, margin)
                    : util::terminal_safe(plan::render_plan(report, header, margin)));
  if (!o.json && !report.top.empty()) {
    // Each --compare layout that runs, part by part beside the top layout: what makes it slower.
    std::vector<Prediction> compared;
    for (const plan::WatchResult& w : report.watched) {
      if (w.status.rfind("invalid", 0) == 0) continue;
      try {
        compared.push_back(plan::predict(request.costs, request.model, w.layout, request.cluster, request.workload,
                                         request.calibration));
      } catch (const Error&) {
        // A layout predict refuses has its reason in the watched line above.
      }
    }
    io.out << util::terminal_safe(plan::render_comparison(report.top.front(), compared, header));
  }
  if (recipe) {
    write_emitted(o.emit, *recipe);
    if (!o.json) {
      io.out << fmt::format("\nwrote {} ({} job{}, base {}, status planned)\n", o.emit, engine_name,
                            o.slurm ? " for sbatch" : "", base.name);
    }
  }
  return kExitOk;
}

}  // namespace

void add_plan_command(CLI::App& command, Io& io) {
  auto options = std::make_shared<PlanOptions>();
  ScenarioFlags& f = options->scenario;
  command.add_option("model", options->model_positional, "model name or config.json path");
  add_model_option(command, f);
  add_cluster_options(command, f, GpuCounts::sweep);
  add_price_option(command, f);
  add_workload_options(command, f);
  command.add_option("--top", options->top, "layouts to print (default 5, at most 1,000)")
      ->check(integer_in(1, kMaxTop));
  command.add_option("--objective", options->objective, "throughput or cost (default throughput)");
  command.add_option("--rank", options->rank,
                     "median (the predicted value, default) or p10 (the lower end of its 80% interval: safe picks)");
  command.add_option("--margin", options->margin,
                     "a fixed fraction of HBM a layout must leave free, instead of --fit-confidence's")
      ->each([options](const std::string&) { options->margin_given = true; });
  add_fit_confidence_option(command, f);
  add_stack_option(command, f);
  add_calibration_option(command, f);
  command.add_option("--compare", options->compare, "a layout spec to rank against the search (repeatable)")
      ->allow_extra_args(false);
  add_job_options(command, f);
  command.add_option("--emit", options->emit, "write the best layout as a planned recipe with its job to this file");
  add_engine_option(command, f);
  command.add_option("--base", options->base,
                     "recipe (file or catalog name) the job keeps everything but the layout from (default: the job of "
                     "--args/--script, else the catalog recipe of the model for the engine's family, else ladle's defaults for the engine)");
  command.add_flag("--slurm", options->slurm, "write the job as an sbatch script (with --emit)");
  add_json_flag(command, options->json);
  command.add_flag("--wide", options->wide,
                   "give each layout's full spec in the table rows (wider than 120 columns)");
  add_quiet_flag(command, options->quiet);
  add_plan_rl_options(command, options->rl);
  command.callback([options, &io] { io.exit_code = run_plan(*options, io); });
}

}  // namespace ladle::cli
