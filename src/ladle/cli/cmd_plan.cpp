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
#include "ladle/plan/recipe_writer.hpp"
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
  std::string model;
  std::string gpu;
  std::string gpus;
  std::string instance;
  std::string cluster;                  ///< --cluster: an on-prem cluster file
  std::optional<double> price;          ///< --price: USD per GPU-hour
  std::optional<int64_t> row_tokens;    // default: the base's, else 8192
  std::optional<int64_t> global_batch;  // default: the base's, else 128
  int64_t image_tokens = 0;             // --image-tokens: image tokens per row of a VL model
  int64_t top = 5;
  std::string objective = "throughput";
  std::string rank = "median";
  std::optional<std::string> precision;  // default: the base's, else bf16
  double margin = plan::kPlanMemoryMargin;
  bool margin_given = false;
  std::optional<double> fit_confidence;  ///< --fit-confidence (default plan::kDefaultFitConfidence)
  std::string stack;  ///< --stack: the Megatron-Core release (plan/stack.hpp)
  std::string calibration;
  std::vector<std::string> compare;
  std::string emit;
  std::string engine;  ///< default: the job's engine with --args/--script, else megatron
  std::string base;
  bool slurm = false;
  std::string args;    ///< the fixed part of the search, as training arguments
  std::string script;  ///< the same, from a launch script
  ScriptFlags script_flags;  ///< how bash runs the script (--script-arg, --env, --launch)
  bool json = false;
  bool wide = false;  ///< the full spec in the table rows
  bool quiet = false;  // no progress over a sweep
  PlanRlOptions rl;    ///< --rl and its workload (cmd_plan_rl.cpp)
};

std::vector<int64_t> parse_gpu_counts(const std::string& text) {
  std::vector<int64_t> out;
  for (const std::string& part : util::split(text, ',')) {
    const std::string_view item = util::trim(part);
    int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || value < 1) {
      throw_usage("--gpus: expected GPU counts such as 8 or 64,128,256, got '{}'", text);
    }
    out.push_back(value);
  }
  return out;
}

int run_plan(const PlanOptions& o, Io& io) {
  if (o.rl.rl) {  // an RL job: cmd_plan_rl.cpp
    return run_plan_rl({o.model.empty() ? o.model_positional : o.model, o.gpu, o.gpus, o.instance, o.cluster, o.price,
                        o.calibration, o.top, o.objective,
                        o.margin_given ? std::optional<double>(o.margin) : std::nullopt, o.fit_confidence, o.emit, o.engine, o.args, o.script,
                        o.script_flags, o.json},
                       o.rl, io);
  }
  if (!o.model.empty() && !o.model_positional.empty() && o.model != o.model_positional) {
    throw_usage("the model is given twice ('{}' and --model '{}')", o.model_positional, o.model);
  }
  std::string model_name = o.model.empty() ? o.model_positional : o.model;
  if (model_name.empty() && o.script.empty()) throw_usage("plan needs a model: ladle plan MODEL --gpu G --gpus N");
  if (o.gpu.empty() && o.cluster.empty())
    throw_usage("plan needs --gpu (e.g. h200) or --cluster FILE");
  if (o.gpus.empty()) throw_usage("plan needs --gpus, a GPU count or a list such as 64,128,256");
  if (!o.args.empty() && !o.script.empty()) throw_usage("give --args or --script, not both");
  // The job's own launch: --args as text, --script as bash runs it (its architecture arguments name
  // the model when none is given).
  std::optional<JobLaunch> job_launch;
  std::optional<layout::JobArgs> job_read;
  std::vector<plan::ValueSource> sources;  // where each fixed value came from
  if (!o.args.empty() || !o.script.empty()) {
    const int per_node = static_cast<int>(
        plan::make_cluster(plan::ClusterOptions{o.gpu, o.instance, o.cluster, o.price}, parse_gpu_counts(o.gpus)[0])
            .gpus_per_node());
    job_launch = read_job_launch(o.args, o.script, o.script_flags, per_node, io.err);
    // As predict reads it: --engine names the job's engine, else the job's own arguments tell.
    std::optional<layout::Engine> job_engine;
    if (!o.engine.empty()) job_engine = layout::parse_engine(o.engine);
    job_read = layout::read_job_args(job_launch->launch, job_engine, job_launch->file);
    require_job_sets_something(*job_read, *job_launch);
    if (model_name.empty()) {
      model_name = model_from_job(*job_read);
      sources.push_back({"model", model_name, "the job's architecture arguments"});
    }
  }
  if (o.row_tokens && (*o.row_tokens < 1 || *o.row_tokens > limits::kMaxSequenceTokens)) {
    throw_usage("--row-tokens must be 1 to {} (the limit of one row), got {}", limits::kMaxSequenceTokens, *o.row_tokens);
  }
  if (o.global_batch && (*o.global_batch < 1 || *o.global_batch > limits::kMaxGlobalBatchRows)) {
    throw_usage("--global-batch must be 1 to {} rows (the limit of one step), got {}", limits::kMaxGlobalBatchRows,
                *o.global_batch);
  }
  const std::vector<int64_t> counts = parse_gpu_counts(o.gpus);
  const plan::ClusterOptions hardware{o.gpu, o.instance, o.cluster, o.price};
  // The job's own engine unless --engine names another.
  const layout::Engine engine = job_engine(o.engine, job_read);
  const std::string engine_name = layout::to_string(engine);

  plan::PlanRequest request;
  request.model = model::load_model(model_name);
  // The base supplies what is not layout: the plan runs on its workload unless told otherwise.
  // The user's job is the base unless --base names one (launch::base_from_job, below).
  launch::Base base = job_launch && o.base.empty()
                          ? launch::default_base(request.model, engine, o.row_tokens.value_or(8192),
                                                 o.global_batch.value_or(128))
                          : launch::resolve_base(o.base, request.model, engine, o.row_tokens.value_or(8192),
                                           o.global_batch.value_or(128));
  request.workload = launch_workload(base, o.row_tokens, o.global_batch, o.precision, !o.emit.empty());
  std::optional<std::vector<std::string>> not_priced;
  std::vector<args::LaunchArg> carried;  // the user's arguments that set no knob, for the job
  if (job_launch) {
    // The user's own arguments are the fixed part: the knobs they set are not searched.
    const std::string& file = job_launch->file;
    const args::LaunchArgs& launch = job_launch->launch;
    const layout::JobArgs& job = *job_read;
    check_job_model(job, request.model);
    carried = layout::training_args(launch);
    request.workload.flash_attention_2 = plan::selects_flash_attention_backend(launch);
    // As predict: the job's workload, and an option that contradicts it is an error.
    apply_job_workload(job, GivenWorkload{o.row_tokens, o.global_batch, o.precision}, request.workload);
    request.base = layout::job_layout(job, request.workload.row_tokens, request.model);
    for (const layout::Knob* knob : job.layout.set) request.fixed.emplace_back(knob->key);
    // The job's numerics stay: its gradient reduce dtype, as written or by the engine's default.
    if (o.base.empty()) request.fixed.emplace_back("grad_reduce");
    for (plan::ValueSource& v : job_sources(launch, job, request.base, file)) sources.push_back(std::move(v));
    if (job.rows_per_mb_given) request.fixed.emplace_back("rows_per_mb");
    not_priced = job.not_priced;
  }
  // A base recipe's numerics stay: the gradient reduce dtype changes what is computed (a BF16
  // reduce is a precision change that no configuration check passes), so it is not searched.
  if (base.layout && std::find(request.fixed.begin(), request.fixed.end(), "grad_reduce") == request.fixed.end()) {
    request.base.grad_reduce = base.layout->grad_reduce;
    request.fixed.emplace_back("grad_reduce");
  }
  if (job_launch && o.base.empty()) {
    // The user's job is the base: everything that is not a layout knob is the job's, verbatim.
    Workload workload = base.workload;
    workload.row_tokens = request.workload.row_tokens;
    workload.global_batch = request.workload.global_batch;
    workload.precision = plan::to_string(request.workload.precision);
    base = launch::base_from_job(job_launch->launch, job_read->engine, engine, job_launch->file, workload);
  } else {
    // ladle's defaults follow the workload the arguments settled on.
    if (!base.from_recipe) {
      base = launch::default_base(request.model, engine, request.workload.row_tokens, request.workload.global_batch);
    }
    launch::carry_job_args(base, carried, job_launch ? job_launch->file : "--args");  // errors name the file
  }
  request.calibration =
      o.calibration.empty() ? plan::default_calibration() : plan::read_calibration_file(o.calibration);
  request.top = o.top;
  request.objective = plan::parse_objective(o.objective);
  request.rank = plan::parse_rank(o.rank);
  // --margin when given, else the margin at which a counted layout fits at --fit-confidence.
  const double margin = plan::plan_memory_margin(o.margin_given ? std::optional<double>(o.margin) : std::nullopt,
                                                 o.fit_confidence, request.calibration);
  request.memory_margin = margin;
  request.workload.image_tokens = o.image_tokens;
  const plan::StackChoice stack = plan::choose_stack(o.stack);
  request.workload.stack_generation = stack.generation;
  if (o.image_tokens > 0) {
    sources.push_back({"image_tokens", std::to_string(o.image_tokens), "--image-tokens (per row, one image)"});
  }
  const plan::ModelCosts costs =
      plan::model_costs(request.model, request.workload.row_tokens, request.workload.image_tokens);
  {
    // A precision the GPU cannot run (MXFP8 on Hopper) is refused as predict and check refuse it,
    // through the same checking context, at the job's argument that asks for it.
    const layout::LayoutContext gpu_context =
        plan::checking_context(request.model, plan::make_cluster(hardware, counts[0]), request.workload);
    if (std::optional<layout::LayoutViolation> v = layout::precision_violation(request.base, gpu_context)) {
      if (job_launch) {
        throw Error(ErrorKind::input, v->message, knob_argument(job_launch->launch, v->knob, job_launch->file, "layout"));
      }
      throw_usage("layout: {}", v->message);
    }
  }

  if (counts.size() > 1) {
    if (!o.emit.empty()) throw_usage("--emit needs a single GPU count, not a sweep");
    std::vector<plan::SweepPoint> points;
    plan::ReportHeader header{request.model.name, costs.n_params,
                              plan::make_cluster(hardware, counts[0]), request.workload,
                              request.calibration.source};
    util::Progress progress(io.err, "plan", "GPU counts", static_cast<int64_t>(counts.size()),
                            util::progress_style(util::stderr_is_terminal(), o.quiet || o.json));
    header.not_priced = not_priced;
    header.wide = o.wide;
    header.moe = request.model.num_experts > 0;
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
  layout::LayoutContext context = plan::checking_context(request.model, request.cluster, request.workload);
  std::vector<std::string> chosen;  // what each --compare spec left out, as filled in
  for (const std::string& spec : o.compare) {
    // A compared spec means what it means to predict: plan's defaults and the best split.
    const plan::CompletedLayout completed =
        plan::complete_layout(layout::parse_partial_layout_spec(spec), request.model, costs, request.cluster,
                              request.workload, request.calibration, context, margin);
    for (const std::string& item : completed.chosen) chosen.push_back(fmt::format("'{}': {}", spec, item));
    request.watch.push_back(completed.layout);
  }
  plan::PlanReport report;
  try {
    report = plan::plan_layouts(request);
  } catch (const Error& e) {
    // --json answers in JSON also when nothing fits: the reason (which names what binds), exit 1.
    if (!o.json || e.kind() != ErrorKind::no) throw;
    nlohmann::ordered_json j;
    j["model"] = request.model.name;
    j["gpu"] = request.cluster.gpu.name;
    j["gpus"] = request.cluster.gpus;
    j["fits"] = false;
    j["reason"] = e.message();
    io.out << j.dump(2) << "\n";
    return kExitNo;
  }
  plan::ReportHeader header{request.model.name, costs.n_params, request.cluster, request.workload,
                            request.calibration.source};
  header.engine = engine_name;
  header.not_priced = not_priced;
  header.chosen = chosen;
  {
    // The workload's values the job did not set: an option, the base recipe, or ladle's default.
    const auto given = [&](const std::string& name) {
      return std::any_of(sources.begin(), sources.end(), [&](const plan::ValueSource& v) { return v.name == name; });
    };
    const std::string from_base = base.from_recipe ? "the base recipe " + base.name : std::string("ladle's default");
    if (!given("row_tokens")) {
      sources.push_back({"row_tokens", std::to_string(request.workload.row_tokens), o.row_tokens ? "--row-tokens" : from_base});
    }
    if (!given("global_batch")) {
      sources.push_back({"global_batch", std::to_string(request.workload.global_batch),
                         o.global_batch ? "--global-batch" : from_base});
    }
    if (!given("precision")) {
      sources.push_back({"precision", plan::to_string(request.workload.precision), o.precision ? "--precision" : from_base});
    }
    sources.push_back({"stack", plan::stack_label(*stack.generation), stack.origin});
    sources.push_back({"other knobs", "", "searched"});
  }
  header.sources = sources;
  header.wide = o.wide;
  header.moe = request.model.num_experts > 0;
  header.launch_args = launch_args_for(base, request.model, request.cluster, request.workload, engine);
  // The recipe is built before anything is printed, so that a base that cannot be written stops here.
  std::optional<Recipe> recipe;
  if (!o.emit.empty()) {
    recipe = plan::planned_recipe(request.model, request.cluster, request.workload, report.top.front(), engine,
                                  request.calibration, base, o.slurm);
  }
  // The header quotes the model's config and the user's arguments: escaped, as every text report.
  if (!o.margin_given) header.fit_confidence = o.fit_confidence.value_or(plan::kDefaultFitConfidence);
  io.out << (o.json ? plan::plan_json(report, header, margin)
                    : util::terminal_safe(plan::render_plan(report, header, margin)));
  if (!o.json && !report.top.empty()) {
    // Each --compare layout that runs, part by part beside the top layout: what makes it slower.
    std::vector<Prediction> compared;
    for (const plan::WatchResult& w : report.watched) {
      if (w.status.rfind("invalid", 0) == 0) continue;
      try {
        compared.push_back(plan::predict(costs, request.model, w.layout, request.cluster, request.workload,
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
  command.add_option("model", options->model_positional, "model name or config.json path");
  command.add_option("--model", options->model, "model name or config.json path");
  command.add_option("--gpu", options->gpu, "GPU name, e.g. h200");
  command.add_option("--gpus", options->gpus, "GPU count, or a comma-separated sweep such as 64,128,256");
  command.add_option("--instance", options->instance, "instance type (default: the first carrying the GPU)");
  command.add_option(
      "--cluster", options->cluster,
      "an on-prem cluster file (YAML: gpu, gpus_per_node, nvlink_domain, fabric, nics, nic_gbps, "
      "host_memory_gib, usd_per_gpu_hour)");
  command.add_option("--price", options->price,
                     "USD per GPU-hour, overriding the instance's or cluster's price");
  command.add_option("--row-tokens", options->row_tokens, "tokens per row (default 8192)");
  command.add_option("--global-batch", options->global_batch, "rows per step (default 128)");
  command.add_option("--image-tokens", options->image_tokens,
                     "image tokens per row of a VL model (one image each), priced through its vision tower "
                     "(default 0: text only)");
  command.add_option("--top", options->top, "layouts to print (default 5, at most 1,000)")
      ->check(integer_in(1, kMaxTop));
  command.add_option("--objective", options->objective, "throughput or cost (default throughput)");
  command.add_option("--rank", options->rank,
                     "median (the predicted value, default) or p10 (the lower end of its 80% interval: safe picks)");
  command.add_option("--precision", options->precision, "bf16 or fp8 (default bf16)");
  command.add_option("--margin", options->margin,
                     "a fixed fraction of HBM a layout must leave free, instead of --fit-confidence's")
      ->each([options](const std::string&) { options->margin_given = true; });
  command.add_option("--fit-confidence", options->fit_confidence,
                     "count a layout as fitting when it fits HBM with at least this probability under the memory "
                     "model's calibrated error (default 0.9)");
  command.add_option("--stack", options->stack,
                     "the Megatron-Core release the job runs, e.g. 0.16 or core_v0.16.0 (default: the newest in "
                     "data/hw/stacks.yaml); layouts asking for what it lacks are not searched");
  command.add_option("--calibration", options->calibration, "calibration YAML (default: the embedded one)");
  command.add_option("--compare", options->compare, "a layout spec to rank against the search (repeatable)")
      ->allow_extra_args(false);
  command.add_option("--args", options->args,
                     "the fixed part of the search as training arguments: the knobs they set are not searched");
  command.add_option("--script", options->script,
                     "the fixed part of the search from a launch script, run by bash in a sandbox whose launchers "
                     "record what they are given");
  add_script_flags(command, options->script_flags);
  command.add_option("--emit", options->emit, "write the best layout as a planned recipe with its job to this file");
  command.add_option("--engine", options->engine,
                     "the job's engine (--emit, and each layout's args in --json): slime, miles, megatron or bridge; "
                     "default: the engine of --args/--script, else megatron");
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
