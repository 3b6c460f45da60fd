#pragma once
// The one description of the recipe's fields, in file key order. The YAML reader, the YAML writer
// and the schema test all walk it, so the three cannot disagree.
//
// A visitor provides `field(name, member, FieldOptions)` for every member type used below,
// `object(name, member)` for nested structs and `knob_fields(fields)` for the layout block's optional
// knob fields; `visit_fields(v, value)` calls it once per field.
//
// The layout block's optional fields are not listed here: they are the rows of the knob table
// (layout/knobs.hpp, read as constexpr data) whose recipe column is not one of RecipeLayout's typed
// fields, in table order (layout_knob_fields below). A knob row says its field's name, kind, names
// and range once, for the reader, the writer, the schema test and the layout.

#include <algorithm>
#include <span>
#include <string_view>
#include <vector>

#include "ladle/layout/knobs.hpp"
#include "ladle/recipe/recipe.hpp"
#include "ladle/util/limits.hpp"

namespace ladle::recipe::detail {

/// How a field is written and checked, beyond its C++ type.
struct FieldOptions {
  std::span<const std::string_view> allowed;  ///< allowed values of a string field; empty = any
  bool date = false;           ///< string holding YYYY-MM-DD, written unquoted
  bool literal_block = false;  ///< written as a `|` block
  bool omit_if_null = false;   ///< an absent optional is left out instead of written as null
  bool omit_if_empty = false;  ///< an optional key of a string: absent reads as "", "" is not written
  bool pair = false;           ///< a list of exactly two integers
  bool positive = false;       ///< a number that must be greater than zero
  /// The values an integer field (or each integer of a list) may take, with the reason; every
  /// integer field names one (limits.hpp), so no size a recipe holds is unbounded.
  const limits::IntegerRange* range = nullptr;
};

inline constexpr std::string_view kStatuses[] = {"planned", "measured", "verified"};
inline constexpr std::string_view kPrecisions[] = {"bf16", "fp8"};
/// The recompute object's granularities: the knob's names but "none", which the block writes as
/// `recompute: null`.
inline constexpr std::span<const std::string_view> kGranularities =
    std::span<const std::string_view>(layout::kGranularityNames).subspan(1);
inline constexpr std::string_view kPassFail[] = {"pass", "fail"};
inline constexpr std::string_view kPassFailPending[] = {"pass", "fail", "pending"};
/// slime's --advantage-estimator choices (slime/utils/arguments.py, THUDM/slime commit
/// 624b824a898ab0ec1fcb4d373004c7f3852bf515).
inline constexpr std::string_view kRlAlgorithms[] = {"grpo", "gspo", "cispo", "reinforce_plus_plus",
                                                     "reinforce_plus_plus_baseline", "ppo"};
/// How the rollout engines and the trainer share GPUs and time: slime's train.py with --colocate,
/// train.py without it, and train_async.py (one rollout ahead).
inline constexpr std::string_view kRlModes[] = {"colocated_sync", "disaggregated_sync", "disaggregated_async"};

template <class V>
void visit_fields(V& v, RecipeGpu& x) {
  v.field("type", x.type, {});
  v.field("memory_gb", x.memory_gb, {.range = &limits::kGpuMemoryRange});
  v.field("count", x.count, {.range = &limits::kGpuCountRange});
  v.field("per_node", x.per_node, {.range = &limits::kGpuCountRange});
  v.field("instance", x.instance, {});
}

template <class V>
void visit_fields(V& v, RecipeAuthor& x) {
  v.field("name", x.name, {});
  v.field("url", x.url, {});
}

template <class V>
void visit_fields(V& v, RecipeStack& x) {
  v.field("framework", x.framework, {});
  v.field("megatron_lm", x.megatron_lm, {});
  v.field("transformer_engine", x.transformer_engine, {});
  v.field("pytorch", x.pytorch, {});
  v.field("cuda", x.cuda, {});
  v.field("nccl", x.nccl, {});
  v.field("deepep", x.deepep, {});
  v.field("python", x.python, {});
  v.field("network", x.network, {});
  v.field("source", x.source, {});
}

template <class V>
void visit_fields(V& v, DatasetBuild& x) {
  v.field("name", x.name, {});
  v.field("tokenizer", x.tokenizer, {});
  v.field("loss_mask", x.loss_mask, {});
  v.field("rows", x.rows, {.range = &limits::kDatasetCountRange});
  v.field("row_tokens", x.row_tokens, {.range = &limits::kRowTokensRange});
  v.field("padding_tokens", x.padding_tokens, {.range = &limits::kDatasetCountRange});
  v.field("seed", x.seed, {.range = &limits::kSeedRange});
  v.field("packing", x.packing, {});
  v.field("supervised_token_ratio", x.supervised_token_ratio, {});
  v.field("parquet_sha256", x.parquet_sha256, {});
  v.field("parquet_bytes", x.parquet_bytes, {.range = &limits::kByteCountRange});
  v.field("builder", x.builder, {});
}

template <class V>
void visit_fields(V& v, RecipeDataset& x) {
  v.field("name", x.name, {});
  v.field("source", x.source, {});
  v.field("revision", x.revision, {});
  v.field("license", x.license, {});
  v.field("rows_sha256", x.rows_sha256, {});
  v.object("build", x.build);
}

template <class V>
void visit_fields(V& v, RlWorkload& x) {
  v.field("algorithm", x.algorithm, {.allowed = kRlAlgorithms});
  v.field("prompts_per_rollout", x.prompts_per_rollout, {.range = &limits::kBatchRowsRange});
  v.field("samples_per_prompt", x.samples_per_prompt, {.range = &limits::kBatchRowsRange});
  v.field("steps_per_rollout", x.steps_per_rollout, {.range = &limits::kStepCountRange});
  v.field("prompt_max_tokens", x.prompt_max_tokens, {.range = &limits::kRowTokensRange});
  v.field("response_max_tokens", x.response_max_tokens, {.range = &limits::kRowTokensRange});
  v.field("prompt_mean_tokens", x.prompt_mean_tokens, {.omit_if_null = true, .positive = true});
  v.field("response_mean_tokens", x.response_mean_tokens, {.omit_if_null = true, .positive = true});
  v.field("mode", x.mode, {.allowed = kRlModes});
  v.field("rollout_gpus", x.rollout_gpus, {.range = &limits::kGpuCountRange});
  v.field("gpus_per_engine", x.gpus_per_engine, {.range = &limits::kGpuCountRange});
}

template <class V>
void visit_fields(V& v, Workload& x) {
  v.field("row_tokens", x.row_tokens, {.range = &limits::kRowTokensRange});
  v.field("rows", x.rows, {});
  v.field("global_batch", x.global_batch, {.range = &limits::kBatchRowsRange});
  v.field("precision", x.precision, {.allowed = kPrecisions});
  v.object("dataset", x.dataset);
  v.object("rl", x.rl, /*omit_if_null=*/true);
}

template <class V>
void visit_fields(V& v, LayerSplit& x) {
  v.field("first", x.first, {.range = &limits::kLayerCountRange});
  v.field("last", x.last, {.range = &limits::kLayerCountRange});
}

template <class V>
void visit_fields(V& v, Recompute& x) {
  v.field("granularity", x.granularity, {.allowed = kGranularities});
  v.field("method", x.method, {.allowed = layout::kRecomputeMethodNames});
  v.field("num_layers", x.num_layers, {.range = &limits::kLayerCountRange});
  v.field("modules", x.modules, {.allowed = layout::kRecomputeModuleNames, .omit_if_null = true});
}

template <class V>
void visit_fields(V& v, Offload& x) {
  v.field("optimizer_fraction", x.optimizer_fraction, {});
  v.field("overlap_d2h_h2d", x.overlap_d2h_h2d, {});
}

template <class V>
void visit_fields(V& v, RecipeLayout& x) {
  v.field("label", x.label, {});
  v.field("summary", x.summary, {});
  v.field("highlights", x.highlights, {});
  v.field("tp", x.tp, {.range = &limits::kParallelRange});
  v.field("pp", x.pp, {.range = &limits::kParallelRange});
  v.field("vpp", x.vpp, {.range = &limits::kParallelRange});
  v.field("cp", x.cp, {.range = &limits::kParallelRange});
  v.field("ep", x.ep, {.range = &limits::kParallelRange});
  v.field("etp", x.etp, {.range = &limits::kParallelRange});
  v.field("dp", x.dp, {.range = &limits::kParallelRange});
  v.field("sequence_parallel", x.sequence_parallel, {});
  v.object("layer_split", x.layer_split);
  v.field("max_tokens_per_gpu", x.max_tokens_per_gpu, {.range = &limits::kTokensPerGpuRange});
  v.field("rows_per_microbatch", x.rows_per_microbatch, {.range = &limits::kBatchRowsRange});
  v.object("recompute", x.recompute);
  v.object("offload", x.offload);
  v.field("dispatcher", x.dispatcher, {.allowed = layout::kDispatcherNames});
  v.knob_fields(x.knobs);
}

/// One optional field of the layout block: a knob row with a recipe column of its own.
struct KnobField {
  const layout::Knob* knob = nullptr;
  std::string_view name;                   ///< the row's recipe column
  std::vector<std::string_view> allowed;  ///< a choice's or set's names the row accepts (all, unless `allowed` bits)
  FieldOptions options() const { return {.allowed = allowed, .omit_if_null = true, .range = knob->recipe_range}; }
};

namespace knob_field_detail {
// Collects the names of RecipeLayout's typed fields by walking them.
struct TypedNames {
  std::vector<std::string_view> names;
  template <class T>
  void field(std::string_view name, T&, const FieldOptions&) { names.push_back(name); }
  template <class T>
  void object(std::string_view name, T&, bool = false) { names.push_back(name); }
  void knob_fields(std::vector<LayoutField>&) {}
};
}  // namespace knob_field_detail

/// The layout block's optional fields, in knob-table order: every row whose recipe column's first
/// part ("recompute" of "recompute.modules") is none of RecipeLayout's typed fields.
inline const std::vector<KnobField>& layout_knob_fields() {
  static const std::vector<KnobField> fields = [] {
    knob_field_detail::TypedNames typed;
    RecipeLayout scratch;
    visit_fields(typed, scratch);
    std::vector<KnobField> out;
    for (const layout::Knob& knob : layout::kKnobs) {
      if (knob.recipe.empty()) continue;
      const std::string_view head = knob.recipe.substr(0, knob.recipe.find('.'));
      if (std::find(typed.names.begin(), typed.names.end(), head) != typed.names.end()) continue;
      KnobField field{.knob = &knob, .name = knob.recipe};
      for (size_t i = 0; i < knob.names.size(); ++i) {
        if (knob.allowed == 0 || ((knob.allowed >> i) & 1) != 0) field.allowed.push_back(knob.names[i]);
      }
      out.push_back(std::move(field));
    }
    return out;
  }();
  return fields;
}

template <class V>
void visit_fields(V& v, ActiveParams& x) {
  v.field("count", x.count, {.range = &limits::kParameterCountRange});
  v.field("source", x.source, {});
  v.field("revision", x.revision, {});
}

template <class V>
void visit_fields(V& v, RecipeResult& x) {
  v.field("tokens_per_s_per_gpu", x.tokens_per_s_per_gpu, {});
  v.field("usd_per_million_tokens", x.usd_per_million_tokens, {});
  v.field("step_time_cv_percent", x.step_time_cv_percent, {});
  v.field("mfu", x.mfu, {});
  v.field("mfu_note", x.mfu_note, {});
  v.object("active_params", x.active_params);
  v.field("measured", x.measured, {.date = true});
  v.field("steps_per_run", x.steps_per_run, {.range = &limits::kStepCountRange});
  v.field("window", x.window, {.pair = true, .range = &limits::kStepIndexRange});
  v.field("window_tokens", x.window_tokens, {.range = &limits::kDatasetCountRange});
  v.field("runs", x.runs, {.range = &limits::kRunCountRange});
  v.field("profiler", x.profiler, {});
  v.field("gpu_hours", x.gpu_hours, {});
  v.field("gpu_hours_note", x.gpu_hours_note, {});
  v.field("peak_memory_gib", x.peak_memory_gib, {.omit_if_null = true, .positive = true});
  v.object("rl", x.rl, /*omit_if_null=*/true);
}

template <class V>
void visit_fields(V& v, RlPhaseSplit& x) {
  v.field("rollout", x.rollout, {});
  v.field("log_prob", x.log_prob, {});
  v.field("train", x.train, {});
  v.field("weight_update", x.weight_update, {});
  v.field("other", x.other, {});
}

template <class V>
void visit_fields(V& v, RlResult& x) {
  v.field("samples_per_s", x.samples_per_s, {});
  v.field("trained_tokens_per_s_per_gpu", x.trained_tokens_per_s_per_gpu, {});
  v.field("usd_per_million_trained_tokens", x.usd_per_million_trained_tokens, {});
  v.field("step_time_s", x.step_time_s, {});
  v.object("phase_split", x.phase_split);
}

template <class V>
void visit_fields(V& v, ComponentTest& x) {
  v.field("test", x.test, {});
  v.field("shape", x.shape, {});
  v.field("gpu", x.gpu, {});
  v.field("date", x.date, {.date = true});
  v.field("result", x.result, {.allowed = kPassFail});
  v.field("detail", x.detail, {});
  v.field("note", x.note, {});
}

template <class V>
void visit_fields(V& v, Convergence& x) {
  v.field("steps", x.steps, {.range = &limits::kStepCountRange});
  v.field("result", x.result, {.allowed = kPassFail});
  v.field("correlation", x.correlation, {});
  v.field("final_loss_difference", x.final_loss_difference, {});
  v.field("pointwise_failures", x.pointwise_failures, {.range = &limits::kFailureCountRange});
  v.field("note", x.note, {});
  v.field("reference_log", x.reference_log, {.omit_if_null = true});
  v.field("candidate_log", x.candidate_log, {.omit_if_null = true});
}

template <class V>
void visit_fields(V& v, Correctness& x) {
  v.field("result", x.result, {.allowed = kPassFailPending});
  v.field("summary", x.summary, {});
  v.field("reference", x.reference, {});
  v.field("configuration", x.configuration, {.allowed = kPassFailPending});
  v.list("component_tests", x.component_tests);
  v.object("convergence", x.convergence);
  v.field("rules", x.rules, {});
}

template <class V>
void visit_fields(V& v, PredictedPart& x) {
  v.field("name", x.name, {});
  v.field("value", x.value, {});
}

template <class V>
void visit_fields(V& v, Predicted& x) {
  v.field("planner", x.planner, {});
  v.field("tokens_per_s_per_gpu", x.tokens_per_s_per_gpu, {});
  v.field("step_time_s", x.step_time_s, {});
  v.field("mfu", x.mfu, {});
  v.field("usd_per_million_tokens", x.usd_per_million_tokens, {});
  v.field("tokens_per_s_per_gpu_low", x.tokens_per_s_per_gpu_low, {.omit_if_null = true});
  v.field("tokens_per_s_per_gpu_high", x.tokens_per_s_per_gpu_high, {.omit_if_null = true});
  v.field("memory_gib", x.memory_gib, {});
  v.list("step_time_breakdown", x.step_time_breakdown);
  v.list("memory_breakdown", x.memory_breakdown);
  v.list("stage_memory", x.stage_memory);
  v.object("active_params", x.active_params, /*omit_if_null=*/true);
  v.field("peak_tflops", x.peak_tflops, {.omit_if_null = true});
}

template <class V>
void visit_fields(V& v, Recipe& x) {
  v.field("schema_version", x.schema_version, {.range = &limits::kSchemaVersionRange});
  v.field("model", x.model, {});
  v.object("gpu", x.gpu);
  v.object("author", x.author);
  v.field("status", x.status, {.allowed = kStatuses});
  v.object("stack", x.stack);
  v.object("workload", x.workload);
  v.object("layout", x.layout);
  v.object("result", x.result);
  v.object("correctness", x.correctness);
  v.field("env", x.env, {});
  v.field("patches", x.patches, {});
  v.field("run", x.run, {.literal_block = true});
  v.field("notes", x.notes, {.literal_block = true, .omit_if_empty = true});
  v.object("predicted", x.predicted, /*omit_if_null=*/true);
}

}  // namespace ladle::recipe::detail
