#include "ladle/plan/recipe_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "ladle/launch/job_script.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/model/params.hpp"

namespace ladle::plan {

namespace {

// The recipe keeps the printed precision of each figure (so files stay readable and stable).
double rounded(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

std::string upper(std::string text) {
  for (char& ch : text) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return text;
}

}  // namespace

Predicted predicted_block(const Prediction& p, const Calibration& calibration) {
  Predicted out;
  out.planner = fmt::format("ladle 0.1.0 (calibration {})", calibration.source);
  out.tokens_per_s_per_gpu = rounded(p.tokens_per_s_per_gpu, 2);
  out.step_time_s = rounded(p.step_time_s, 3);
  out.mfu = rounded(p.mfu, 4);
  out.usd_per_million_tokens = rounded(p.usd_per_million_tokens, 2);
  if (p.tokens_per_s_high > 0) {
    out.tokens_per_s_per_gpu_low = rounded(p.tokens_per_s_low, 2);
    out.tokens_per_s_per_gpu_high = rounded(p.tokens_per_s_high, 2);
  }
  out.memory_gib = rounded(p.memory_gib, 2);
  for (const Part& part : p.step_parts) {
    if (part.value > 0) out.step_time_breakdown.push_back(PredictedPart{part.name, rounded(part.value, 3)});
  }
  if (!p.stages.empty()) {
    for (const Part& part : p.stages[static_cast<size_t>(p.worst_stage)].parts) {
      if (part.value > 0) out.memory_breakdown.push_back(PredictedPart{part.name, rounded(part.value, 2)});
    }
  }
  for (const StageMemory& stage : p.stages) {
    out.stage_memory.push_back(PredictedPart{fmt::format("stage {}", stage.stage), rounded(stage.total_gib, 2)});
  }
  return out;
}

Recipe planned_recipe(const Scenario& scenario, const Prediction& prediction, layout::Engine engine,
                      const launch::Base& base, bool slurm) {
  const ModelSpec& model = scenario.model;
  const Cluster& cluster = scenario.cluster;
  const Workload& workload = scenario.workload;
  const Calibration& calibration = scenario.calibration;
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
  r.workload.precision = to_string(workload.precision);
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
  launch::JobRequest job;
  job.base = &base;
  job.model = &model;
  job.layout = l;
  job.engine = engine;
  job.gpus = cluster.gpus;
  job.gpus_per_node = cluster.gpus_per_node();
  job.precision = to_string(workload.precision);
  job.slurm = slurm;
  job.title = r.header_comments.front();
  r.run = launch::job_script(job);
  r.predicted = predicted_block(prediction, calibration);
  // N and the peak the predicted MFU used: `ladle score` takes them from here when the model is no
  // catalog name (a config.json path), so a planned recipe of any model gives MFU.
  r.predicted->active_params = ActiveParams{model::active_params(model), model.source, ""};
  r.predicted->peak_tflops = cluster.gpu.bf16_dense_tflops;
  return r;
}

}  // namespace ladle::plan
