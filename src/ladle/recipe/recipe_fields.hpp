#pragma once
// The one description of the recipe's fields, in file key order. The YAML reader, the YAML writer
// and the schema test all walk it, so the three cannot disagree.
//
// A visitor provides `field(name, member, FieldOptions)` for every member type used below,
// `object(name, member)` for nested structs and `knob_fields(fields)` for the layout block's optional
// knob fields; `visit_fields(v, value)` calls it once per field.
//
// The layout block has no vocabulary of its own: every field of it but the label, summary and
// highlights is the recipe column of a knob row (layout/knobs.hpp, read as constexpr data). Its core
// fields (tp, ..., dispatcher) are typed members of RecipeLayout, each declared here by its row's
// recipe column alone: the row, found at compile time, gives the key written, the kind (which must
// match the member's type), the allowed names and the range (its .recipe_range), and a column no
// row holds does not compile. The other rows with a recipe column are the block's
// optional fields (layout_knob_fields below), in table order.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
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
  /// The knob row a field of the layout block is (its recipe column); nullptr elsewhere.
  const layout::Knob* knob = nullptr;
};

inline constexpr std::string_view kStatuses[] = {"planned", "measured", "verified"};
inline constexpr std::string_view kPrecisions[] = {"bf16", "fp8"};
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

// --- the layout block: knob rows by their recipe column ---------------------------------------

/// The row whose recipe column is `field` ("tp", "recompute.granularity"), or nullptr.
constexpr const layout::Knob* knob_by_recipe(std::string_view field) {
  for (const layout::Knob& knob : layout::kKnobs) {
    if (knob.recipe == field) return &knob;
  }
  return nullptr;
}

namespace knob_field_detail {

/// A recipe column as a template argument ("tp", "recompute.granularity").
template <size_t N>
struct Column {
  char text[N] = {};
  consteval Column(const char (&s)[N]) { std::copy_n(s, N, text); }
  constexpr std::string_view view() const { return {text, N - 1}; }
};

template <class T> struct unwrap { using type = T; };
template <class T> struct unwrap<std::optional<T>> { using type = T; };

/// Whether a member of type T can hold a value of the row's kind.
template <class T>
constexpr bool holds_kind(layout::KnobKind kind) {
  using U = typename unwrap<T>::type;
  switch (kind) {
    case layout::KnobKind::integer: return std::is_same_v<U, int64_t>;
    case layout::KnobKind::flag: return std::is_same_v<U, bool>;
    case layout::KnobKind::real: return std::is_same_v<U, double>;
    case layout::KnobKind::set: return std::is_same_v<U, std::vector<std::string>>;
    case layout::KnobKind::choice:
    case layout::KnobKind::text: return std::is_same_v<U, std::string>;
  }
  return false;
}

/// The key a column is written under: its last part ("granularity" of "recompute.granularity").
constexpr std::string_view field_key(std::string_view column) { return column.substr(column.rfind('.') + 1); }

/// Whether the column names a field inside an object ("recompute.granularity").
constexpr bool in_object(std::string_view column) { return column.find('.') != std::string_view::npos; }

/// Whether some row's recipe column lies inside the object `name` ("recompute" of "recompute.method").
constexpr bool is_row_object(std::string_view name) {
  for (const layout::Knob& knob : layout::kKnobs) {
    if (in_object(knob.recipe) && knob.recipe.substr(0, knob.recipe.find('.')) == name) return true;
  }
  return false;
}

/// The names a choice or set field accepts: the row's names; a choice heading an object whose first
/// name is "none" (recompute.granularity) takes the others, as the block writes none as the
/// object's absence (`recompute: null`).
constexpr std::span<const std::string_view> allowed_names(const layout::Knob& knob) {
  if (knob.kind != layout::KnobKind::choice && knob.kind != layout::KnobKind::set) return {};
  if (knob.kind == layout::KnobKind::choice && in_object(knob.recipe) && knob.names.front() == "none") {
    return knob.names.subspan(1);
  }
  return knob.names;
}

/// The options of the row's field: its names and range, with the writer's `style` (omit_if_null).
constexpr FieldOptions row_options(const layout::Knob& knob, FieldOptions style) {
  style.allowed = allowed_names(knob);
  style.range = knob.recipe_range;
  style.knob = &knob;
  return style;
}

}  // namespace knob_field_detail

/// Visits the member that holds the recipe column `C` of its knob row, under the row's key, kind,
/// names and range. `style` says only how the writer spells an absent value.
template <knob_field_detail::Column C, class V, class T>
void knob_member(V& v, T& member, FieldOptions style = {}) {
  constexpr const layout::Knob* knob = knob_by_recipe(C.view());
#if !defined(__SANITIZE_ADDRESS__)  // GCC cannot fold the null comparison under -fsanitize=address
  static_assert(knob != nullptr, "a typed field of the layout block names a recipe column no knob row has");
#endif
  static_assert(knob_field_detail::holds_kind<T>(knob->kind),
                "a typed field of the layout block does not hold its knob row's kind");
  static_assert(knob->kind != layout::KnobKind::choice || knob->allowed == 0,
                "a typed choice field takes all of its row's names");
  static constexpr FieldOptions options = knob_field_detail::row_options(*knob, {});
  style.allowed = options.allowed;
  style.range = options.range;
  style.knob = options.knob;
  v.field(knob_field_detail::field_key(C.view()), member, style);
}

/// Visits an object of the layout block whose fields are rows' recipe columns ("recompute").
template <knob_field_detail::Column C, class V, class T>
void knob_object(V& v, T& member) {
  static_assert(knob_field_detail::is_row_object(C.view()),
                "an object of the layout block holds no knob row's recipe column");
  v.object(C.view(), member);
}

template <class V>
void visit_fields(V& v, LayerSplit& x) {
  knob_member<"layer_split.first">(v, x.first);
  knob_member<"layer_split.last">(v, x.last);
}

template <class V>
void visit_fields(V& v, Recompute& x) {
  knob_member<"recompute.granularity">(v, x.granularity);
  knob_member<"recompute.method">(v, x.method);
  knob_member<"recompute.num_layers">(v, x.num_layers);
  knob_member<"recompute.modules">(v, x.modules, {.omit_if_null = true});
}

template <class V>
void visit_fields(V& v, Offload& x) {
  knob_member<"offload.optimizer_fraction">(v, x.optimizer_fraction);
  knob_member<"offload.overlap_d2h_h2d">(v, x.overlap_d2h_h2d);
}

template <class V>
void visit_fields(V& v, RecipeLayout& x) {
  v.field("label", x.label, {});
  v.field("summary", x.summary, {});
  v.field("highlights", x.highlights, {});
  knob_member<"tp">(v, x.tp);
  knob_member<"pp">(v, x.pp);
  knob_member<"vpp">(v, x.vpp);
  knob_member<"cp">(v, x.cp);
  knob_member<"ep">(v, x.ep);
  knob_member<"etp">(v, x.etp);
  knob_member<"dp">(v, x.dp);
  knob_member<"sequence_parallel">(v, x.sequence_parallel);
  knob_object<"layer_split">(v, x.layer_split);
  knob_member<"max_tokens_per_gpu">(v, x.max_tokens_per_gpu);
  knob_member<"rows_per_microbatch">(v, x.rows_per_microbatch);
  knob_object<"recompute">(v, x.recompute);
  knob_object<"offload">(v, x.offload);
  knob_member<"dispatcher">(v, x.dispatcher);
  v.knob_fields(x.knobs);
}

/// One optional field of the layout block: a knob row with a recipe column of its own.
struct KnobField {
  const layout::Knob* knob = nullptr;
  std::string_view name;                   ///< the row's recipe column
  std::vector<std::string_view> allowed;  ///< a choice's or set's names the row accepts (all, unless `allowed` bits)
  FieldOptions options() const {
    return {.allowed = allowed, .omit_if_null = true, .range = knob->recipe_range, .knob = knob};
  }
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
