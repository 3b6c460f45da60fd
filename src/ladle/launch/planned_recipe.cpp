#include "ladle/launch/planned_recipe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "ladle/launch/job_script.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/model/params.hpp"
#include "ladle/plan/predicted_block.hpp"

namespace ladle::launch {

namespace {

std::string upper(std::string text) {
  for (char& ch : text) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return text;
}

}  // namespace

Recipe planned_recipe(const plan::Scenario& scenario, const Prediction& prediction, layout::Engine engine,
                      const Base& base, bool slurm) {
  const ModelSpec& model = scenario.model;
  const plan::Cluster& cluster = scenario.cluster;
  const plan::Workload& workload = scenario.workload;
  const plan::Calibration& calibration = scenario.calibration;
  const Layout& l = prediction.layout;
  Recipe r;
  r.header_comments = {fmt::format("Planned by `ladle plan` for {} on {} x {}; not measured yet.", model.name,
                                   cluster.gpus, cluster.gpu.name)};
  r.model = model::model_display_name(model.name);  // as the catalog's recipes name it
  r.gpu.type = upper(cluster.gpu.name);
  r.gpu.memory_gb = static_cast<int64_t>(cluster.gpu.hbm_gb);
  r.gpu.count = cluster.gpus;
  // A run on part of one node has that many GPUs per node (the job starts that many ranks).
  r.gpu.per_node = std::min(cluster.gpus, cluster.gpus_per_node());
  r.gpu.instance = cluster.instance.provider + " " + cluster.instance.name;
  r.author.name = "ladle plan";
  r.status = "planned";
  r.stack.framework = fmt::format("{} (version not pinned)", layout::to_string(engine));
  r.stack.megatron_lm = "not pinned";
  r.stack.transformer_engine = "not pinned";
  r.stack.pytorch = "not pinned";
  r.stack.cuda = "not pinned";
  r.stack.nccl = "not pinned";
  r.stack.deepep = l.dispatcher == MoeDispatcher::flex ? "required (flex dispatcher)" : "not used";
  r.stack.python = "not pinned";
  r.stack.network = fmt::format("{} GPUs per node, {}", cluster.gpus_per_node(), cluster.instance.network);
  r.stack.source = "planned; record the training image's versions when the recipe is measured";
  // Everything that is not layout comes from the base.
  r.workload = base.workload;
  r.workload.row_tokens = workload.row_tokens;
  r.workload.global_batch = workload.global_batch;
  r.workload.precision = plan::to_string(workload.precision);
  if (r.workload.rows.empty()) r.workload.rows = "fixed-length rows";
  r.layout = layout::to_recipe_layout(l, workload.row_tokens);
  if (model.num_experts == 0) {
    // A dense model's job sets no dispatcher (job_layout_args leaves MoE flags out), so the run has
    // Megatron-LM's default, and the recipe says so (`ladle check` R12 holds the two together).
    r.layout.dispatcher = std::string(layout::find_knob("dispatcher")->megatron_default);
  }
  r.env = base.env;
  if (base.from_recipe) {
    Correctness c;
    c.result = "pending";
    c.summary = "planned from the base recipe; not run yet";
    c.reference = base.name;
    c.configuration = "pending";
    c.rules = "ladle diff against the reference (data/rules/numerics.yaml); ladle check R19";
    r.correctness = c;
  }
  JobRequest job;
  job.base = &base;
  job.model = &model;
  job.layout = l;
  job.engine = engine;
  job.gpus = cluster.gpus;
  job.gpus_per_node = cluster.gpus_per_node();
  job.precision = plan::to_string(workload.precision);
  job.slurm = slurm;
  job.title = r.header_comments.front();
  r.run = job_script(job);
  r.predicted = plan::predicted_block(prediction, calibration);
  // N and the peak the predicted MFU used: `ladle score` takes them from here when the model is no
  // catalog name (a config.json path), so a planned recipe of any model gives MFU.
  r.predicted->active_params = ActiveParams{model::active_params(model), model.source, ""};
  r.predicted->peak_tflops = cluster.gpu.bf16_dense_tflops;
  return r;
}

}  // namespace ladle::launch
