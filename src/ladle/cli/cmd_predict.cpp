// cmd_predict.cpp: `ladle predict`, the memory and step time of one layout.
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/report_render.hpp"
#include "ladle/recipe/catalog.hpp"
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
  const plan::ReportHeader header{m.model.name, m.costs.n_params, m.cluster, m.workload, calibration.source};
  io.out << (o.json ? plan::prediction_json(p, header, measured) : plan::render_prediction(p, header, measured));
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
  add_json_flag(command, options->json);
  command.callback([options, &io] { io.exit_code = run_predict(*options, io); });
}

}  // namespace ladle::cli
