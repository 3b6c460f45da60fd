#include "ladle/layout/layout_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "ladle/layout/knobs.hpp"
#include "ladle/layout/pipeline_layout.hpp"
#include "ladle/util/error.hpp"

namespace ladle::layout {

Layout resolve_layout(Layout layout, const LayoutContext& context) {
  if (layout.dp == 0) {
    const int64_t model_parallel = layout.tp * layout.pp * layout.cp;
    if (context.gpus <= 0) throw_usage("layout: dp is not given and there is no GPU count to derive it from");
    if (context.gpus % model_parallel != 0) {
      throw_usage("layout: tp*pp*cp = {} does not divide the {} GPUs", model_parallel, context.gpus);
    }
    layout.dp = context.gpus / model_parallel;
  }
  if (layout.max_tokens == 0 && context.row_tokens > 0) {
    layout.max_tokens = layout.rows_per_mb * context.row_tokens / layout.cp;
  }
  if (!layout.pipeline_layout.empty() && layout.vpp == 1) {
    const auto stages = static_cast<int64_t>(parse_pipeline_layout(layout.pipeline_layout).size());
    if (stages % layout.pp == 0) layout.vpp = stages / layout.pp;
  }
  if (layout.vpp_layers > 0 && layout.vpp == 1 && context.num_layers > 0) {
    const int64_t layers = context.num_layers + layout.account_embedding + layout.account_loss;
    if (layers % layout.pp == 0 && (layers / layout.pp) % layout.vpp_layers == 0) {
      layout.vpp = layers / layout.pp / layout.vpp_layers;
    }
  }
  return layout;
}

std::vector<int64_t> virtual_stage_layers(const Layout& layout, int64_t num_layers) {
  const int64_t pp = layout.pp;
  const int64_t vpp = layout.vpp;
  if (!layout.pipeline_layout.empty()) {
    const std::vector<VirtualStage> stages = parse_pipeline_layout(layout.pipeline_layout);
    if (static_cast<int64_t>(stages.size()) != pp * vpp) return {};
    std::vector<int64_t> out;
    int64_t total = 0;
    for (const VirtualStage& s : stages) {
      out.push_back(s.decoder);
      total += s.decoder;
    }
    if (total != num_layers) return {};
    return out;
  }
  std::vector<int64_t> ranks;
  if (layout.first > 0 || layout.last > 0) {
    if (pp == 1) return {};
    const int64_t fixed = layout.first + layout.last;
    const int64_t free_stages = pp - (layout.first > 0) - (layout.last > 0);
    const int64_t rest = num_layers - fixed;
    if (rest < 0) return {};
    if (free_stages == 0) {
      if (rest != 0) return {};
    } else if (rest % free_stages != 0 || rest / free_stages < 1) {
      return {};
    }
    ranks.assign(static_cast<size_t>(pp), free_stages > 0 ? rest / free_stages : 0);
    if (layout.first > 0) ranks.front() = layout.first;
    if (layout.last > 0) ranks.back() = layout.last;
  } else {
    const int64_t layers = num_layers + layout.account_embedding + layout.account_loss;
    if (layers % pp != 0) return {};
    ranks.assign(static_cast<size_t>(pp), layers / pp);
  }
  std::vector<int64_t> out(static_cast<size_t>(pp * vpp));
  for (int64_t r = 0; r < pp; ++r) {
    if (ranks[r] % vpp != 0) return {};
    for (int64_t v = 0; v < vpp; ++v) out[v * pp + r] = ranks[r] / vpp;
  }
  if (layout.first == 0 && layout.last == 0) {
    if (layout.account_embedding) --out.front();
    if (layout.account_loss) --out.back();
    if (out.front() < 0 || out.back() < 0) return {};
  }
  return out;
}

std::vector<int64_t> stage_layers(const Layout& layout, int64_t num_layers) {
  const std::vector<int64_t> chunks = virtual_stage_layers(layout, num_layers);
  if (chunks.empty()) return {};
  std::vector<int64_t> out(static_cast<size_t>(layout.pp), 0);
  for (size_t i = 0; i < chunks.size(); ++i) out[i % out.size()] += chunks[i];
  return out;
}

std::string suggest_split(int64_t pp, int64_t vpp, int64_t num_layers) {
  if (pp < 2) return {};
  // Counting the embedding (and the loss) as a layer, as Megatron-LM can.
  for (int64_t extra : {1, 2}) {
    const int64_t layers = num_layers + extra;
    if (layers % pp == 0 && (layers / pp) % vpp == 0 && layers / pp / vpp > 1) {
      return extra == 1 ? "account_embedding=on" : "account_embedding=on,account_loss=on";
    }
  }
  // Middle stages take the rounded-up share (a multiple of vpp); first and last share the rest.
  int64_t middle = (num_layers + pp - 1) / pp;
  middle = (middle + vpp - 1) / vpp * vpp;
  for (; middle >= vpp; middle -= vpp) {
    const int64_t rest = num_layers - (pp - 2) * middle;
    if (rest < 2 * vpp) continue;
    for (int64_t first = rest / 2 / vpp * vpp; first >= vpp; first -= vpp) {
      const int64_t last = rest - first;
      if (last >= vpp && last % vpp == 0) return fmt::format("first={},last={}", first, last);
    }
  }
  return {};
}

bool has_split(const Layout& l) {
  return l.first > 0 || l.last > 0 || l.account_embedding || l.account_loss || !l.pipeline_layout.empty() ||
         l.vpp_layers > 0;
}

std::vector<Layout> candidate_splits(const Layout& layout, int64_t num_layers) {
  std::vector<Layout> out;
  if (layout.pp < 2 || num_layers < 1) return out;
  Layout plain = layout;
  plain.first = plain.last = 0;
  plain.account_embedding = plain.account_loss = false;
  plain.pipeline_layout.clear();
  plain.vpp_layers = 0;
  std::vector<std::vector<int64_t>> seen;
  const auto consider = [&](const Layout& candidate) {
    std::vector<int64_t> chunks = virtual_stage_layers(candidate, num_layers);
    if (chunks.empty() || std::find(seen.begin(), seen.end(), chunks) != seen.end()) return;
    seen.push_back(std::move(chunks));
    out.push_back(candidate);
  };
  for (const auto& [embedding, loss] : {std::pair{true, false}, std::pair{false, true}, std::pair{true, true}}) {
    Layout candidate = plain;
    candidate.account_embedding = embedding;
    candidate.account_loss = loss;
    consider(candidate);
  }
  const int64_t vpp = layout.vpp;
  const int64_t cap = std::min(num_layers, 2 * ((num_layers + layout.pp - 1) / layout.pp));
  for (int64_t first = vpp; first <= cap; first += vpp) {
    for (int64_t last = vpp; last <= cap && first + last <= num_layers; last += vpp) {
      Layout candidate = plain;
      candidate.first = first;
      candidate.last = last;
      consider(candidate);
    }
  }
  return out;
}

namespace {

constexpr std::string_view kSplitKeys[] = {"first", "last", "account_embedding", "account_loss"};

}  // namespace

std::string split_arguments(const Layout& l) {
  std::string out;
  for (std::string_view key : kSplitKeys) {
    const Knob& knob = *find_knob(key);
    if (knob_is_default(knob, l)) continue;
    const KnobArg& arg = knob.args.front();
    if (!out.empty()) out += ' ';
    out += arg.flag;
    if (arg.form == ArgForm::value) out += " " + knob_text(knob, l);
  }
  return out;
}

std::string split_spec(const Layout& l) {
  std::string out;
  for (std::string_view key : kSplitKeys) {
    const Knob& knob = *find_knob(key);
    if (knob_is_default(knob, l)) continue;
    if (!out.empty()) out += ',';
    out += fmt::format("{}={}", key, knob_text(knob, l));
  }
  return out;
}

int64_t microbatches_per_step(const Layout& layout, const LayoutContext& context) {
  const int64_t rows_per_rank = layout.dp > 0 ? context.global_batch / layout.dp : 0;
  return (rows_per_rank + layout.rows_per_mb - 1) / layout.rows_per_mb;
}

namespace {

// A knob key, checked against the knob table when ladle is compiled ("" for none).
struct KnobKey {
  std::string_view key;
  consteval KnobKey(const char* k) : key(k) {  // NOLINT(google-explicit-constructor): written as a literal
    bool known = key.empty();
    for (const Knob& knob : kKnobs) known = known || knob.key == key;
    if (!known) throw "not a key of layout/knobs.hpp";
  }
};

// A broken rule: its line, and the knob whose argument the user most likely wrote to break it.
template <typename... Args>
LayoutViolation violation(KnobKey knob, fmt::format_string<Args...> format, Args&&... args) {
  return LayoutViolation{fmt::format(format, std::forward<Args>(args)...), knob.key};
}

// The first optimizer-state dtype set below FP32, which is what asks for the precision-aware optimizer.
KnobKey low_states_knob(const Layout& l) {
  if (l.main_grads != StateDtype::fp32) return "main_grads";
  if (l.main_params != StateDtype::fp32) return "main_params";
  if (l.moments != StateDtype::fp32) return "moments";
  return "moments_sq";
}

std::optional<LayoutViolation> pipeline_violation(const Layout& l, const ModelSpec& model) {
  const int64_t layers = model.num_layers;
  if (l.schedule == PipelineSchedule::dualpipe) {
    // deepseek-ai/DualPipe dualpipe.py DualPipe.step: "assert num_ranks % 2 == 0"; each rank
    // holds exactly two stages, one per direction, so there are no virtual stages.
    if (l.pp < 2 || l.pp % 2 != 0)
      return violation("schedule", "schedule=dualpipe needs an even pp of at least 2, not {}", l.pp);
    if (l.vpp > 1)
      return violation("vpp", "schedule=dualpipe holds two stages per rank by itself; vpp {} must be 1",
                         l.vpp);
  }
  const int given = (l.vpp_layers > 0) + (!l.pipeline_layout.empty());
  if (given > 1 || (l.vpp_layers > 0 && l.vpp > 1 && l.vpp_layers * l.vpp * l.pp != layers + l.account_embedding + l.account_loss)) {
    return violation("vpp_layers", 
        "no more than one of --num-layers-per-virtual-pipeline-stage, --num-virtual-stages-per-pipeline-rank, "
        "--pipeline-model-parallel-layout can be set (Megatron-LM asserts it)");
  }
  if (!l.pipeline_layout.empty()) {
    if (l.first > 0 || l.last > 0 || l.account_embedding || l.account_loss) {
      return violation("pipeline_layout", 
          "pipeline_model_parallel_layout cannot be set with other pipeline layout arguments (first, last, "
          "account_embedding, account_loss)");
    }
    const std::vector<VirtualStage> stages = parse_pipeline_layout(l.pipeline_layout);
    const auto count = static_cast<int64_t>(stages.size());
    if (count % l.pp != 0) {
      return violation("pipeline_layout", "the pipeline layout has {} stages, which pp {} does not divide", count, l.pp);
    }
    if (l.vpp != count / l.pp) {
      return violation("vpp", "vpp {} conflicts with the pipeline layout's {} stages on pp {} (vpp {})", l.vpp, count, l.pp,
                         count / l.pp);
    }
    int64_t decoder = 0, mtp = 0, embedding = 0, loss = 0;
    bool mtp_seen = false;
    for (const VirtualStage& s : stages) {
      if (mtp_seen && s.decoder > 0) return violation("pipeline_layout", "decoder layers must be placed before MTP layers");
      mtp_seen = mtp_seen || s.mtp > 0;
      decoder += s.decoder;
      mtp += s.mtp;
      embedding += s.embedding;
      loss += s.loss;
    }
    if (embedding != 1 || stages.front().embedding != 1) {
      return violation("pipeline_layout", "the pipeline layout must start with the embedding E, given exactly once");
    }
    if (loss != 1 || stages.back().loss != 1) return violation("pipeline_layout", "the pipeline layout must end with the loss L, given exactly once");
    if (decoder != layers) {
      return violation("pipeline_layout", "the pipeline layout holds {} decoder layers (t), but {} has {}", decoder, model.name, layers);
    }
    if (mtp != model.num_mtp_layers) {
      return violation("pipeline_layout", "the pipeline layout holds {} MTP layers (m), but {} has {}", mtp, model.name,
                         model.num_mtp_layers);
    }
    return std::nullopt;
  }
  if ((l.first > 0 || l.last > 0) && (l.account_embedding || l.account_loss)) {
    return violation("first", 
        "num_layers_in_first_pipeline_stage and num_layers_in_last_pipeline_stage cannot be set at the same time "
        "with account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split");
  }
  if (l.vpp > 1 && l.pp < 2) return violation("vpp", "vpp {} needs pp > 1 (interleaved pipeline)", l.vpp);
  Layout flat = l;
  flat.vpp = 1;
  const std::vector<int64_t> ranks = stage_layers(flat, layers);
  if (!ranks.empty()) {
    if (!virtual_stage_layers(l, layers).empty()) return std::nullopt;
    for (size_t r = 0; r < ranks.size(); ++r) {
      const int64_t counted = ranks[r] + (l.account_embedding && r == 0) + (l.account_loss && r + 1 == ranks.size());
      if (counted % l.vpp != 0) {
        const std::string split = suggest_split(l.pp, l.vpp, layers);
        return violation("vpp", "vpp {} does not divide the {} layers of a pipeline stage{}", l.vpp, counted,
                           split.empty() ? "" : fmt::format("; try {}", split));
      }
    }
    return violation("vpp", "the {} decoder layers leave a virtual stage of pp {} x vpp {} empty", layers, l.pp, l.vpp);
  }
  if (l.pp == 1) return violation("first", "first and last apply only when pp > 1");
  if (l.first > 0 || l.last > 0) {
    return violation("first", "pp {} with first {} and last {} cannot split the {} decoder layers evenly", l.pp, l.first,
                       l.last, layers);
  }
  const std::string split = suggest_split(l.pp, l.vpp, layers);
  return violation("pp", "pp {} does not divide the {} decoder layers{}", l.pp, layers,
                     split.empty() ? "" : fmt::format("; give an uneven split such as {}", split));
}

bool has_module(uint32_t set, RecomputeModule m) { return has(set, m); }

// Combinations Megatron-LM rejects at start-up, with its reason (megatron/core/transformer/
// transformer_config.py, megatron/training/arguments.py at d98e8a64).
std::optional<LayoutViolation> megatron_violation(const Layout& l, const ModelSpec& model, const LayoutContext& context) {
  const bool moe = model.num_experts > 0;
  const bool selective = l.recompute == RecomputeGranularity::selective;
  if (selective && has_module(l.recompute_modules, RecomputeModule::mla_up_proj) &&
      model.attention != AttentionKind::mla) {
    return violation("recompute_modules", "mla_up_proj in recompute_modules is only supported with multi_latent_attention");
  }
  if (l.a2a_overlap) {
    if (l.ep <= 1) return violation("a2a_overlap", "overlap_moe_expert_parallel_comm is only supported with expert model parallelism");
    if (l.dispatcher == MoeDispatcher::allgather) {
      return violation("a2a_overlap", "overlap_moe_expert_parallel_comm is supported with alltoall/flex token dispatcher");
    }
    if (l.pp > 1 && l.vpp == 1) {
      return violation("a2a_overlap", 
          "If enabling EP A2A overlap, virtual_pipeline_model_parallel_size must be specified when "
          "pipeline_model_parallel_size > 1");
    }
    if (l.recompute == RecomputeGranularity::full) {
      return violation("a2a_overlap", "disable full recomputation when enabling overlap_moe_expert_parallel_comm");
    }
    if (selective && has_module(l.recompute_modules, RecomputeModule::moe)) {
      return violation("a2a_overlap", "disable moe in recompute_modules when enabling overlap_moe_expert_parallel_comm");
    }
    if (l.shared_overlap) {
      return violation("a2a_overlap", "disable moe_shared_expert_overlap when enabling overlap_moe_expert_parallel_comm");
    }
    if (model.num_mtp_layers > 1) {
      return violation("a2a_overlap", "MTP supports at most one layer when enabling overlap_moe_expert_parallel_comm");
    }
    if (l.cuda_graph == CudaGraphImpl::transformer_engine &&
        (has(l.graph_modules, GraphModule::moe) || has(l.graph_modules, GraphModule::mlp))) {
      return violation("a2a_overlap", "CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm");
    }
  }
  if (l.delay_wgrad && !l.a2a_overlap) {
    return violation("delay_wgrad", "overlap_moe_expert_parallel_comm must be enabled when enabling delay_wgrad_compute");
  }
  if (l.dispatcher == MoeDispatcher::flex && l.flex_backend == FlexBackend::deepep && l.pad_capacity) {
    return violation("pad_capacity", "Flex token dispatcher with deepep backend does not support moe_pad_expert_input_to_capacity");
  }
  if (l.pad_capacity && l.capacity <= 0) {
    return violation("pad_capacity", "moe_pad_expert_input_to_capacity needs moe_expert_capacity_factor");
  }
  if (l.cuda_graph != CudaGraphImpl::none) {
    if (l.cuda_graph == CudaGraphImpl::full_iteration && l.graph_modules != 0) {
      return violation("graph_modules", "cuda_graph_modules must be empty when cuda_graph_impl=\"full_iteration\"");
    }
    if (l.recompute == RecomputeGranularity::full && l.cuda_graph != CudaGraphImpl::full_iteration) {
      return violation("cuda_graph", "full recompute is only supported with full iteration CUDA graph");
    }
    if (has(l.graph_modules, GraphModule::moe) && has(l.graph_modules, GraphModule::moe_router)) {
      return violation("graph_modules", "cuda_graph_modules must not contain both moe and moe_router");
    }
    if (has(l.graph_modules, GraphModule::moe_preprocess) && !has(l.graph_modules, GraphModule::moe_router) &&
        l.cuda_graph != CudaGraphImpl::local) {
      return violation("graph_modules", "moe_preprocess cuda graph is only supported with moe_router cuda graph");
    }
    if (!moe && (has(l.graph_modules, GraphModule::moe) || has(l.graph_modules, GraphModule::moe_router))) {
      return violation("graph_modules", "moe cuda graph is only supported for MoE");
    }
    if (moe && has(l.graph_modules, GraphModule::mlp) && model.count_mlp(MlpKind::dense) == 0) {
      return violation("graph_modules", "mlp cuda graph is only supported for dense layers, but not found in the model");
    }
    if (has(l.graph_modules, GraphModule::moe) && !(l.capacity > 0 && l.pad_capacity)) {
      return violation("graph_modules", "moe cuda graph is only supported with drop-padding MoE");
    }
    if (l.cuda_graph == CudaGraphImpl::transformer_engine && selective &&
        has_module(l.recompute_modules, RecomputeModule::moe) && has(l.graph_modules, GraphModule::moe_router)) {
      return violation("graph_modules", "moe recompute is not supported with moe_router CUDA graph with --cuda-graph-impl transformer_engine");
    }
  }
  // transformer_config.py __post_init__: "Storing activation input in FP8 is supported only for SwiGLU."
  if (l.act_fp8_store && (!model.gated_mlp || !model.silu_glu)) {
    return violation("act_fp8_store", "act_fp8_store (activation_func_fp8_input_store) is supported only for SwiGLU; {}'s MLP is {}",
                       model.name, model.gated_mlp ? "a quick-GELU GLU" : "not gated");
  }
  if (l.act_offload) {
    if (l.offload_modules == 0) return violation("act_offload", "fine-grained activation offloading needs --offload-modules");
    if (has(l.offload_modules, OffloadModule::attn_proj) && !has(l.offload_modules, OffloadModule::core_attn)) {
      return violation("offload_modules", "attn_proj cannot be set to offload_modules alone without core_attn");
    }
  }
  // Layer-level CPU offloading (transformer_config.py __post_init__ at d98e8a64).
  if (l.cpu_offload_layers > 0) {
    if (l.cpu_offload_layers >= model.num_layers) {
      return violation("cpu_offload_layers", "CPU offloading can be done only for layers less than {}", model.num_layers);
    }
    if (l.pp > 1) {
      return violation("cpu_offload_layers", "Currently there is no support for Pipeline parallelism with CPU offloading");
    }
    if (l.recompute != RecomputeGranularity::none) {
      return violation("cpu_offload_layers", "CPU offloading does not work when activation recomputation is enabled");
    }
    if (l.cuda_graph != CudaGraphImpl::none && l.cuda_graph != CudaGraphImpl::full_iteration) {
      return violation("cpu_offload_layers", "CUDA graphs not supported with CPU offloading.");
    }
    if (l.act_offload) {
      return violation("act_offload", "fine_grained_activation_offloading cannot be enabled with cpu_offloading.");
    }
  }
  // Sync-free MoE and paged stashing (transformer_config.py __post_init__ at d98e8a64).
  if (l.rank_capacity > 0 && (l.dispatcher != MoeDispatcher::flex ||
                              (l.flex_backend != FlexBackend::hybridep && l.flex_backend != FlexBackend::ncclep))) {
    return violation("rank_capacity",
                     "moe_expert_rank_capacity_factor requires moe_flex_dispatcher_backend to be 'hybridep' or 'ncclep'.");
  }
  if (l.paged_stash) {
    if (l.cpu_offload_layers > 0) {
      return violation("paged_stash", "moe_paged_stash cannot be enabled with cpu_offloading.");
    }
    if (l.rank_capacity <= 0) {
      return violation("paged_stash", "moe_paged_stash requires moe_expert_rank_capacity_factor to be set; there is no "
                                      "need to use paged stashing without it.");
    }
    if (l.act_offload && (has(l.offload_modules, OffloadModule::expert_fc1) || has(l.offload_modules, OffloadModule::moe_act) ||
                          has(l.offload_modules, OffloadModule::fused_group_mlp))) {
      return violation("offload_modules", "When moe_paged_stash is enabled, offload_modules must not include expert_fc1, "
                                          "moe_act, or fused_group_mlp");
    }
  }
  if (l.cp_comm == CpComm::a2a_p2p && l.cp_inner == 0) {
    return violation("cp_comm", "--hierarchical-context-parallel-sizes must be set when a2a+p2p is used in cp comm");
  }
  if (l.cp_inner > 0 && l.cp % l.cp_inner != 0) {
    return violation("cp_inner", "the hierarchical context parallel sizes {} x {} do not multiply to cp {}", l.cp_inner,
                       l.cp / std::max<int64_t>(l.cp_inner, 1), l.cp);
  }
  if (l.fsdp == Fsdp::torch) {
    if (l.pp > 1) return violation("fsdp", "--use-torch-fsdp2 is not supported with pipeline parallelism");
    if (l.ep > 1) return violation("fsdp", "--use-torch-fsdp2 is not supported with expert parallelism");
    if (l.dist_opt) return violation("fsdp", "--use-torch-fsdp2 is not supported with MCore's distributed optimizer");
  }
  if (l.fsdp == Fsdp::megatron && l.offload > 0) {
    return violation("fsdp", "Megatron-FSDP does not take the CPU optimizer offload");
  }
  if (l.main_grads == StateDtype::bf16 && l.grad_reduce == StateDtype::fp32) {
    return violation("main_grads", "--main-grads-dtype can only be fp32 when --accumulate-allreduce-grads-in-fp32 is set");
  }
  const bool low_states = l.main_grads != StateDtype::fp32 || l.main_params != StateDtype::fp32 ||
                          l.moments_sq != StateDtype::fp32 || l.moments != StateDtype::fp32;
  if (low_states && !l.precision_aware) {
    return violation(low_states_knob(l), "main-grads, main-params and exp-avg dtypes other than fp32 need --use-precision-aware-optimizer");
  }
  if (l.precision_aware && !l.dist_opt && l.fsdp == Fsdp::none) {
    return violation("precision_aware", "the precision-aware optimizer needs the distributed optimizer");
  }
  if (l.dist_opt_instances > 1 && l.dp % l.dist_opt_instances != 0) {
    return violation("dist_opt_instances", "{} distributed optimizer instances do not divide dp {}", l.dist_opt_instances, l.dp);
  }
  if (l.fp8 != Fp8Format::none) {
    if (auto v = precision_violation(l, context)) return v;
    if (l.fp8_bf16_edges && l.fp8_recipe == Fp8Recipe::delayed) {
      return violation("fp8_bf16_edges", "Delayed scaling does not support first / last layer in BF16");
    }
    if (l.fp8_param_gather && l.offload > 0 && l.fp8_recipe != Fp8Recipe::delayed) {
      return violation("fp8_param_gather", 
          "When `--fp8-param-gather` is enabled, the optimizer cpu offload must be used in conjunction with "
          "`--fp8-recipe delayed`");
    }
  } else if (l.fp8_param_gather || l.fp8_bf16_edges) {
    return violation(l.fp8_param_gather ? KnobKey("fp8_param_gather") : KnobKey("fp8_bf16_edges"), "--fp8-param-gather and --first-last-layers-bf16 need --fp8-format");
  }
  // FP4 (arguments.py validate_args and transformer_config.py __post_init__ at d98e8a64);
  // Transformer Engine's NVFP4 runs on Blackwell and later only (its nvfp4.rst, "Supported
  // devices").
  if (l.fp4 != Fp4Format::none) {
    if (l.fp8 != Fp8Format::none) {
      return violation("fp4", "--fp4-format and --fp8-format cannot be used simultaneously. Please choose one.");
    }
    if (auto v = precision_violation(l, context)) return v;
    if (l.fp4_recipe == Fp4Recipe::custom) {
      return violation("fp4_recipe", "--fp4-recipe custom runs the user's --fp4-quantizer-factory, which ladle does not price");
    }
  } else if (l.fp4_param_gather) {
    return violation("fp4_param_gather", "--fp4-param-gather must be used together with --fp4-format.");
  }
  if (l.ce_impl == CrossEntropyImpl::te && !l.ce_fusion) {
    return violation("ce_impl", "--cross-entropy-fusion-impl te needs --cross-entropy-loss-fusion");
  }
  if (l.tp_overlap && (l.tp == 1 || !l.sp)) {
    return violation("tp_overlap", 
        "Tensor parallel communication/GEMM overlap can happen only when sequence parallelism is enabled (tp > 1)");
  }
  if (l.overlap_param && !l.dist_opt && l.fsdp == Fsdp::none) {
    return violation("overlap_param", "--overlap-param-gather only supported with distributed optimizer");
  }
  return std::nullopt;
}

}  // namespace

LayoutContext checking_context(const ModelSpec& model, const GpuSpec& gpu, int64_t gpus, int64_t gpus_per_node,
                               int64_t row_tokens, int64_t global_batch) {
  LayoutContext context = precision_context(gpu);
  context.gpus = gpus;
  context.gpus_per_node = gpus_per_node;
  context.row_tokens = row_tokens;
  context.global_batch = global_batch;
  context.num_layers = model.num_layers;  // resolves --num-layers-per-virtual-pipeline-stage
  return context;
}

LayoutContext precision_context(const GpuSpec& gpu) {
  LayoutContext context;
  context.gpu_fp8 = gpu.fp8_dense_tflops > 0;
  context.gpu_mxfp8 = gpu.runs_block_scaled("mxfp8");
  context.gpu_nvfp4 = gpu.runs_block_scaled("nvfp4");
  context.gpu_mxfp4 = gpu.runs_block_scaled("mxfp4");
  context.gpu = gpu.name;
  return context;
}

std::optional<LayoutViolation> precision_violation(const Layout& l, const LayoutContext& context) {
  // "; h100-sxm has none" where the context knows its GPU.
  const std::string none = context.gpu.empty() ? std::string() : fmt::format("; {} has none", context.gpu);
  if (l.fp8 != Fp8Format::none) {
    if (!context.gpu_fp8) return violation("fp8", "FP8 (--fp8-format) needs a GPU with FP8 tensor cores{}", none);
    // MXFP8 GEMMs are block-scaled tensor-core instructions of Blackwell (Transformer Engine's
    // MXFP8BlockScaling recipe: "only supported on Blackwell and later").
    if (l.fp8_recipe == Fp8Recipe::mxfp8 && !context.gpu_mxfp8) {
      return violation("fp8_recipe", "--fp8-recipe mxfp8 needs a GPU with MXFP8 tensor cores (Blackwell){}", none);
    }
  } else if (l.fp4 != Fp4Format::none) {
    // MXFP4 GEMMs are the block-scaled MMA of Blackwell and CDNA 4, NVFP4's of Blackwell only
    // (gpus.yaml block_scaled_formats).
    if (l.fp4_recipe == Fp4Recipe::mxfp4) {
      if (!context.gpu_mxfp4) {
        return violation("fp4", "--fp4-format with --fp4-recipe mxfp4 needs a GPU with MXFP4 tensor cores "
                         "(Blackwell, CDNA 4){}", none);
      }
    } else if (!context.gpu_nvfp4) {
      if (context.gpu.empty()) return violation("fp4", "--fp4-format with --fp4-recipe nvfp4 needs a Blackwell GPU");
      return violation("fp4", "--fp4-format with --fp4-recipe nvfp4 needs a GPU with NVFP4 tensor cores (Blackwell){}",
                       none);
    }
  }
  return std::nullopt;
}

std::optional<LayoutViolation> layout_violation(const Layout& l, const ModelSpec& model,
                                                const LayoutContext& context) {
  const bool moe = model.num_experts > 0;
  if (context.gpus > 0 && l.gpus() != context.gpus) {
    return violation("", "tp*pp*cp*dp = {}*{}*{}*{} = {} GPUs, but the run has {}", l.tp, l.pp, l.cp, l.dp,
                       l.gpus(), context.gpus);
  }
  if (l.tp > context.gpus_per_node || context.gpus_per_node % l.tp != 0) {
    return violation("tp", "tp {} must divide the {} GPUs of a node (tensor parallel stays inside NVLink)",
                       l.tp, context.gpus_per_node);
  }
  if (model.num_heads % l.tp != 0) {
    return violation("tp", "tp {} does not divide the {} attention heads", l.tp, model.num_heads);
  }
  if (model.attention == AttentionKind::gqa && model.num_kv_heads % l.tp != 0) {
    return violation("tp", "tp {} does not divide the {} key/value heads", l.tp, model.num_kv_heads);
  }
  // per-layer attention geometry (step3p7, gemma4): a layer with its own query or key/value heads
  // is split over the same TP ranks (Step-3.7-Flash's 96-head sliding layers, Gemma 4's 4 global
  // key/value heads).
  if (model.attention == AttentionKind::gqa && model.has_layer_geometry()) {
    for (int i = 0; i < model.num_layers; ++i) {
      if (model.mixer_of(i) != MixerKind::attention) continue;
      if (model.heads_of(i) % l.tp != 0) {
        return violation("tp", "tp {} does not divide layer {}'s {} attention heads", l.tp, i, model.heads_of(i));
      }
      if (model.kv_heads_of(i) % l.tp != 0) {
        return violation("tp", "tp {} does not divide layer {}'s {} key/value heads", l.tp, i, model.kv_heads_of(i));
      }
    }
  }
  // Mamba-2 mixers shard heads and B/C groups across tensor-parallel ranks: Megatron-LM's
  // MambaMixer asserts "nheads must be evenly divisble by tp_size" and "ngroups must be evenly
  // divisible by tp_size" (NVIDIA/Megatron-LM megatron/core/ssm/mamba_mixer.py @ 00bebb45).
  if (model.count_mixer(MixerKind::mamba) > 0) {
    if (model.mamba_heads % l.tp != 0) {
      return violation("tp", "tp {} does not divide the {} Mamba heads (mamba_num_heads)", l.tp, model.mamba_heads);
    }
    if (model.mamba_groups % l.tp != 0) {
      return violation("tp", "tp {} does not divide the {} Mamba groups (n_groups)", l.tp, model.mamba_groups);
    }
  }
  if (!moe && (l.ep != 1 || l.etp != 1)) {
    return violation("ep", "ep {} and etp {} need a MoE model; {} is dense", l.ep, l.etp, model.name);
  }
  if (moe && model.num_experts % l.ep != 0) {
    return violation("ep", "ep {} does not divide the {} routed experts", l.ep, model.num_experts);
  }
  if (moe && model.moe_intermediate_size % l.etp != 0) {
    return violation("etp", "etp {} does not divide the expert width {}", l.etp, model.moe_intermediate_size);
  }
  if ((l.tp * l.cp * l.dp) % (l.ep * l.etp) != 0) {
    return violation("ep", "ep*etp = {} does not divide tp*cp*dp = {} (expert data parallel must be whole)",
                       l.ep * l.etp, l.tp * l.cp * l.dp);
  }
  if (l.sp && l.tp == 1) return violation("sp", "sequence parallel needs tp > 1");
  // megatron/core/transformer/moe/moe_layer.py (MoELayer.forward) raises in training whatever EP is.
  if (moe && l.tp > 1 && !l.sp) {
    return violation("tp", 
        "tp {} on a MoE model needs sequence parallel (Megatron-LM: \"During training, performance may degrade if "
        "MoE and tensor parallelism are enabled without also enabling sequence parallelism\")",
        l.tp);
  }
  if (l.pp > model.num_layers) {
    return violation("pp", "pp {} exceeds the {} decoder layers", l.pp, model.num_layers);
  }
  if (auto violation = pipeline_violation(l, model)) return violation;
  const std::vector<int64_t> stages = stage_layers(l, model.num_layers);
  if (l.cp > 1 && context.row_tokens % (2 * l.cp) != 0) {
    return violation("cp", "cp {} needs rows divisible by 2*cp; a row has {} tokens", l.cp, context.row_tokens);
  }
  // Full recompute asks only for --recompute-num-layers (transformer_config.py,
  // __post_init__): Megatron-LM's recompute loop clamps each unit to the layers a chunk holds
  // (megatron/core/recompute.py, checkpointed_forward: uniform runs min(layer + N, chunk layers),
  // block checkpoints the chunk's first min(N, chunk layers)), so a chunk with fewer layers than N,
  // or none (the MTP block's empty chunk in Et*3|(tt|)*29m|L), runs as it is.
  if (l.offload < 0 || l.offload > 1) return violation("offload", "offload {} is outside 0..1", l.offload);
  if (l.overlap && l.offload == 0) return violation("overlap", "overlap needs optimizer offload > 0");
  if (l.offload > 0 && !l.precision_aware) {
    return violation("offload", "optimizer offload needs the precision-aware optimizer (Megatron-LM asserts it)");
  }
  if (l.moments == StateDtype::bf16 && !l.precision_aware) {
    return violation("moments", "bf16 moments need the precision-aware optimizer");
  }
  if (moe && l.dispatcher == MoeDispatcher::flex && l.ep * l.etp * l.tp == 1) {
    return violation("dispatcher", "the flex dispatcher needs tp*ep > 1");
  }
  if (auto violation = megatron_violation(l, model, context)) return violation;
  if (context.row_tokens > 0) {
    const int64_t packed = l.max_tokens * l.cp / context.row_tokens;
    if (packed < 1) {
      return violation("max_tokens", "max_tokens {} holds no {}-token row (cp {})", l.max_tokens, context.row_tokens, l.cp);
    }
    if (packed != l.rows_per_mb) {
      return violation("rows_per_mb", "rows_per_mb {} disagrees with max_tokens {}: dynamic batching packs {} row(s)",
                         l.rows_per_mb, l.max_tokens, packed);
    }
  }
  if (context.global_batch > 0) {
    if (context.global_batch % l.dp != 0) {
      return violation("dp", "dp {} does not divide the global batch of {} rows", l.dp, context.global_batch);
    }
    if (context.global_batch / l.dp < l.rows_per_mb) {
      return violation("rows_per_mb", "rows_per_mb {} exceeds the {} rows each dp rank gets per step", l.rows_per_mb,
                         context.global_batch / l.dp);
    }
    // DualPipe.step: "num_chunks % 2 == 0 and num_chunks >= num_ranks * 2" (half the
    // microbatches enter at each end of the pipeline).
    const int64_t microbatches = microbatches_per_step(l, context);
    if (l.schedule == PipelineSchedule::dualpipe &&
        (microbatches % 2 != 0 || microbatches < 2 * l.pp)) {
      return violation("schedule", 
          "schedule=dualpipe needs an even number of microbatches of at least 2 x pp = {}; a step "
          "has {}",
          2 * l.pp, microbatches);
    }
  }
  return std::nullopt;
}

std::optional<std::string> find_layout_violation(const Layout& layout, const ModelSpec& model,
                                                 const LayoutContext& context) {
  std::optional<LayoutViolation> broken = layout_violation(layout, model, context);
  if (!broken) return std::nullopt;
  return std::move(broken->message);
}

void require_valid_layout(const Layout& layout, const ModelSpec& model, const LayoutContext& context) {
  if (auto violation = find_layout_violation(layout, model, context)) {
    throw Error(ErrorKind::input, *violation, SourceLocation{"", 0, 0, "layout"});
  }
}

}  // namespace ladle::layout
