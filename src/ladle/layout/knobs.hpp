#pragma once
// knobs.hpp: the one table of layout knobs. Each row is one field of Layout: its spec key, the
// launch arguments that set it for each engine (Megatron-LM's spelling, which slime and miles pass
// through, and Megatron-Bridge's config override), its recipe `layout:` field, its default per
// engine, its allowed values, and whether `ladle plan` searches it. The spec parser and formatter,
// the engine-argument reader and writer, the recipe layout block and the rules all walk this table;
// adding a knob is one row here (plus its cost terms in the memory and time models).
//
// The gradient reduce dtype's and the MXFP8 buffer reuse's overrides are mixed_precision.*:
// MixedPrecisionConfig.setup copies its fields over the ddp config's (NVIDIA-NeMo/Megatron-Bridge
// src/megatron/bridge/training/mixed_precision.py at 067f987d).
//
// Sources: Megatron-LM (NVIDIA/Megatron-LM at d98e8a64) megatron/training/arguments.py,
// megatron/core/transformer/transformer_config.py, megatron/core/model_parallel_config.py; slime
// (THUDM/slime at 624b824a) slime/backends/megatron_utils/arguments.py, which always sets
// --use-distributed-optimizer and turns the allgather dispatcher into alltoall.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ladle/layout/knob_names.hpp"
#include "ladle/layout/layout.hpp"
#include "ladle/util/limits.hpp"

namespace ladle::layout {

/// What a knob's value is.
enum class KnobKind : uint8_t {
  integer,  ///< a count in [min, max]
  flag,     ///< on | off
  real,     ///< a number in [min_real, max_real]
  choice,   ///< one of `names`, stored as the enum with that index
  set,      ///< any subset of `names`, stored as bits; spec "a+b", arguments "a b"
  text,     ///< a string (the pipeline layout)
};

/// How one launch argument carries a knob.
enum class ArgForm : uint8_t {
  value,   ///< --flag VALUE (the value as the spec writes it; sets: one word per member)
  on,      ///< a switch: present means the knob holds `on_value`
};

/// The engines a launch argument belongs to (bits).
enum EngineMask : uint8_t {
  kSlime = 1,
  kMiles = 2,
  kMegatron = 4,
  kAllEngines = kSlime | kMiles | kMegatron,
  /// Megatron-Bridge alone: a config field of Megatron-Core that no Megatron-LM argument sets. Its
  /// `flag` is the override key itself (model.activation_func_fp8_input_store), which only the
  /// Bridge job writes and only Bridge overrides read; the other engines refuse the knob's
  /// non-default values (`no_engine`).
  kBridgeOnly = 8,
};

/// One launch argument of a knob. The first argument of a row that an engine takes is the one
/// written for it (a switch only when the knob holds its on_value); the others are read as well
/// (older spellings, the other switch of a two-switch knob).
struct KnobArg {
  std::string_view flag;
  ArgForm form = ArgForm::value;
  std::string_view on_value = "on";  ///< ArgForm::on: the value the switch sets
  uint8_t engines = kAllEngines;
  bool deprecated = false;  ///< read, never written
  /// A switch's own Megatron-Bridge override (`key=true`) where it is not the knob's `.bridge`.
  std::string_view bridge;
  /// A value argument written as group sizes: the knob's value A and this other knob's value over
  /// it, two words "A B" (a Hydra list [A,B] for Megatron-Bridge); read back from A.
  std::string_view of;
  /// A switch whose value Megatron-LM gives a BF16 run without it (validate_args sets
  /// accumulate_allreduce_grads_in_fp32 for bf16 with FP32 main gradients, megatron/training/
  /// arguments.py at d98e8a64): a BF16 job planned over a user's job that left it out leaves it out.
  bool bf16_default = false;
};

/// When a row is written into a spec, a recipe block or launch arguments.
enum class Written : uint8_t {
  always,       ///< every time (the core sizes)
  not_default,  ///< when the value differs from the default
  folded,       ///< never on its own: the spec writes it inside another key (recompute)
};

/// A condition on another knob: the row means something only when knob `key` holds `value`
/// (or, with `negate`, anything but `value`).
struct KnobWhen {
  std::string_view key;
  std::string_view value;
  bool negate = false;
};

/// When a companion argument is written.
enum class CompanionWhen : uint8_t {
  applies,      ///< whenever the row's condition holds (its `when`)
  not_default,  ///< when the row's value differs from the engine's default
};

/// What a companion argument carries.
enum class CompanionValue : uint8_t {
  none,        ///< a switch
  row_tokens,  ///< the workload's tokens per row
};

/// A launch argument that is not a knob's value but goes with its row's own argument (slime's
/// dynamic-batching switch, the host-offload switch, Megatron-LM's sequence length beside the
/// micro-batch size). The engine writer and reader walk a row's companions; no knob is named in
/// their code.
struct CompanionArg {
  std::string_view flag;  ///< the argument
  uint8_t engines = kAllEngines;
  bool before = false;  ///< written before the row's own argument (else after it)
  CompanionWhen when = CompanionWhen::applies;
  CompanionValue value = CompanionValue::none;
  /// A switch that gives its row this value when the row's own argument is absent (spec text);
  /// the writer then leaves the row's argument out at this value, and the reader sets the row to
  /// it, or to its default when the switch is absent. "" when the switch implies nothing.
  std::string_view implied;
};

/// One knob.
struct Knob {
  std::string_view key;  ///< spec key and recipe field name
  KnobKind kind = KnobKind::integer;
  std::span<const std::string_view> names;  ///< choice and set values, in enum order
  uint32_t allowed = 0;  ///< choice: bits of the names this knob accepts (0: all of them)
  int64_t min = 0;  ///< integer range
  int64_t max = 0;
  double min_real = 0;  ///< real range
  double max_real = 0;
  std::span<const KnobArg> args;  ///< launch arguments, written form first
  std::span<const CompanionArg> companions;  ///< arguments written beside the row's own, in order
  std::string_view bridge;        ///< Megatron-Bridge config override ("" none)
  std::string_view recipe;        ///< field of the recipe `layout:` block ("" none)
  /// An integer recipe field's bounds with their reason (util/limits.hpp), which the recipe reader
  /// enforces where it reads the field; every integer row with a recipe field names one. They are
  /// not the row's [min, max], which is what a spec or a launch argument may say (kMaxParallel,
  /// kMaxTokens: wide, for reading any job): a recipe is held to limits.hpp's bounds, which keep the
  /// products ladle computes from it within 64 bits. Megatron-LM bounds none of the sizes above
  /// (megatron/training/arguments.py at d98e8a64 only asks them to divide the world size and the
  /// layers), so neither bound is Megatron-LM's.
  const limits::IntegerRange* recipe_range = nullptr;
  /// A recipe field the block leaves out where another knob implies its value: absent, the row holds
  /// this value (spec text; "@key" another knob's value) when `recipe_implied_when` holds, and the
  /// writer leaves the field out at that value ("" none: absent is the row's default).
  std::string_view recipe_implied;
  KnobWhen recipe_implied_when;  ///< when the implied value holds ({} = always)
  /// The value when no argument sets it, as the spec writes it ("" = Layout's default): Megatron-LM's
  /// pretrain_gpt.py, and slime / miles (which override a few of Megatron-LM's). "@key" follows
  /// another knob's value (etp defaults to tp).
  std::string_view megatron_default;
  std::string_view slime_default;
  Written spec = Written::not_default;  ///< when the spec and the recipe block write it
  Written engine = Written::not_default;  ///< when the launch arguments write it
  KnobWhen when;            ///< meaningful only under this condition ({} = always)
  /// Meaningful only for a model with experts: a dense model's job writes none of its arguments.
  bool experts = false;
  bool searchable = false;  ///< `ladle plan` enumerates it
  /// The values `ladle plan` tries, as the spec writes them, separated by spaces ("" for the sizes
  /// and splits the search derives from the model and the GPU count). A knob whose `when` names
  /// another searched knob is tried under each of that knob's values it applies to.
  std::string_view search;
  /// The search's bounds: the searched value that needs the least memory, and the one that runs
  /// fastest, whatever the other knobs hold ("" when the knob is not searched one value at a time,
  /// or does not matter to the bound). The memory and time models must keep these true; the
  /// search's brute-force test checks them on every layout of several spaces.
  std::string_view least_memory;
  std::string_view fastest;
  std::string_view help;
  /// Why no engine runs a value other than the default ("" when every value has its argument):
  /// writing such a layout's launch arguments is refused with this line.
  std::string_view no_engine;
  /// A choice another framework's launcher takes but no engine ladle writes (AMD Primus's
  /// --fp4-recipe mxfp4): read and priced, and writing a layout holding it is refused with
  /// `foreign_line` ("" none).
  std::string_view foreign_choice;
  std::string_view foreign_line;
  // Accessors: integers, flags, choices and sets go through get/set, reals through get_real/set_real,
  // text through get_text/set_text.
  int64_t (*get)(const Layout&) = nullptr;
  void (*set)(Layout&, int64_t) = nullptr;
  double (*get_real)(const Layout&) = nullptr;
  void (*set_real)(Layout&, double) = nullptr;
  const std::string& (*get_text)(const Layout&) = nullptr;
  void (*set_text)(Layout&, std::string_view) = nullptr;
};

namespace knob_detail {

template <auto Member>
int64_t get(const Layout& l) {
  return static_cast<int64_t>(l.*Member);
}
template <auto Member>
void set(Layout& l, int64_t value) {
  using T = std::remove_cvref_t<decltype(l.*Member)>;
  l.*Member = static_cast<T>(value);
}
template <auto Member>
double get_real(const Layout& l) {
  return l.*Member;
}
template <auto Member>
void set_real(Layout& l, double value) {
  l.*Member = value;
}
inline const std::string& get_pipeline_layout(const Layout& l) { return l.pipeline_layout; }
inline void set_pipeline_layout(Layout& l, std::string_view value) { l.pipeline_layout = std::string(value); }
inline const std::string& get_lora_targets(const Layout& l) { return l.lora_targets; }
inline void set_lora_targets(Layout& l, std::string_view value) { l.lora_targets = std::string(value); }

}  // namespace knob_detail

namespace knob_args {
using enum ArgForm;
inline constexpr KnobArg tp[] = {{"--tensor-model-parallel-size"}};
inline constexpr KnobArg pp[] = {{"--pipeline-model-parallel-size"}};
inline constexpr KnobArg cp[] = {{"--context-parallel-size"}};
inline constexpr KnobArg ep[] = {{"--expert-model-parallel-size"}};
inline constexpr KnobArg etp[] = {{"--expert-tensor-parallel-size"}};
inline constexpr KnobArg sp[] = {{"--sequence-parallel", on}};
inline constexpr KnobArg vpp[] = {{"--num-virtual-stages-per-pipeline-rank"},
                                  {"--virtual-pipeline-model-parallel-size", value, "on", kAllEngines, true}};
inline constexpr KnobArg first[] = {{"--decoder-first-pipeline-num-layers"}};
inline constexpr KnobArg last[] = {{"--decoder-last-pipeline-num-layers"}};
inline constexpr KnobArg vpp_layers[] = {{"--num-layers-per-virtual-pipeline-stage"}};
inline constexpr KnobArg account_embedding[] = {{"--account-for-embedding-in-pipeline-split", on}};
inline constexpr KnobArg account_loss[] = {{"--account-for-loss-in-pipeline-split", on}};
inline constexpr KnobArg pipeline_layout[] = {{"--pipeline-model-parallel-layout"}};
inline constexpr KnobArg recompute[] = {{"--recompute-granularity"}};
inline constexpr KnobArg recompute_method[] = {{"--recompute-method"}};
inline constexpr KnobArg recompute_layers[] = {{"--recompute-num-layers"}};
inline constexpr KnobArg recompute_modules[] = {{"--recompute-modules"}};
inline constexpr KnobArg offload[] = {{"--optimizer-offload-fraction"}};
inline constexpr KnobArg overlap[] = {{"--overlap-cpu-optimizer-d2h-h2d", on}};
inline constexpr KnobArg precision_aware[] = {{"--use-precision-aware-optimizer", on}};
inline constexpr KnobArg moments[] = {{"--exp-avg-dtype"}};
inline constexpr KnobArg moments_sq[] = {{"--exp-avg-sq-dtype"}};
inline constexpr KnobArg main_grads[] = {{"--main-grads-dtype"}};
inline constexpr KnobArg main_params[] = {{"--main-params-dtype"}};
inline constexpr KnobArg grad_reduce[] = {
    {"--grad-reduce-in-bf16", on, "bf16"},
    {.flag = "--accumulate-allreduce-grads-in-fp32", .form = on, .on_value = "fp32", .bf16_default = true}};
inline constexpr KnobArg dist_opt[] = {{"--use-distributed-optimizer", on}};
inline constexpr KnobArg dist_opt_instances[] = {{"--num-distributed-optimizer-instances"}};
inline constexpr KnobArg max_tokens[] = {{"--max-tokens-per-gpu", value, "on", kSlime | kMiles}};
inline constexpr KnobArg rows_per_mb[] = {{"--micro-batch-size", value, "on", kMegatron}};
inline constexpr KnobArg dispatcher[] = {{"--moe-token-dispatcher-type"}};
inline constexpr KnobArg flex_backend[] = {{"--moe-enable-deepep", on, "deepep"}, {"--moe-flex-dispatcher-backend"}};
inline constexpr KnobArg a2a_overlap[] = {{"--overlap-moe-expert-parallel-comm", on}};
inline constexpr KnobArg delay_wgrad[] = {{"--delay-wgrad-compute", on}};
inline constexpr KnobArg shared_overlap[] = {{"--moe-shared-expert-overlap", on}};
inline constexpr KnobArg force_balance[] = {{"--moe-router-force-load-balancing", on}};
inline constexpr KnobArg capacity[] = {{"--moe-expert-capacity-factor"}};
inline constexpr KnobArg pad_capacity[] = {{"--moe-pad-expert-input-to-capacity", on}};
inline constexpr KnobArg rank_capacity[] = {{"--moe-expert-rank-capacity-factor"}};
inline constexpr KnobArg paged_stash[] = {{"--moe-paged-stash", on}};
inline constexpr KnobArg stash_factor[] = {{"--moe-paged-stash-buffer-size-factor-cuda"}};
inline constexpr KnobArg permute_fusion[] = {{"--moe-permute-fusion", on}};
inline constexpr KnobArg router_fusion[] = {{"--moe-router-fusion", on}};
inline constexpr KnobArg router_dtype[] = {{"--moe-router-dtype"}};
inline constexpr KnobArg fp8[] = {{"--fp8-format"}};
inline constexpr KnobArg fp8_recipe[] = {{"--fp8-recipe"}};
inline constexpr KnobArg fp8_param_gather[] = {{"--fp8-param-gather", on}};
inline constexpr KnobArg fp8_bf16_edges[] = {{"--first-last-layers-bf16", on}};
inline constexpr KnobArg fp8_bf16_first[] = {{"--num-layers-at-start-in-bf16"}};
inline constexpr KnobArg fp8_bf16_last[] = {{"--num-layers-at-end-in-bf16"}};
inline constexpr KnobArg fp8_reuse_grad_buf[] = {{"--reuse-grad-buf-for-mxfp8-param-ag", on}};
inline constexpr KnobArg act_fp8_store[] = {{"model.activation_func_fp8_input_store", on, "on", kBridgeOnly}};
inline constexpr KnobArg fp8_dpa[] = {{"mixed_precision.fp8_dot_product_attention", on, "on", kBridgeOnly}};
inline constexpr KnobArg fp8_amax_history[] = {{"--fp8-amax-history-len"}};
inline constexpr KnobArg fp8_amax_algo[] = {{"--fp8-amax-compute-algo"}};
inline constexpr KnobArg grad_accum_fusion[] = {{"--no-gradient-accumulation-fusion", on, "off"}};
inline constexpr KnobArg swiglu_fusion[] = {{"--no-bias-swiglu-fusion", on, "off"}};
inline constexpr KnobArg fp4[] = {{"--fp4-format"}};
inline constexpr KnobArg fp4_recipe[] = {{"--fp4-recipe"}};
inline constexpr KnobArg fp4_param_gather[] = {{"--fp4-param-gather", on}};
inline constexpr KnobArg cuda_graph[] = {{"--cuda-graph-impl"},
                                         {"--enable-cuda-graph", on, "local", kAllEngines, true},
                                         {"--external-cuda-graph", on, "transformer_engine", kAllEngines, true}};
inline constexpr KnobArg graph_modules[] = {{"--cuda-graph-modules"},
                                            {"--cuda-graph-scope", value, "on", kAllEngines, true}};
inline constexpr KnobArg overlap_grad[] = {{"--overlap-grad-reduce", on}};
inline constexpr KnobArg overlap_param[] = {{"--overlap-param-gather", on}};
inline constexpr KnobArg tp_overlap[] = {{"--tp-comm-overlap", on}};
// Megatron-Bridge's FSDP2 switch is dist.use_torch_fsdp2 (NVIDIA-NeMo/Megatron-Bridge
// src/megatron/bridge/training/config.py at 067f987d, DistributedInitConfig).
inline constexpr KnobArg fsdp[] = {{"--use-megatron-fsdp", on, "megatron"},
                                   {"--use-torch-fsdp2", on, "torch", kAllEngines, false, "dist.use_torch_fsdp2"}};
inline constexpr KnobArg fsdp_sharding[] = {{"--data-parallel-sharding-strategy"}};
inline constexpr KnobArg ce_fusion[] = {{"--cross-entropy-loss-fusion", on}};
inline constexpr KnobArg ce_impl[] = {{"--cross-entropy-fusion-impl"}};
inline constexpr KnobArg act_offload[] = {{"--fine-grained-activation-offloading", on}};
inline constexpr KnobArg offload_modules[] = {{"--offload-modules"}};
inline constexpr KnobArg act_offload_fraction[] = {{"--activation-offload-fraction"}};
inline constexpr KnobArg cpu_offload_layers[] = {{"--cpu-offloading-num-layers"}};
inline constexpr KnobArg cp_comm[] = {{"--cp-comm-type"}};
inline constexpr KnobArg cp_inner[] = {{"--hierarchical-context-parallel-sizes", value, "on", kAllEngines, false, "", "cp"}};
inline constexpr KnobArg fp16[] = {{"--fp16", on}};
// miles' LoRA arguments (miles/utils/arguments.py, add_lora_arguments, at 31f1ca96); slime has none.
inline constexpr KnobArg lora_rank[] = {{"--lora-rank", value, "on", kMiles}};
inline constexpr KnobArg lora_alpha[] = {{"--lora-alpha", value, "on", kMiles}};
inline constexpr KnobArg lora_targets[] = {{"--target-modules", value, "on", kMiles}};
// slime's and miles' colocation and weight-update arguments (slime/utils/arguments.py at 624b824a;
// miles/utils/arguments.py at 31f1ca96 spells them alike).
inline constexpr KnobArg colocate[] = {{"--colocate", on, "on", kSlime | kMiles}};
inline constexpr KnobArg sglang_mem_fraction[] = {{"--sglang-mem-fraction-static", value, "on", kSlime | kMiles}};
inline constexpr KnobArg update_buffer[] = {{"--update-weight-buffer-size", value, "on", kSlime | kMiles}};
}  // namespace knob_args

namespace knob_companions {
// slime's dynamic batching: --use-dynamic-batch-size makes --max-tokens-per-gpu the microbatch
// (slime/utils/arguments.py at 624b824a; miles spells it alike).
inline constexpr CompanionArg max_tokens[] = {
    {.flag = "--use-dynamic-batch-size", .engines = kSlime | kMiles, .before = true}};
// Megatron-LM's host offload: --optimizer-cpu-offload turns it on, and --optimizer-offload-fraction
// defaults to 1.0 (megatron/training/arguments.py at d98e8a64); without the switch nothing is
// offloaded whatever the fraction says.
inline constexpr CompanionArg offload[] = {
    {.flag = "--optimizer-cpu-offload", .before = true, .when = CompanionWhen::not_default, .implied = "1.0"}};
// Megatron-LM's fixed micro-batches: --micro-batch-size rows of --seq-length tokens.
inline constexpr CompanionArg rows_per_mb[] = {
    {.flag = "--seq-length", .engines = kMegatron, .value = CompanionValue::row_tokens}};
}  // namespace knob_companions

inline constexpr int64_t kMaxParallel = 65536;
inline constexpr int64_t kMaxTokens = int64_t{1} << 32;

namespace knob_detail {
using K = KnobKind;
using W = Written;
using L = Layout;
namespace a = knob_args;
namespace c = knob_companions;
// clang-format off
inline constexpr Knob kKnobs[] = {
  // Parallel sizes.
  {.key = "tp", .kind = K::integer, .min = 1, .max = kMaxParallel, .args = a::tp,
   .bridge = "model.tensor_model_parallel_size", .recipe = "tp", .recipe_range = &limits::kParallelRange, .spec = W::always,
   .engine = W::always, .searchable = true, .help = "tensor parallel size", .get = get<&L::tp>, .set = set<&L::tp>},
  {.key = "pp", .kind = K::integer, .min = 1, .max = kMaxParallel, .args = a::pp,
   .bridge = "model.pipeline_model_parallel_size", .recipe = "pp", .recipe_range = &limits::kParallelRange, .spec = W::always,
   .engine = W::always, .searchable = true, .help = "pipeline parallel size", .get = get<&L::pp>, .set = set<&L::pp>},
  {.key = "cp", .kind = K::integer, .min = 1, .max = kMaxParallel, .args = a::cp,
   .bridge = "model.context_parallel_size", .recipe = "cp", .recipe_range = &limits::kParallelRange, .spec = W::always,
   .engine = W::always, .searchable = true, .help = "context parallel size", .get = get<&L::cp>, .set = set<&L::cp>},
  {.key = "ep", .kind = K::integer, .min = 1, .max = kMaxParallel, .args = a::ep,
   .bridge = "model.expert_model_parallel_size", .recipe = "ep", .recipe_range = &limits::kParallelRange, .spec = W::always,
   .engine = W::always, .experts = true, .searchable = true, .help = "expert parallel size", .get = get<&L::ep>, .set = set<&L::ep>},
  {.key = "etp", .kind = K::integer, .min = 1, .max = kMaxParallel, .args = a::etp,
   .bridge = "model.expert_tensor_parallel_size", .recipe = "etp", .recipe_range = &limits::kParallelRange, .megatron_default = "@tp",
   .slime_default = "@tp", .spec = W::always, .engine = W::always, .experts = true, .searchable = true, .help = "expert tensor parallel size",
   .get = get<&L::etp>, .set = set<&L::etp>},
  {.key = "dp", .kind = K::integer, .min = 1, .max = kMaxParallel, .recipe = "dp", .recipe_range = &limits::kParallelRange,
   .spec = W::not_default,
   .searchable = true, .help = "data parallel size (derived from the GPU count when left out)",
   .get = get<&L::dp>, .set = set<&L::dp>},
  {.key = "sp", .kind = K::flag, .args = a::sp, .bridge = "model.sequence_parallel", .recipe = "sequence_parallel",
   .spec = W::always, .searchable = true, .help = "sequence parallel", .get = get<&L::sp>, .set = set<&L::sp>},
  // Pipeline split.
  {.key = "vpp", .kind = K::integer, .min = 1, .max = kMaxParallel, .args = a::vpp,
   .bridge = "model.virtual_pipeline_model_parallel_size", .recipe = "vpp", .recipe_range = &limits::kParallelRange, .spec = W::always,
   .searchable = true,
   .search = "1 2 4", .help = "virtual pipeline stages per pipeline rank", .get = get<&L::vpp>, .set = set<&L::vpp>},
  {.key = "first", .kind = K::integer, .min = 1, .max = kMaxParallel, .args = a::first,
   .bridge = "model.num_layers_in_first_pipeline_stage", .recipe = "layer_split.first",
   .recipe_range = &limits::kLayerCountRange, .searchable = true,
   .help = "decoder layers on the first pipeline stage", .get = get<&L::first>, .set = set<&L::first>},
  {.key = "last", .kind = K::integer, .min = 1, .max = kMaxParallel, .args = a::last,
   .bridge = "model.num_layers_in_last_pipeline_stage", .recipe = "layer_split.last",
   .recipe_range = &limits::kLayerCountRange, .searchable = true,
   .help = "decoder layers on the last pipeline stage", .get = get<&L::last>, .set = set<&L::last>},
  {.key = "recompute", .kind = K::choice, .names = kGranularityNames, .args = a::recompute,
   .bridge = "model.recompute_granularity", .recipe = "recompute.granularity", .spec = W::always, .searchable = true,
   .search = "none selective full", .least_memory = "full", .fastest = "none", .help = "none | selective | full[:uniform|block[:layers]]", .get = get<&L::recompute>, .set = set<&L::recompute>},
  {.key = "recompute_method", .kind = K::choice, .names = kRecomputeMethodNames, .args = a::recompute_method,
   .bridge = "model.recompute_method", .recipe = "recompute.method", .spec = W::folded, .engine = W::always,
   .when = {"recompute", "full"}, .help = "full recompute: uniform or block",
   .get = get<&L::recompute_method>, .set = set<&L::recompute_method>},
  {.key = "recompute_layers", .kind = K::integer, .min = 1, .max = kMaxParallel, .args = a::recompute_layers,
   .bridge = "model.recompute_num_layers", .recipe = "recompute.num_layers",
   .recipe_range = &limits::kLayerCountRange, .spec = W::folded, .engine = W::always,
   .when = {"recompute", "full"}, .searchable = true, .search = "1", .help = "full recompute: layers per chunk (uniform) or per stage (block)",
   .get = get<&L::recompute_layers>, .set = set<&L::recompute_layers>},
  {.key = "offload", .kind = K::real, .min_real = 0, .max_real = 1, .args = a::offload,
   .companions = c::offload, .bridge = "optimizer.optimizer_offload_fraction", .recipe = "offload.optimizer_fraction", .spec = W::always,
   .searchable = true, .search = "0.0 0.5 1.0", .help = "fraction of optimizer states on the host (--optimizer-cpu-offload)",
   .get_real = get_real<&L::offload>, .set_real = set_real<&L::offload>},
  {.key = "overlap", .kind = K::flag, .args = a::overlap, .bridge = "optimizer.overlap_cpu_optimizer_d2h_h2d",
   .recipe = "offload.overlap_d2h_h2d", .spec = W::always, .when = {"offload", "0.0", true}, .searchable = true,
   .help = "overlap the host optimizer's copies", .get = get<&L::overlap>, .set = set<&L::overlap>},
  {.key = "precision_aware", .kind = K::flag, .args = a::precision_aware,
   .bridge = "optimizer.use_precision_aware_optimizer", .recipe = "precision_aware",
   .recipe_implied = "on", .recipe_implied_when = {"offload", "0.0", true}, .spec = W::always,
   .searchable = true, .help = "the precision-aware optimizer", .get = get<&L::precision_aware>,
   .set = set<&L::precision_aware>},
  {.key = "moments", .kind = K::choice, .names = kStateDtypeNames, .args = a::moments,
   .bridge = "optimizer.exp_avg_dtype", .recipe = "exp_avg_dtype",
   .help = "first Adam moment dtype (the spec's moments= sets both moments)", .get = get<&L::moments>,
   .set = set<&L::moments>},
  {.key = "moments_sq", .kind = K::choice, .names = kStateDtypeNames, .args = a::moments_sq,
   .bridge = "optimizer.exp_avg_sq_dtype", .recipe = "exp_avg_sq_dtype", .recipe_implied = "@moments",
   .help = "second Adam moment dtype", .get = get<&L::moments_sq>, .set = set<&L::moments_sq>},
  {.key = "max_tokens", .kind = K::integer, .min = 1, .max = kMaxTokens, .args = a::max_tokens,
   .companions = c::max_tokens, .recipe = "max_tokens_per_gpu", .recipe_range = &limits::kTokensPerGpuRange,
   .engine = W::always, .searchable = true,
   .help = "tokens per GPU per microbatch (slime's dynamic batching)", .get = get<&L::max_tokens>,
   .set = set<&L::max_tokens>},
  {.key = "rows_per_mb", .kind = K::integer, .min = 1, .max = kMaxParallel, .args = a::rows_per_mb,
   .companions = c::rows_per_mb, .bridge = "train.micro_batch_size", .recipe = "rows_per_microbatch",
   .recipe_range = &limits::kBatchRowsRange, .spec = W::always, .engine = W::always,
   .searchable = true, .search = "1 2 4 8", .help = "rows per microbatch", .get = get<&L::rows_per_mb>, .set = set<&L::rows_per_mb>},
  {.key = "dispatcher", .kind = K::choice, .names = kDispatcherNames, .args = a::dispatcher,
   .bridge = "model.moe_token_dispatcher_type", .recipe = "dispatcher", .megatron_default = "allgather",
   .slime_default = "alltoall", .spec = W::always, .engine = W::always, .experts = true, .searchable = true,
   .search = "alltoall allgather flex", .help = "MoE token dispatcher", .get = get<&L::dispatcher>, .set = set<&L::dispatcher>},
  // Everything below is new to the spec: written only when not at its default.
  {.key = "main_grads", .kind = K::choice, .names = kStateDtypeNames, .allowed = 0b11, .args = a::main_grads,
   .bridge = "optimizer.main_grads_dtype", .recipe = "main_grads_dtype", .help = "main gradient dtype",
   .get = get<&L::main_grads>, .set = set<&L::main_grads>},
  {.key = "main_params", .kind = K::choice, .names = kStateDtypeNames, .allowed = 0b101, .args = a::main_params,
   .bridge = "optimizer.main_params_dtype", .recipe = "main_params_dtype", .help = "master weight dtype (fp32 | fp16)",
   .get = get<&L::main_params>, .set = set<&L::main_params>},
  {.key = "grad_reduce", .kind = K::choice, .names = kStateDtypeNames, .allowed = 0b11, .args = a::grad_reduce,
   .bridge = "mixed_precision.grad_reduce_in_fp32", .recipe = "grad_reduce_dtype", .engine = W::always, .searchable = true,
   .search = "fp32 bf16", .least_memory = "bf16", .fastest = "bf16", .help = "gradient buffer and reduce dtype", .get = get<&L::grad_reduce>, .set = set<&L::grad_reduce>},
  {.key = "dist_opt", .kind = K::flag, .args = a::dist_opt, .bridge = "ddp.use_distributed_optimizer",
   .recipe = "distributed_optimizer", .megatron_default = "off", .slime_default = "on",
   .help = "distributed optimizer (states sharded over data parallel)", .get = get<&L::dist_opt>,
   .set = set<&L::dist_opt>},
  {.key = "dist_opt_instances", .kind = K::integer, .min = 1, .max = kMaxParallel, .args = a::dist_opt_instances,
   .bridge = "ddp.num_distributed_optimizer_instances", .recipe = "distributed_optimizer_instances", .recipe_range = &limits::kParallelRange,
   .help = "distributed optimizer copies across data parallel", .get = get<&L::dist_opt_instances>,
   .set = set<&L::dist_opt_instances>},
  {.key = "vpp_layers", .kind = K::integer, .min = 1, .max = kMaxParallel, .args = a::vpp_layers,
   .recipe = "layers_per_virtual_stage", .recipe_range = &limits::kLayerCountRange, .help = "decoder layers per virtual pipeline stage (sets vpp)",
   .get = get<&L::vpp_layers>, .set = set<&L::vpp_layers>},
  {.key = "account_embedding", .kind = K::flag, .args = a::account_embedding,
   .bridge = "model.account_for_embedding_in_pipeline_split", .recipe = "account_for_embedding", .searchable = true,
   .help = "count the embedding as a layer when splitting the pipeline", .get = get<&L::account_embedding>,
   .set = set<&L::account_embedding>},
  {.key = "account_loss", .kind = K::flag, .args = a::account_loss,
   .bridge = "model.account_for_loss_in_pipeline_split", .recipe = "account_for_loss", .searchable = true,
   .help = "count the loss as a layer when splitting the pipeline", .get = get<&L::account_loss>,
   .set = set<&L::account_loss>},
  {.key = "pipeline_layout", .kind = K::text, .args = a::pipeline_layout,
   .bridge = "model.pipeline_model_parallel_layout", .recipe = "pipeline_layout",
   .help = "pipeline layout string, e.g. Et*3|(tt|)*29m|L", .get_text = get_pipeline_layout,
   .set_text = set_pipeline_layout},
  // DualPipe (DeepSeek-V3 report, arXiv 2412.19437, section 3.2.1; deepseek-ai/DualPipe): no
  // Megatron-LM or Megatron-Bridge argument selects it (NVIDIA/Megatron-LM pull request 5254 ported
  // the schedule as a module, closed without wiring it to arguments), so it is a spec and recipe
  // value only, for pricing runs that used it.
  {.key = "schedule", .kind = K::choice, .names = kPipelineScheduleNames, .recipe = "pipeline_schedule",
   .help = "pipeline schedule: 1f1b (interleaved with vpp > 1) or dualpipe (DeepSeek-V3)",
   .no_engine = "no Megatron-LM argument runs DualPipe (schedule=dualpipe): it prices runs of DeepSeek's own "
                "trainer only",
   .get = get<&L::schedule>, .set = set<&L::schedule>},
  {.key = "recompute_modules", .kind = K::set, .names = kRecomputeModuleNames, .args = a::recompute_modules,
   .bridge = "model.recompute_modules", .recipe = "recompute.modules", .when = {"recompute", "selective"},
   .searchable = true, .search = "core_attn moe_act layernorm+moe_act layernorm+mla_up_proj+moe_act layernorm+mlp moe", .help = "selective recompute modules", .get = get<&L::recompute_modules>,
   .set = set<&L::recompute_modules>},
  {.key = "flex_backend", .kind = K::choice, .names = kFlexBackendNames, .args = a::flex_backend,
   .bridge = "model.moe_flex_dispatcher_backend", .recipe = "flex_backend", .engine = W::always, .when = {"dispatcher", "flex"},
   .experts = true, .searchable = true, .search = "deepep hybridep", .help = "flex dispatcher backend", .get = get<&L::flex_backend>, .set = set<&L::flex_backend>},
  {.key = "a2a_overlap", .kind = K::flag, .args = a::a2a_overlap, .bridge = "comm_overlap.overlap_moe_expert_parallel_comm",
   .recipe = "a2a_overlap", .searchable = true, .search = "off on", .least_memory = "off", .fastest = "on", .help = "overlap the MoE all-to-all with another microbatch's compute",
   .get = get<&L::a2a_overlap>, .set = set<&L::a2a_overlap>},
  {.key = "delay_wgrad", .kind = K::flag, .args = a::delay_wgrad, .bridge = "comm_overlap.delay_wgrad_compute",
   .recipe = "delay_wgrad", .help = "delay weight-gradient GEMMs to overlap the combine",
   .get = get<&L::delay_wgrad>, .set = set<&L::delay_wgrad>},
  {.key = "shared_overlap", .kind = K::flag, .args = a::shared_overlap, .bridge = "model.moe_shared_expert_overlap",
   .recipe = "shared_expert_overlap", .experts = true, .help = "overlap shared experts with the dispatch",
   .get = get<&L::shared_overlap>, .set = set<&L::shared_overlap>},
  {.key = "force_balance", .kind = K::flag, .args = a::force_balance,
   .bridge = "model.moe_router_force_load_balancing", .recipe = "force_load_balancing",
   .experts = true, .help = "route tokens evenly (benchmarks)", .get = get<&L::force_balance>, .set = set<&L::force_balance>},
  {.key = "capacity", .kind = K::real, .min_real = 0, .max_real = 1024, .args = a::capacity,
   .bridge = "model.moe_expert_capacity_factor", .recipe = "capacity_factor",
   .experts = true, .help = "expert capacity factor (0: dropless)", .get_real = get_real<&L::capacity>,
   .set_real = set_real<&L::capacity>},
  {.key = "pad_capacity", .kind = K::flag, .args = a::pad_capacity,
   .bridge = "model.moe_pad_expert_input_to_capacity", .recipe = "pad_to_capacity",
   .experts = true, .help = "pad expert inputs to capacity", .get = get<&L::pad_capacity>, .set = set<&L::pad_capacity>},
  // Sync-free MoE and paged stashing (Megatron-LM docs/user-guide/features/paged_stash.md at
  // d98e8a64; TransformerConfig.moe_expert_rank_capacity_factor, moe_paged_stash,
  // moe_paged_stash_buffer_size_factor_cuda).
  {.key = "rank_capacity", .kind = K::real, .min_real = 0, .max_real = 1024, .args = a::rank_capacity,
   .bridge = "model.moe_expert_rank_capacity_factor", .recipe = "rank_capacity_factor",
   .experts = true, .help = "each expert rank's pre-sized token budget over the balanced count (0: none; hybridep or ncclep)",
   .get_real = get_real<&L::rank_capacity>, .set_real = set_real<&L::rank_capacity>},
  {.key = "paged_stash", .kind = K::flag, .args = a::paged_stash, .bridge = "model.moe_paged_stash",
   .recipe = "paged_stash", .experts = true, .help = "keep routed-expert activations for backward in paged buffers",
   .get = get<&L::paged_stash>, .set = set<&L::paged_stash>},
  {.key = "stash_factor", .kind = K::real, .min_real = -1024, .max_real = 1024, .args = a::stash_factor,
   .bridge = "model.moe_paged_stash_buffer_size_factor_cuda", .recipe = "paged_stash_buffer_factor",
   .when = {"paged_stash", "on"}, .experts = true,
   .help = "paged stash buffer over the balanced count (negative: over the largest count seen)",
   .get_real = get_real<&L::stash_factor>, .set_real = set_real<&L::stash_factor>},
  {.key = "permute_fusion", .kind = K::flag, .args = a::permute_fusion, .bridge = "model.moe_permute_fusion",
   .recipe = "permute_fusion", .experts = true, .help = "fused token permutation", .get = get<&L::permute_fusion>,
   .set = set<&L::permute_fusion>},
  {.key = "router_fusion", .kind = K::flag, .args = a::router_fusion, .bridge = "model.moe_router_fusion",
   .recipe = "router_fusion", .experts = true, .help = "fused router kernels (Transformer Engine)",
   .get = get<&L::router_fusion>, .set = set<&L::router_fusion>},
  {.key = "router_dtype", .kind = K::choice, .names = kRouterDtypeNames, .args = a::router_dtype,
   .bridge = "model.moe_router_dtype", .recipe = "router_dtype", .experts = true, .help = "router dtype (none: the model's)",
   .get = get<&L::router_dtype>, .set = set<&L::router_dtype>},
  {.key = "fp8", .kind = K::choice, .names = kFp8FormatNames, .args = a::fp8, .bridge = "mixed_precision.fp8",
   .recipe = "fp8_format", .help = "FP8 GEMM format (none: BF16)", .get = get<&L::fp8>, .set = set<&L::fp8>},
  {.key = "fp8_recipe", .kind = K::choice, .names = kFp8RecipeNames, .args = a::fp8_recipe,
   .bridge = "mixed_precision.fp8_recipe", .recipe = "fp8_recipe", .when = {"fp8", "none", true},
   .help = "FP8 scaling recipe", .get = get<&L::fp8_recipe>, .set = set<&L::fp8_recipe>},
  {.key = "fp8_param_gather", .kind = K::flag, .args = a::fp8_param_gather,
   .bridge = "mixed_precision.fp8_param_gather", .recipe = "fp8_param_gather", .when = {"fp8", "none", true},
   .help = "keep FP8 weight copies and gather them in FP8", .get = get<&L::fp8_param_gather>,
   .set = set<&L::fp8_param_gather>},
  {.key = "fp8_bf16_edges", .kind = K::flag, .args = a::fp8_bf16_edges,
   .bridge = "mixed_precision.first_last_layers_bf16", .recipe = "fp8_first_last_bf16",
   .when = {"fp8", "none", true}, .help = "keep the first and last layers in BF16",
   .get = get<&L::fp8_bf16_edges>, .set = set<&L::fp8_bf16_edges>},
  {.key = "fp8_bf16_first", .kind = K::integer, .min = 0, .max = kMaxParallel, .args = a::fp8_bf16_first,
   .bridge = "mixed_precision.num_layers_at_start_in_bf16", .recipe = "fp8_bf16_first_layers", .recipe_range = &limits::kLayerCountRange,
   .when = {"fp8_bf16_edges", "on"}, .help = "BF16 layers at the start", .get = get<&L::fp8_bf16_first>,
   .set = set<&L::fp8_bf16_first>},
  {.key = "fp8_bf16_last", .kind = K::integer, .min = 0, .max = kMaxParallel, .args = a::fp8_bf16_last,
   .bridge = "mixed_precision.num_layers_at_end_in_bf16", .recipe = "fp8_bf16_last_layers", .recipe_range = &limits::kLayerCountRange,
   .when = {"fp8_bf16_edges", "on"}, .help = "BF16 layers at the end", .get = get<&L::fp8_bf16_last>,
   .set = set<&L::fp8_bf16_last>},
  {.key = "fp8_reuse_grad_buf", .kind = K::flag, .args = a::fp8_reuse_grad_buf,
   .bridge = "mixed_precision.reuse_grad_buf_for_mxfp8_param_ag", .recipe = "fp8_reuse_grad_buffer", .when = {"fp8_recipe", "mxfp8"},
   .help = "gather MXFP8 weights into the gradient buffer (no separate copy)", .get = get<&L::fp8_reuse_grad_buf>,
   .set = set<&L::fp8_reuse_grad_buf>},
  // Megatron-Core TransformerConfig.activation_func_fp8_input_store (transformer_config.py; the fused
  // bias_swiglu of fusions/fused_bias_swiglu.py casts its saved input to float8_e4m3fn). Megatron-LM
  // lists it among the config fields with no argument (arguments.py, core_transformer_config_from_args).
  {.key = "act_fp8_store", .kind = K::flag, .args = a::act_fp8_store,
   .bridge = "model.activation_func_fp8_input_store", .recipe = "activation_fp8_input_store",
   .help = "keep SwiGLU's input for backward in FP8 (Megatron-Bridge only)",
   .no_engine = "act_fp8_store=on has no Megatron-LM argument: Megatron-Core's "
                "activation_func_fp8_input_store is a config field only Megatron-Bridge sets "
                "(model.activation_func_fp8_input_store=true); use --engine bridge",
   .get = get<&L::act_fp8_store>, .set = set<&L::act_fp8_store>},
  // Megatron-Core TransformerConfig.fp8_dot_product_attention: Megatron-LM generates no argument
  // for it (arguments.py, _add_network_size_args, its exclude list at d98e8a64); Megatron-Bridge
  // sets it from MixedPrecisionConfig (mixed_precision.py at 067f987d), which overwrites the
  // model's field of the same name.
  {.key = "fp8_dpa", .kind = K::flag, .args = a::fp8_dpa, .bridge = "mixed_precision.fp8_dot_product_attention",
   .recipe = "fp8_dot_product_attention", .help = "FP8 attention (Transformer Engine fp8_dpa; Megatron-Bridge only)",
   .no_engine = "fp8_dpa=on has no Megatron-LM argument: Megatron-Core's fp8_dot_product_attention is a "
                "config field only Megatron-Bridge sets (mixed_precision.fp8_dot_product_attention=true); use --engine bridge",
   .get = get<&L::fp8_dpa>, .set = set<&L::fp8_dpa>},
  // TransformerConfig.fp4 (--fp4-format), fp4_recipe (--fp4-recipe), fp4_param
  // (--fp4-param-gather) at d98e8a64.
  {.key = "fp4", .kind = K::choice, .names = kFp4FormatNames, .args = a::fp4, .bridge = "mixed_precision.fp4",
   .recipe = "fp4_format", .help = "FP4 GEMM format (none: BF16 or FP8)", .get = get<&L::fp4>, .set = set<&L::fp4>},
  // mxfp4 is AMD Primus's recipe (its conf `fp4_recipe: mxfp4`, MLPerf Training v6.0's AMD
  // submissions); Megatron-LM's --fp4-recipe choices are nvfp4 and custom.
  {.key = "fp4_recipe", .kind = K::choice, .names = kFp4RecipeNames, .args = a::fp4_recipe,
   .bridge = "mixed_precision.fp4_recipe", .recipe = "fp4_recipe", .when = {"fp4", "none", true},
   .help = "FP4 recipe (mxfp4: AMD Primus's MXFP4)",
   .foreign_choice = "mxfp4",
   .foreign_line = "fp4_recipe=mxfp4 is AMD Primus's recipe: Megatron-LM's and Megatron-Bridge's --fp4-recipe take "
                   "nvfp4 and custom only, and ladle writes no Primus job",
   .get = get<&L::fp4_recipe>, .set = set<&L::fp4_recipe>},
  {.key = "fp4_param_gather", .kind = K::flag, .args = a::fp4_param_gather,
   .bridge = "mixed_precision.fp4_param_gather", .recipe = "fp4_param_gather", .when = {"fp4", "none", true},
   .help = "keep NVFP4 weight copies and gather them in NVFP4", .get = get<&L::fp4_param_gather>,
   .set = set<&L::fp4_param_gather>},
  {.key = "cuda_graph", .kind = K::choice, .names = kCudaGraphNames, .args = a::cuda_graph,
   .bridge = "model.cuda_graph_impl", .recipe = "cuda_graph", .searchable = true, .search = "none transformer_engine", .least_memory = "none", .fastest = "transformer_engine", .help = "CUDA graph implementation",
   .get = get<&L::cuda_graph>, .set = set<&L::cuda_graph>},
  {.key = "graph_modules", .kind = K::set, .names = kGraphModuleNames, .args = a::graph_modules,
   .bridge = "model.cuda_graph_modules", .recipe = "cuda_graph_modules", .when = {"cuda_graph", "none", true},
   .searchable = true, .search = "attn+moe_router+moe_preprocess attn+mlp", .help = "CUDA graph capture regions (none: whole layers)", .get = get<&L::graph_modules>,
   .set = set<&L::graph_modules>},
  {.key = "overlap_grad", .kind = K::flag, .args = a::overlap_grad, .bridge = "ddp.overlap_grad_reduce",
   .recipe = "overlap_grad_reduce", .help = "overlap the gradient reduce-scatter with backward",
   .get = get<&L::overlap_grad>, .set = set<&L::overlap_grad>},
  {.key = "overlap_param", .kind = K::flag, .args = a::overlap_param, .bridge = "ddp.overlap_param_gather",
   .recipe = "overlap_param_gather", .help = "overlap the parameter all-gather with forward",
   .get = get<&L::overlap_param>, .set = set<&L::overlap_param>},
  {.key = "tp_overlap", .kind = K::flag, .args = a::tp_overlap, .bridge = "comm_overlap.tp_comm_overlap",
   .recipe = "tp_comm_overlap", .help = "overlap TP communication with GEMMs (userbuffers)",
   .get = get<&L::tp_overlap>, .set = set<&L::tp_overlap>},
  {.key = "fsdp", .kind = K::choice, .names = kFsdpNames, .args = a::fsdp, .bridge = "ddp.use_megatron_fsdp",
   .recipe = "fsdp", .help = "fully sharded data parallel: megatron (Megatron-FSDP) or torch (FSDP2)",
   .get = get<&L::fsdp>, .set = set<&L::fsdp>},
  {.key = "fsdp_sharding", .kind = K::choice, .names = kFsdpShardingNames, .args = a::fsdp_sharding,
   .bridge = "ddp.data_parallel_sharding_strategy", .recipe = "fsdp_sharding", .when = {"fsdp", "megatron"},
   .help = "Megatron-FSDP sharding strategy", .get = get<&L::fsdp_sharding>, .set = set<&L::fsdp_sharding>},
  {.key = "ce_fusion", .kind = K::flag, .args = a::ce_fusion, .bridge = "model.cross_entropy_loss_fusion",
   .recipe = "cross_entropy_fusion", .help = "fused cross-entropy loss", .get = get<&L::ce_fusion>,
   .set = set<&L::ce_fusion>},
  {.key = "ce_impl", .kind = K::choice, .names = kCrossEntropyImplNames, .args = a::ce_impl,
   .bridge = "model.cross_entropy_fusion_impl", .recipe = "cross_entropy_impl", .when = {"ce_fusion", "on"},
   .help = "fused cross-entropy implementation", .get = get<&L::ce_impl>, .set = set<&L::ce_impl>},
  {.key = "act_offload", .kind = K::flag, .args = a::act_offload,
   .bridge = "model.fine_grained_activation_offloading", .recipe = "activation_offload", .searchable = true,
   .search = "off on", .least_memory = "on", .fastest = "off", .help = "fine-grained activation offloading", .get = get<&L::act_offload>, .set = set<&L::act_offload>},
  {.key = "offload_modules", .kind = K::set, .names = kOffloadModuleNames, .args = a::offload_modules,
   .bridge = "model.offload_modules", .recipe = "activation_offload_modules", .when = {"act_offload", "on"},
   .searchable = true, .search = "core_attn+attn_proj+expert_fc1+moe_act core_attn+attn_proj", .help = "modules whose inputs are offloaded", .get = get<&L::offload_modules>, .set = set<&L::offload_modules>},
  {.key = "act_offload_fraction", .kind = K::real, .min_real = 0, .max_real = 1, .args = a::act_offload_fraction,
   .bridge = "model.activation_offload_fraction", .recipe = "activation_offload_fraction",
   .when = {"act_offload", "on"}, .searchable = true, .search = "0.5 1.0", .least_memory = "1.0", .help = "fraction of eligible activations offloaded",
   .get_real = get_real<&L::act_offload_fraction>, .set_real = set_real<&L::act_offload_fraction>},
  // Layer-level activation offloading (ModelParallelConfig.cpu_offloading_num_layers; arguments.py
  // sets cpu_offloading when it is above 0, d98e8a64).
  {.key = "cpu_offload_layers", .kind = K::integer, .min = 0, .max = kMaxParallel, .args = a::cpu_offload_layers,
   .bridge = "model.cpu_offloading_num_layers", .recipe = "cpu_offloading_layers", .recipe_range = &limits::kLayerCountRange,
   .help = "decoder layers whose activations go to the host (legacy CPU offloading; pp 1 only; Megatron-Bridge "
           "also needs model.cpu_offloading=true)",
   .get = get<&L::cpu_offload_layers>, .set = set<&L::cpu_offload_layers>},
  {.key = "cp_comm", .kind = K::choice, .names = kCpCommNames, .args = a::cp_comm, .bridge = "model.cp_comm_type",
   .recipe = "cp_comm_type", .help = "context-parallel communication", .get = get<&L::cp_comm>,
   .set = set<&L::cp_comm>},
  {.key = "cp_inner", .kind = K::integer, .min = 1, .max = kMaxParallel, .args = a::cp_inner,
   .bridge = "model.hierarchical_context_parallel_sizes", .recipe = "cp_a2a_size", .recipe_range = &limits::kParallelRange, .when = {"cp_comm", "a2a+p2p"},
   .help = "hierarchical CP: the all-to-all group size (the rest is p2p)", .get = get<&L::cp_inner>,
   .set = set<&L::cp_inner>},
  // FP16 with a dynamic loss scale (Megatron-LM --fp16; Megatron-Bridge MixedPrecisionConfig.fp16):
  // the same GEMM rates and weight bytes as BF16, plus the grad scaler's unscale-and-check pass
  // over the main gradients (plan/cost_fp16.hpp).
  {.key = "fp16", .kind = K::flag, .args = a::fp16, .bridge = "mixed_precision.fp16",
   .help = "FP16 mixed precision with loss scaling instead of BF16", .get = get<&L::fp16>, .set = set<&L::fp16>},
  // Gradient-accumulation fusion: on unless --no-gradient-accumulation-fusion (Megatron-LM
  // megatron/training/arguments.py, store_false, at d98e8a64; Megatron-Bridge's GPTModelProvider
  // turns it on where Transformer Engine or APEX provides the kernel: models/gpt_provider.py and
  // utils/fusions.py at 067f987d). plan/cost_grad_accum_fusion.hpp prices it off.
  {.key = "grad_accum_fusion", .kind = K::flag, .args = a::grad_accum_fusion,
   .bridge = "model.gradient_accumulation_fusion",
   .help = "weight-gradient GEMMs accumulate into the FP32 main gradients (off: a separate add pass and a 16-bit "
           "gradient per weight)",
   .get = get<&L::grad_accum_fusion>, .set = set<&L::grad_accum_fusion>},
  // SwiGLU's fused activation: on unless --no-bias-swiglu-fusion (Megatron-LM megatron/training/
  // arguments.py, store_false into bias_swiglu_fusion, which argument_utils.py passes as
  // TransformerConfig.bias_activation_fusion for a --swiglu model, at d98e8a64). Megatron-Bridge sets
  // the config field itself, model.bias_activation_fusion (megatron/core/transformer/
  // transformer_config.py at d98e8a64; the bridges of Llama, DeepSeek, GLM, Kimi and gpt-oss set it
  // true: src/megatron/bridge/models/*/ at 067f987d). Off, mlp.py and moe/experts.py run the GLU as
  // separate PyTorch operations; plan/time_elementwise.cpp prices the extra HBM traffic. Not yet
  // priced: the tensors autograd keeps for that backward (the SiLU output and the offset add's, one
  // half-width each, beside the fused path's fc1 output), and mlp / moe_act recompute's rerun of it.
  {.key = "swiglu_fusion", .kind = K::flag, .args = a::swiglu_fusion, .bridge = "model.bias_activation_fusion",
   .recipe = "bias_swiglu_fusion",
   .help = "the gated MLP's activation in one fused kernel (off: separate PyTorch operations, more HBM traffic)",
   .get = get<&L::swiglu_fusion>, .set = set<&L::swiglu_fusion>},
  // FP8 delayed scaling's amax history (Transformer Engine DelayedScaling.amax_history_len; Megatron-LM
  // TransformerConfig.fp8_amax_history_len default 1 at d98e8a64; Megatron-Bridge
  // MixedPrecisionConfig.fp8_amax_history_len, 1, and 1024 in its *_fp8_delayed_scaling_mixed
  // recipes, training/mixed_precision.py at 067f987d). plan/cost_fp8_amax_history.hpp prices it.
  {.key = "fp8_amax_history", .kind = K::integer, .min = 1, .max = kMaxTokens, .args = a::fp8_amax_history,
   .bridge = "mixed_precision.fp8_amax_history_len", .when = {"fp8_recipe", "delayed"},
   .help = "amax values each FP8 delayed-scaling quantizer keeps (Transformer Engine's history window)",
   .get = get<&L::fp8_amax_history>, .set = set<&L::fp8_amax_history>},
  // Which amax of the history a delayed-scaling scale is set from (Megatron-LM --fp8-amax-compute-algo,
  // choices most_recent | max, TransformerConfig.fp8_amax_compute_algo default most_recent at d98e8a64;
  // Megatron-Bridge MixedPrecisionConfig.fp8_amax_compute_algo, "max" in its *_fp8_delayed_scaling_mixed
  // recipes, training/mixed_precision.py at 05097809). No cost term of its own: Transformer Engine's
  // amax-and-scale kernel rolls the whole history and takes its maximum under either choice (NVIDIA/
  // TransformerEngine transformer_engine/common/recipe/delayed_scaling.cu at 080e1b4c,
  // amax_and_scale_update_impl::kernel), which plan/cost_fp8_amax_history.hpp already prices.
  {.key = "fp8_amax_algo", .kind = K::choice, .names = kFp8AmaxAlgoNames, .args = a::fp8_amax_algo,
   .bridge = "mixed_precision.fp8_amax_compute_algo", .recipe = "fp8_amax_compute_algo",
   .when = {"fp8_recipe", "delayed"},
   .help = "the amax a delayed-scaling quantizer scales by: the newest of its history or the largest",
   .get = get<&L::fp8_amax_algo>, .set = set<&L::fp8_amax_algo>},
  // LoRA (plan/cost_lora.hpp prices it: frozen base weights, trained adapters). Megatron-Bridge's
  // LoRA fields are dim, alpha and target_modules (src/megatron/bridge/peft/lora.py at 067f987d),
  // set as peft.* overrides once --mode lora (or peft=lora) gives the recipe an adapter
  // (recipe/bridge_args.hpp reads them; ladle's Bridge job is --mode pretrain, so it writes none).
  {.key = "lora_rank", .kind = K::integer, .min = 0, .max = kMaxParallel, .args = a::lora_rank, .bridge = "peft.dim",
   .help = "LoRA adapter rank (0: full fine-tuning; miles --lora-rank, Megatron-Bridge peft.dim)",
   .no_engine = "lora_rank has no argument but miles' --lora-rank: slime and Megatron-LM train no adapters, and "
                "ladle reads Megatron-Bridge's --mode lora and peft.dim but does not write them; use --engine miles",
   .get = get<&L::lora_rank>, .set = set<&L::lora_rank>},
  {.key = "lora_alpha", .kind = K::integer, .min = 1, .max = kMaxTokens, .args = a::lora_alpha, .bridge = "peft.alpha",
   .when = {"lora_rank", "0", true}, .help = "LoRA alpha (adapter scale; miles' default 16)",
   .no_engine = "lora_alpha has no argument but miles' --lora-alpha; use --engine miles",
   .get = get<&L::lora_alpha>, .set = set<&L::lora_alpha>},
  {.key = "lora_targets", .kind = K::text, .args = a::lora_targets, .bridge = "peft.target_modules",
   .when = {"lora_rank", "0", true},
   .help = "LoRA target modules: all-linear or a comma-separated list (linear_qkv,linear_proj,... or q_proj,...)",
   .no_engine = "lora_targets has no argument but miles' --target-modules; use --engine miles",
   .get_text = get_lora_targets, .set_text = set_lora_targets},
  // Colocation (plan/cost_colocate.hpp prices it).
  {.key = "colocate", .kind = K::flag, .args = a::colocate,
   .help = "SGLang engines on the training GPUs (slime, miles --colocate)",
   .no_engine = "colocate is slime's and miles' --colocate; Megatron-LM and Megatron-Bridge run no rollout engine",
   .get = get<&L::colocate>, .set = set<&L::colocate>},
  {.key = "sglang_mem_fraction", .kind = K::real, .min_real = 0, .max_real = 1, .args = a::sglang_mem_fraction,
   .help = "SGLang's static memory fraction (weights and KV cache; 0: SGLang's own choice)",
   .no_engine = "sglang_mem_fraction is slime's and miles' --sglang-mem-fraction-static; use --engine slime or miles",
   .get_real = get_real<&L::sglang_mem_fraction>, .set_real = set_real<&L::sglang_mem_fraction>},
  {.key = "update_buffer", .kind = K::integer, .min = 1, .max = int64_t{1} << 40, .args = a::update_buffer,
   .help = "weight-update bucket, bytes (--update-weight-buffer-size; default 512 MiB)",
   .no_engine = "update_buffer is slime's and miles' --update-weight-buffer-size; use --engine slime or miles",
   .get = get<&L::update_buffer_bytes>, .set = set<&L::update_buffer_bytes>},
};
// clang-format on
}  // namespace knob_detail

/// Every knob, in spec order.
inline constexpr std::span<const Knob> kKnobs = knob_detail::kKnobs;

namespace knob_detail {

constexpr bool names_a_row(std::string_view key) {
  for (const Knob& knob : kKnobs) {
    if (knob.key == key) return true;
  }
  return false;
}

// Every integer row with a recipe field has its recipe range; a row with companion arguments has
// arguments of its own, and only a companion switch implies a value; an implied recipe value's
// condition and "@key" name rows.
constexpr bool rows_are_whole() {
  for (const Knob& knob : kKnobs) {
    if (knob.kind == KnobKind::integer && !knob.recipe.empty() && knob.recipe_range == nullptr) return false;
    if (!knob.companions.empty() && knob.args.empty()) return false;
    for (const CompanionArg& c : knob.companions) {
      if (!c.implied.empty() && c.value != CompanionValue::none) return false;
    }
    if (!knob.recipe_implied_when.key.empty() && !names_a_row(knob.recipe_implied_when.key)) return false;
    if (knob.recipe_implied.starts_with('@') && !names_a_row(knob.recipe_implied.substr(1))) return false;
  }
  return true;
}
// GCC does not fold a global's address compared with null under -fsanitize=address (the
// sanitizer build of the input readers); every other build checks it.
#if !defined(__SANITIZE_ADDRESS__)
static_assert(rows_are_whole(),
              "an integer knob row with a recipe field needs its .recipe_range; companions need the row's own "
              "arguments, and an implied value a switch; recipe_implied names rows");
#endif

}  // namespace knob_detail

/// The companion argument spelled `flag` (knob rows' `companions`), or nullptr.
inline const CompanionArg* find_companion(std::string_view flag) {
  for (const Knob& knob : kKnobs) {
    for (const CompanionArg& c : knob.companions) {
      if (c.flag == flag) return &c;
    }
  }
  return nullptr;
}

/// The knob with this spec key, or nullptr.
const Knob* find_knob(std::string_view key);
/// The knob a launch argument sets (any of its spellings), or nullptr.
const Knob* find_knob_by_flag(std::string_view flag);

/// A real knob's value as every writer prints it: the shortest decimal that reads back to the same
/// double, a whole number with ".0" ("1.0", "0.25", "0.16777777").
std::string format_real(double value);
/// The knob's value in `layout` as the spec writes it: integers, "on"/"off", reals as format_real
/// writes them, choice names, sets as "a+b" in name order ("" for none), text as is.
std::string knob_text(const Knob& knob, const Layout& layout);
/// Sets the knob from spec text. Sets also take words separated by spaces. Throws Error(usage)
/// naming `what` (the key or the argument) for a value of the wrong type or out of range, or a
/// name not in `names` (with "did you mean").
void set_knob_text(const Knob& knob, Layout& layout, std::string_view text, std::string_view what);
/// Whether `arg` of `knob` is written as a list of words (a set's members, or group sizes).
bool knob_arg_is_list(const Knob& knob, const KnobArg& arg);
/// The value words of a value argument of `knob` for `layout`: a set's members, group sizes
/// (KnobArg::of), else the spec text as one word.
std::vector<std::string> knob_arg_words(const Knob& knob, const KnobArg& arg, const Layout& layout);
/// Whether the knob holds Layout's default.
bool knob_is_default(const Knob& knob, const Layout& layout);
/// Whether the row's `when` condition holds in `layout`.
bool knob_applies(const Knob& knob, const Layout& layout);
/// Why the engines of `engines` (EngineMask bits) cannot run `layout`: the `no_engine` line of the
/// first knob it sets away from its default that has no argument for those engines, or nullopt.
std::optional<std::string_view> engine_refusal(const Layout& layout, uint8_t engines);

}  // namespace ladle::layout
