// cmd_plan.cpp: `ladle plan`, searches every layout of a model on a cluster and ranks them.
#include <CLI/CLI.hpp>
#include <charconv>
#include <ostream>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/layout/job_args.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/recipe_writer.hpp"
#include "ladle/plan/report_render.hpp"
#include "ladle/plan/search.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {
namespace {

struct PlanOptions {
  std::string model_positional;
  std::string model;
  std::string gpu;
  std::string gpus;
  std::string instance;
  int64_t row_tokens = 8192;
  int64_t global_batch = 128;
  int64_t top = 5;
  std::string objective = "throughput";
  std::string precision = "bf16";
  double margin = 0.05;
  std::string calibration;
  std::vector<std::string> compare;
  std::string emit;
  std::string engine = "slime";
  std::string args;    ///< the fixed part of the search, as training arguments
  std::string script;  ///< the same, from a launch script
  bool json = false;
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
  if (!o.model.empty() && !o.model_positional.empty() && o.model != o.model_positional) {
    throw_usage("the model is given twice ('{}' and --model '{}')", o.model_positional, o.model);
  }
  const std::string model_name = o.model.empty() ? o.model_positional : o.model;
  if (model_name.empty()) throw_usage("plan needs a model: ladle plan MODEL --gpu G --gpus N");
  if (o.gpu.empty()) throw_usage("plan needs --gpu (e.g. h200)");
  if (o.gpus.empty()) throw_usage("plan needs --gpus, a GPU count or a list such as 64,128,256");
  if (o.top < 1) throw_usage("--top must be at least 1, got {}", o.top);
  if (o.row_tokens < 1) throw_usage("--row-tokens must be at least 1, got {}", o.row_tokens);
  if (o.global_batch < 1) throw_usage("--global-batch must be at least 1, got {}", o.global_batch);
  if (!(o.margin >= 0 && o.margin < 1)) throw_usage("--margin must be in [0, 1), got {}", o.margin);
  const std::vector<int64_t> counts = parse_gpu_counts(o.gpus);
  const layout::Engine engine = layout::parse_engine(o.engine);

  plan::PlanRequest request;
  request.model = model::load_model(model_name);
  request.workload = plan::Workload{o.row_tokens, o.global_batch, plan::parse_precision(o.precision)};
  std::optional<std::vector<std::string>> not_priced;
  if (!o.args.empty() && !o.script.empty()) throw_usage("give --args or --script, not both");
  if (!o.args.empty() || !o.script.empty()) {
    // The user's own arguments are the fixed part: the knobs they set are not searched.
    const std::string file = o.script.empty() ? "--args" : o.script;
    const std::string text = o.script.empty() ? o.args : util::read_file(o.script);
    const layout::JobArgs job = layout::read_job_args(recipe::parse_launch_args(text, file), std::nullopt, file);
    layout::check_model_args(job, request.model);
    if (job.seq_length) request.workload.row_tokens = *job.seq_length;
    if (job.global_batch) request.workload.global_batch = *job.global_batch;
    if (job.fp8) request.workload.precision = plan::Precision::fp8;
    request.base = layout::job_layout(job, request.workload.row_tokens, request.model);
    for (const layout::Knob* knob : job.layout.set) request.fixed.emplace_back(knob->key);
    if (job.rows_per_mb_given) request.fixed.emplace_back("rows_per_mb");
    not_priced = job.not_priced;
  }
  request.calibration =
      o.calibration.empty() ? plan::default_calibration() : plan::read_calibration_file(o.calibration);
  request.top = o.top;
  request.objective = plan::parse_objective(o.objective);
  request.memory_margin = o.margin;
  const plan::ModelCosts costs = plan::model_costs(request.model, request.workload.row_tokens);

  if (counts.size() > 1) {
    if (!o.emit.empty()) throw_usage("--emit needs a single GPU count, not a sweep");
    std::vector<plan::SweepPoint> points;
    plan::ReportHeader header{request.model.name, costs.n_params, plan::make_cluster(o.gpu, counts[0], o.instance),
                              request.workload, request.calibration.source};
    header.not_priced = not_priced;
    for (int64_t count : counts) {
      request.cluster = plan::make_cluster(o.gpu, count, o.instance);
      const plan::PlanReport report = plan::plan_layouts(request);
      points.push_back(plan::SweepPoint{count, report.top.front(), false});
    }
    plan::mark_frontier(points);
    io.out << (o.json ? plan::sweep_json(points, header) : plan::render_sweep(points, header));
    return kExitOk;
  }
  request.cluster = plan::make_cluster(o.gpu, counts[0], o.instance);
  const layout::LayoutContext context{request.cluster.gpus, request.cluster.gpus_per_node(),
                                      request.workload.row_tokens, request.workload.global_batch};
  for (const std::string& spec : o.compare) {
    request.watch.push_back(layout::resolve_layout(layout::parse_layout_spec(spec), context));
  }
  const plan::PlanReport report = plan::plan_layouts(request);
  plan::ReportHeader header{request.model.name, costs.n_params, request.cluster, request.workload,
                            request.calibration.source};
  header.not_priced = not_priced;
  io.out << (o.json ? plan::plan_json(report, header, o.margin) : plan::render_plan(report, header, o.margin));
  if (!o.emit.empty()) {
    const Recipe recipe = plan::planned_recipe(request.model, request.cluster, request.workload, report.top.front(),
                                               engine, request.calibration);
    recipe::write_recipe_file(o.emit, recipe);
    if (!o.json) io.out << fmt::format("\nwrote {} ({} launch script, status planned)\n", o.emit, o.engine);
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
  command.add_option("--row-tokens", options->row_tokens, "tokens per row (default 8192)");
  command.add_option("--global-batch", options->global_batch, "rows per step (default 128)");
  command.add_option("--top", options->top, "layouts to print (default 5)");
  command.add_option("--objective", options->objective, "throughput or cost (default throughput)");
  command.add_option("--precision", options->precision, "bf16 or fp8 (default bf16)");
  command.add_option("--margin", options->margin, "fraction of HBM a layout must leave free (default 0.05)");
  command.add_option("--calibration", options->calibration, "calibration YAML (default: the embedded one)");
  command.add_option("--compare", options->compare, "a layout spec to rank against the search (repeatable)")
      ->allow_extra_args(false);
  command.add_option("--args", options->args,
                     "the fixed part of the search as training arguments: the knobs they set are not searched");
  command.add_option("--script", options->script, "the fixed part of the search from a launch script");
  command.add_option("--emit", options->emit, "write the best layout as a planned recipe to this file");
  command.add_option("--engine", options->engine, "launch script for --emit: slime, miles or megatron (default slime)");
  add_json_flag(command, options->json);
  command.callback([options, &io] { io.exit_code = run_plan(*options, io); });
}

}  // namespace ladle::cli
