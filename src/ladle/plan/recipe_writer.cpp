#include "ladle/plan/recipe_writer.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

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

// The predictor counts memory in GiB; a recipe's predicted block holds decimal GB, as gpu.memory_gb does.
constexpr double kGbPerGib = 1.073741824;

Predicted predicted_block(const Prediction& p, const Calibration& calibration) {
  Predicted out;
  out.planner = fmt::format("ladle 0.1.0 (calibration {})", calibration.source);
  out.tokens_per_s_per_gpu = rounded(p.tokens_per_s_per_gpu, 2);
  out.step_time_s = rounded(p.step_time_s, 3);
  out.mfu = rounded(p.mfu, 4);
  out.usd_per_million_tokens = rounded(p.usd_per_million_tokens, 2);
  out.memory_gb = rounded(p.memory_gib * kGbPerGib, 2);
  for (const Part& part : p.step_parts) {
    if (part.value > 0) out.step_time_breakdown.push_back(PredictedPart{part.name, rounded(part.value, 3)});
  }
  if (!p.stages.empty()) {
    for (const Part& part : p.stages[static_cast<size_t>(p.worst_stage)].parts) {
      if (part.value > 0) out.memory_breakdown.push_back(PredictedPart{part.name, rounded(part.value * kGbPerGib, 2)});
    }
  }
  return out;
}

Recipe planned_recipe(const ModelSpec& model, const Cluster& cluster, const Workload& workload,
                      const Prediction& prediction, layout::Engine engine, const Calibration& calibration) {
  const Layout& l = prediction.layout;
  Recipe r;
  r.header_comments = {fmt::format("Planned by `ladle plan` for {} on {} x {}; not measured yet.", model.name,
                                   cluster.gpus, cluster.gpu.name)};
  r.model = model.name;
  r.gpu.type = upper(cluster.gpu.name);
  r.gpu.memory_gb = static_cast<int64_t>(cluster.gpu.hbm_gb);
  r.gpu.count = cluster.gpus;
  r.gpu.per_node = cluster.gpus_per_node();
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
  r.workload.row_tokens = workload.row_tokens;
  r.workload.rows = "fixed-length rows";
  r.workload.global_batch = workload.global_batch;
  r.workload.precision = to_string(workload.precision);
  r.layout = layout::to_recipe_layout(l, workload.row_tokens);
  r.env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};

  std::string script = "export CUDA_DEVICE_MAX_CONNECTIONS=1\n\n";
  const int64_t nodes = (cluster.gpus + cluster.gpus_per_node() - 1) / cluster.gpus_per_node();
  const int64_t per_node = std::min<int64_t>(cluster.gpus, cluster.gpus_per_node());
  std::vector<std::string> lines;
  if (engine == layout::Engine::megatron) {
    script += fmt::format("torchrun --nnodes {} --nproc-per-node {} pretrain_gpt.py \\\n", nodes, per_node);
    lines.push_back("${MODEL_ARGS[@]}");
    lines.push_back("--bf16");
    lines.push_back(fmt::format("--global-batch-size {}", workload.global_batch));
  } else {
    script += fmt::format("python3 {} \\\n", engine == layout::Engine::miles ? "train.py" : "train_async.py");
    lines.push_back(fmt::format("--actor-num-nodes {}", nodes));
    lines.push_back(fmt::format("--actor-num-gpus-per-node {}", per_node));
    lines.push_back("${MODEL_ARGS[@]}");
    lines.push_back("--hf-checkpoint \"$HF_CKPT\"");
    lines.push_back("--ref-load \"$TORCH_DIST\"");
    lines.push_back("--prompt-data \"$SFT_DATA\"");
    lines.push_back("--loss-type sft_loss");
    lines.push_back("--calculate-per-token-loss");
    lines.push_back("--disable-compute-advantages-and-returns");
    lines.push_back("--debug-train-only");
    lines.push_back(fmt::format("--rollout-batch-size {}", workload.global_batch));
    lines.push_back(fmt::format("--global-batch-size {}", workload.global_batch));
  }
  for (const layout::EngineArg& arg : layout::layout_engine_args(l, engine, workload.row_tokens)) {
    // A pipeline layout ("Et|(tt|)*30mL") holds characters bash would read; quote it.
    const bool quote = arg.value && arg.value->find_first_of("|*()&;<>$`\\\"'") != std::string::npos;
    lines.push_back(arg.value ? arg.flag + " " + (quote ? "'" + *arg.value + "'" : *arg.value) : arg.flag);
  }
  lines.push_back("--optimizer adam");
  lines.push_back("--attention-softmax-in-fp32");
  lines.push_back("--attention-backend flash");
  for (size_t i = 0; i < lines.size(); ++i) {
    script += "  " + lines[i] + (i + 1 < lines.size() ? " \\\n" : "\n");
  }
  r.run = script;
  r.predicted = predicted_block(prediction, calibration);
  return r;
}

}  // namespace ladle::plan
