// cmd_predict.cpp: `ladle predict`, the memory and step time of one layout.
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/cli/launch_options.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/recipe_writer.hpp"
#include "ladle/plan/report_render.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/error.hpp"

namespace ladle::cli {
namespace {

struct PredictOptions {
  std::string recipe;
  std::string model;
  std::string gpu;
  int64_t gpus = 0;
  std::string instance;
  std::string layout;
  int64_t row_tokens = 8192;
  int64_t global_batch = 128;
  std::string precision = "bf16";
  std::string calibration;
  std::string emit;
  std::string engine = "megatron";
  std::string base;
  bool slurm = false;
  bool json = false;
};

int run_predict(const PredictOptions& o, Io& io) {
  const plan::Calibration calibration =
      o.calibration.empty() ? plan::default_calibration() : plan::read_calibration_file(o.calibration);
  plan::Measurement m;
  double measured = 0;
  if (!o.recipe.empty()) {
    if (!o.model.empty() || !o.layout.empty() || !o.gpu.empty()) {
      throw_usage("give either --recipe or --model/--gpu/--gpus/--layout, not both");
    }
    const recipe::LoadedRecipe loaded = recipe::find_recipe(o.recipe);
    if (loaded.recipe.result) {
      m = plan::measurement_from_recipe(loaded);
      measured = m.measured_tokens_per_s_per_gpu;
    } else {
      recipe::LoadedRecipe copy = loaded;
      copy.recipe.result = RecipeResult{};
      m = plan::measurement_from_recipe(copy);
    }
  } else {
    if (o.model.empty()) throw_usage("predict needs --recipe, or --model with --gpu, --gpus and --layout");
    if (o.gpu.empty()) throw_usage("predict needs --gpu (e.g. h200)");
    if (o.gpus < 1) throw_usage("predict needs --gpus, the number of GPUs (at least 1)");
    if (o.layout.empty()) throw_usage("predict needs --layout, e.g. 'tp=1,ep=8,recompute=full'");
    if (o.row_tokens < 1) throw_usage("--row-tokens must be at least 1, got {}", o.row_tokens);
    if (o.global_batch < 1) throw_usage("--global-batch must be at least 1, got {}", o.global_batch);
    m.model = model::load_model(o.model);
    m.cluster = plan::make_cluster(o.gpu, o.gpus, o.instance);
    m.workload = plan::Workload{o.row_tokens, o.global_batch, plan::parse_precision(o.precision)};
    const layout::LayoutContext context{m.cluster.gpus, m.cluster.gpus_per_node(), m.workload.row_tokens,
                                        m.workload.global_batch};
    m.layout = layout::resolve_layout(layout::parse_layout_spec(o.layout), context);
    m.costs = plan::model_costs(m.model, m.workload.row_tokens);
  }
  const Prediction p = plan::predict(m.costs, m.model, m.layout, m.cluster, m.workload, calibration);
  const layout::Engine engine = layout::parse_engine(o.engine);
  // The job's base: --base, else the recipe predicted when it drives the engine's family, else
  // the catalog's recipe of the model for that family, else ladle's defaults.
  std::string base_name = o.base;
  if (base_name.empty() && !o.recipe.empty()) {
    const launch::Base own = launch::base_from_recipe(recipe::find_recipe(o.recipe), o.recipe);
    const auto& engines = launch::engine_table();
    if (engines.engine(own.engine).family == engines.engine(engine).family) base_name = o.recipe;
  }
  const launch::Base base =
      launch::resolve_base(base_name, m.model, engine, m.workload.row_tokens, m.workload.global_batch);
  if (!o.emit.empty() && base.from_recipe &&
      (base.workload.row_tokens != m.workload.row_tokens || base.workload.global_batch != m.workload.global_batch)) {
    throw_usage("the workload ({} x {}) differs from the base's ({} x {}, {}); the emitted recipe keeps the base's",
                m.workload.row_tokens, m.workload.global_batch, base.workload.row_tokens, base.workload.global_batch,
                base.name);
  }
  plan::ReportHeader header{m.model.name, m.costs.n_params, m.cluster, m.workload, calibration.source};
  header.engine = o.engine;
  header.launch_args = launch_args_for(base, m.model, m.cluster, m.workload, engine);
  std::optional<Recipe> recipe;
  if (!o.emit.empty()) {
    recipe = plan::planned_recipe(m.model, m.cluster, m.workload, p, engine, calibration, base, o.slurm);
  }
  io.out << (o.json ? plan::prediction_json(p, header, measured) : plan::render_prediction(p, header, measured));
  if (recipe) {
    write_emitted(o.emit, *recipe);
    if (!o.json) {
      io.out << fmt::format("\nwrote {} ({} job{}, base {}, status planned)\n", o.emit, o.engine,
                            o.slurm ? " for sbatch" : "", base.name);
    }
  }
  return p.fits ? kExitOk : kExitNo;
}

}  // namespace

void add_predict_command(CLI::App& command, Io& io) {
  auto options = std::make_shared<PredictOptions>();
  command.add_option("--recipe", options->recipe, "a recipe file or catalog name to predict");
  command.add_option("--model", options->model, "model name or config.json path");
  command.add_option("--gpu", options->gpu, "GPU name, e.g. h200");
  command.add_option("--gpus", options->gpus, "number of GPUs");
  command.add_option("--instance", options->instance, "instance type (default: the first carrying the GPU)");
  command.add_option("--layout", options->layout, "layout spec, e.g. 'tp=4,pp=4,ep=32,sp=on,recompute=selective'");
  command.add_option("--row-tokens", options->row_tokens, "tokens per row (default 8192)");
  command.add_option("--global-batch", options->global_batch, "rows per step (default 128)");
  command.add_option("--precision", options->precision, "bf16 or fp8 (default bf16)");
  command.add_option("--calibration", options->calibration, "calibration YAML (default: the embedded one)");
  command.add_option("--emit", options->emit, "write the layout as a planned recipe with its job to this file");
  command.add_option("--engine", options->engine,
                     "the job's engine (--emit, and args in --json): slime, miles, megatron or bridge (default megatron)");
  command.add_option("--base", options->base,
                     "recipe (file or catalog name) the job keeps everything but the layout from (default: --recipe "
                     "when it drives the engine's family, else the catalog recipe of the model for that family, else "
                     "ladle's defaults for the engine)");
  command.add_flag("--slurm", options->slurm, "write the job as an sbatch script (with --emit)");
  add_json_flag(command, options->json);
  command.callback([options, &io] { io.exit_code = run_predict(*options, io); });
}

}  // namespace ladle::cli
