#pragma once
// layout.hpp: Layout, one parallel layout of a training run (how the model and the batch are split
// over GPUs, and every Megatron-LM knob that moves memory or speed), as the planner, the recipe and
// the engines see it. knobs.hpp lists every field once, with its spec key, engine arguments and
// recipe field; the defaults here are the spec's defaults (a layout nobody tuned).

#include <cstdint>
#include <string>
#include <string_view>

namespace ladle {

/// Activation recomputation (Megatron-LM --recompute-granularity).
enum class RecomputeGranularity {
  none,       ///< keep every activation
  selective,  ///< recompute the modules of `recompute_modules` (Megatron's default: core attention)
  full,       ///< recompute whole layers (with `recompute_method` and `recompute_layers`)
};

/// How full recompute chooses layers (Megatron-LM --recompute-method).
enum class RecomputeMethod {
  uniform,  ///< checkpoint every `recompute_layers` layers and recompute each chunk
  block,    ///< recompute the first `recompute_layers` layers of each stage only
};

/// The MoE token dispatcher (Megatron-LM --moe-token-dispatcher-type).
enum class MoeDispatcher {
  alltoall,   ///< NCCL all-to-all of the routed token copies
  allgather,  ///< all-gather every token to every expert rank
  flex,       ///< DeepEP / HybridEP: one copy per destination node, forwarded over NVLink
};

/// A storage dtype of gradients, master weights or Adam moments (Megatron-LM --main-grads-dtype,
/// --main-params-dtype, --exp-avg-dtype, --exp-avg-sq-dtype). Not every knob allows every value;
/// knobs.hpp lists which.
enum class StateDtype { fp32, bf16, fp16, fp8 };

/// FP8 GEMMs (Megatron-LM --fp8-format): none keeps BF16.
enum class Fp8Format { none, e4m3, hybrid };
/// FP8 scaling recipe (--fp8-recipe).
enum class Fp8Recipe { delayed, tensorwise, blockwise, mxfp8 };
/// How FP8 delayed scaling picks the amax a scale is set from (--fp8-amax-compute-algo): the newest
/// entry of the history, or the largest.
enum class Fp8AmaxAlgo { most_recent, max };
/// FP4 GEMMs (Megatron-LM --fp4-format, TransformerConfig.fp4): none keeps BF16 (or FP8).
enum class Fp4Format { none, e2m1 };
/// FP4 recipe (--fp4-recipe): Transformer Engine's NVFP4BlockScaling, a quantizer factory of the
/// user's (--fp4-quantizer-factory), which ladle does not price, or AMD Primus's MXFP4 (E2M1 values
/// with an E8M0 scale per 32, the OCP microscaling format), which Megatron-LM's own argument lacks.
enum class Fp4Recipe { nvfp4, custom, mxfp4 };
/// The backend of the flex dispatcher (--moe-flex-dispatcher-backend).
enum class FlexBackend { deepep, hybridep, ncclep };
/// Router logits and probabilities dtype (--moe-router-dtype); none keeps the model dtype.
enum class RouterDtype { none, fp32, fp64 };
/// CUDA graph capture (--cuda-graph-impl).
enum class CudaGraphImpl { none, local, transformer_engine, full_iteration };
/// Fully sharded data parallel: Megatron-FSDP (--use-megatron-fsdp) or PyTorch FSDP2
/// (--use-torch-fsdp2).
enum class Fsdp { none, megatron, torch };
/// What Megatron-FSDP shards (--data-parallel-sharding-strategy).
enum class FsdpSharding { no_shard, optim, optim_grads, optim_grads_params };
/// The fused cross-entropy implementation (--cross-entropy-fusion-impl).
enum class CrossEntropyImpl { native, te };
/// Context-parallel communication (--cp-comm-type).
enum class CpComm { p2p, a2a, allgather, a2a_p2p };
/// The pipeline schedule: Megatron-LM's 1F1B (interleaved when vpp > 1), or DeepSeek's DualPipe
/// (DeepSeek-V3 technical report, arXiv 2412.19437, section 3.2.1), which no Megatron-LM
/// argument runs.
enum class PipelineSchedule { one_f_one_b, dualpipe };

/// Bits of `Layout::recompute_modules` (--recompute-modules), in knobs.hpp's name order.
enum class RecomputeModule : uint32_t {
  core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts
};
/// Bits of `Layout::graph_modules` (--cuda-graph-modules, formerly --cuda-graph-scope); no bit
/// set captures whole layers.
enum class GraphModule : uint32_t { attn, mlp, moe, moe_router, moe_preprocess, mamba };
/// Bits of `Layout::offload_modules` (--offload-modules).
enum class OffloadModule : uint32_t {
  attn_norm, qkv_linear, core_attn, attn_proj, mlp_norm, expert_fc1, moe_act, fused_group_mlp
};

/// The bit of one set member.
template <typename Enum>
constexpr uint32_t bit(Enum member) {
  return uint32_t{1} << static_cast<uint32_t>(member);
}
/// Whether `set` holds `member`.
template <typename Enum>
constexpr bool has(uint32_t set, Enum member) {
  return (set & bit(member)) != 0;
}

/// One parallel layout. Products: GPUs = tp * pp * cp * dp; expert data parallel
/// EDP = tp * cp * dp / (ep * etp). Zero in `dp` or `max_tokens` means "derive it" (from the GPU
/// count, and from rows_per_mb * row_tokens / cp).
struct Layout {
  // Parallel sizes.
  int64_t tp = 1;   ///< tensor parallel
  int64_t pp = 1;   ///< pipeline parallel
  int64_t cp = 1;   ///< context parallel
  int64_t ep = 1;   ///< expert parallel
  int64_t etp = 1;  ///< expert tensor parallel
  int64_t dp = 0;   ///< data parallel (0: GPUs / (tp * pp * cp))
  bool sp = false;  ///< sequence parallel
  // Pipeline split.
  int64_t vpp = 1;    ///< virtual pipeline stages per pipeline rank (interleaved 1F1B when > 1)
  int64_t first = 0;  ///< decoder layers on the first pipeline stage (0: even split)
  int64_t last = 0;   ///< decoder layers on the last pipeline stage (0: even split)
  /// --num-layers-per-virtual-pipeline-stage (0: not given; resolve_layout turns it into vpp).
  int64_t vpp_layers = 0;
  bool account_embedding = false;  ///< --account-for-embedding-in-pipeline-split
  bool account_loss = false;       ///< --account-for-loss-in-pipeline-split
  /// --pipeline-model-parallel-layout, e.g. "Et*3|(tt|)*29m|L" (empty: not given). Stages are
  /// separated by '|', pp * vpp of them in virtual-stage order; E embedding, t decoder layer,
  /// m MTP layer, L loss; "(...)*n" and "x*n" repeat.
  std::string pipeline_layout;
  /// DualPipe: each pipeline rank r holds stages r and pp - 1 - r, half the microbatches enter
  /// at each end (vpp stays 1).
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  // Recompute.
  RecomputeGranularity recompute = RecomputeGranularity::none;
  RecomputeMethod recompute_method = RecomputeMethod::uniform;  ///< full only
  int64_t recompute_layers = 1;                                 ///< full only
  /// Selective recompute's modules (bits of RecomputeModule); Megatron-LM's default core_attn.
  uint32_t recompute_modules = bit(RecomputeModule::core_attn);
  // Optimizer and its state dtypes.
  double offload = 0;            ///< fraction of optimizer states kept on the host, 0..1
  bool overlap = false;          ///< overlap the host optimizer's device-host copies
  bool precision_aware = false;  ///< --use-precision-aware-optimizer
  StateDtype moments = StateDtype::fp32;     ///< --exp-avg-dtype (first Adam moment)
  StateDtype moments_sq = StateDtype::fp32;  ///< --exp-avg-sq-dtype (second Adam moment)
  StateDtype main_grads = StateDtype::fp32;  ///< --main-grads-dtype (fp32 | bf16)
  StateDtype main_params = StateDtype::fp32; ///< --main-params-dtype (fp32 | fp16)
  /// Gradient reduce dtype: fp32 (--accumulate-allreduce-grads-in-fp32) or bf16
  /// (--grad-reduce-in-bf16).
  StateDtype grad_reduce = StateDtype::fp32;
  bool dist_opt = true;            ///< --use-distributed-optimizer (slime and miles always set it)
  int64_t dist_opt_instances = 1;  ///< --num-distributed-optimizer-instances
  // Batching.
  int64_t max_tokens = 0;   ///< --max-tokens-per-gpu (0: rows_per_mb * row_tokens / cp)
  int64_t rows_per_mb = 1;  ///< rows packed into one microbatch
  // MoE.
  MoeDispatcher dispatcher = MoeDispatcher::alltoall;
  FlexBackend flex_backend = FlexBackend::deepep;  ///< flex only
  bool a2a_overlap = false;       ///< --overlap-moe-expert-parallel-comm
  bool delay_wgrad = false;       ///< --delay-wgrad-compute
  bool shared_overlap = false;    ///< --moe-shared-expert-overlap
  bool force_balance = false;     ///< --moe-router-force-load-balancing
  double capacity = 0;            ///< --moe-expert-capacity-factor (0: dropless)
  bool pad_capacity = false;      ///< --moe-pad-expert-input-to-capacity
  /// --moe-expert-rank-capacity-factor: each expert rank's token budget over the mean (0: none);
  /// hybridep and ncclep only.
  double rank_capacity = 0;
  bool paged_stash = false;       ///< --moe-paged-stash: routed-expert activations in a paged buffer
  /// --moe-paged-stash-buffer-size-factor-cuda: the stash over the balanced count (negative: over
  /// the largest count seen).
  double stash_factor = 1.10;
  bool permute_fusion = false;    ///< --moe-permute-fusion
  bool router_fusion = false;     ///< --moe-router-fusion: Transformer Engine's fused router kernels
  RouterDtype router_dtype = RouterDtype::none;
  // FP8.
  Fp8Format fp8 = Fp8Format::none;
  Fp8Recipe fp8_recipe = Fp8Recipe::delayed;
  bool fp8_param_gather = false;  ///< --fp8-param-gather: FP8 weight copies, no BF16 ones
  bool fp8_bf16_edges = false;    ///< --first-last-layers-bf16
  int64_t fp8_bf16_first = 1;     ///< --num-layers-at-start-in-bf16
  int64_t fp8_bf16_last = 1;      ///< --num-layers-at-end-in-bf16
  bool fp8_reuse_grad_buf = false;  ///< --reuse-grad-buf-for-mxfp8-param-ag: MXFP8 weights gathered in the grad buffer
  /// --fp8-amax-history-len: amax values each delayed-scaling quantizer keeps (Megatron-LM's
  /// TransformerConfig.fp8_amax_history_len default 1, d98e8a64).
  int64_t fp8_amax_history = 1;
  /// --fp8-amax-compute-algo: the amax a delayed-scaling quantizer scales by, the newest of its
  /// history or the largest (Megatron-LM's TransformerConfig.fp8_amax_compute_algo default most_recent).
  Fp8AmaxAlgo fp8_amax_algo = Fp8AmaxAlgo::most_recent;
  /// Megatron-Core's activation_func_fp8_input_store: SwiGLU keeps its input for backward in FP8
  /// E4M3 (Megatron-Bridge's model.activation_func_fp8_input_store; no Megatron-LM argument).
  bool act_fp8_store = false;
  /// Megatron-Core's fp8_dot_product_attention: Transformer Engine's FP8 attention
  /// (Megatron-Bridge's model.fp8_dot_product_attention; no Megatron-LM argument).
  bool fp8_dpa = false;
  // FP4.
  Fp4Format fp4 = Fp4Format::none;
  Fp4Recipe fp4_recipe = Fp4Recipe::nvfp4;
  bool fp4_param_gather = false;  ///< --fp4-param-gather: NVFP4 weights, no BF16 ones
  // CUDA graphs.
  CudaGraphImpl cuda_graph = CudaGraphImpl::none;
  uint32_t graph_modules = 0;  ///< bits of GraphModule; 0 captures whole layers
  // Communication overlap.
  bool overlap_grad = false;   ///< --overlap-grad-reduce
  bool overlap_param = false;  ///< --overlap-param-gather
  bool tp_overlap = false;     ///< --tp-comm-overlap (userbuffers TP overlap)
  // FSDP.
  Fsdp fsdp = Fsdp::none;
  FsdpSharding fsdp_sharding = FsdpSharding::optim_grads_params;  ///< Megatron-FSDP only
  // Loss.
  bool ce_fusion = false;                             ///< --cross-entropy-loss-fusion
  CrossEntropyImpl ce_impl = CrossEntropyImpl::native;  ///< --cross-entropy-fusion-impl
  // Fine-grained activation offloading.
  bool act_offload = false;      ///< --fine-grained-activation-offloading
  uint32_t offload_modules = 0;  ///< bits of OffloadModule (--offload-modules)
  double act_offload_fraction = 1.0;  ///< --activation-offload-fraction, 0..1
  /// Legacy layer-level activation offloading (--cpu-offloading-num-layers, which sets
  /// cpu_offloading): the activations of this many decoder layers go to the host (0: none).
  int64_t cpu_offload_layers = 0;
  // Context parallel.
  CpComm cp_comm = CpComm::p2p;
  /// --hierarchical-context-parallel-sizes A cp/A (0: not hierarchical); a2a+p2p only.
  int64_t cp_inner = 0;
  // Precision: --fp16 trains in FP16 with a dynamic loss scale instead of BF16 (Megatron-LM
  // megatron/training/arguments.py; FP32 master weights as under BF16).
  bool fp16 = false;
  /// Gradient-accumulation fusion: the weight-gradient GEMM accumulates into the FP32 main
  /// gradient (Megatron-LM's default; --no-gradient-accumulation-fusion turns it off).
  bool grad_accum_fusion = true;
  /// SwiGLU's fused kernel: the gated MLP's activation in one kernel each way (Megatron-LM's
  /// default; --no-bias-swiglu-fusion runs it as separate PyTorch operations).
  bool swiglu_fusion = true;
  // LoRA (miles --lora-rank, --lora-alpha, --target-modules; miles/utils/arguments.py at
  // 31f1ca96): the base weights frozen, low-rank adapters trained.
  int64_t lora_rank = 0;    ///< adapter rank (0: full fine-tuning, miles' default)
  int64_t lora_alpha = 16;  ///< adapter scale numerator (miles' default 16); moves nothing priced
  /// --target-modules as written: "all-linear", or a comma-separated list of Megatron-Core
  /// (linear_qkv, linear_proj, linear_fc1, linear_fc2, MLA's linear_q_down_proj ...) or Hugging
  /// Face (q_proj, ..., down_proj) module names ("" with lora_rank > 0: Megatron-Bridge's default,
  /// the four standard modules).
  std::string lora_targets;
  // Colocation (slime and miles --colocate: the SGLang engines on the training GPUs).
  bool colocate = false;
  double sglang_mem_fraction = 0;  ///< --sglang-mem-fraction-static (0: not given, SGLang chooses)
  /// --update-weight-buffer-size, bytes (slime's and miles' default 512 MiB).
  int64_t update_buffer_bytes = int64_t{512} * 1024 * 1024;

  /// GPUs the layout occupies: tp * pp * cp * dp (0 while dp is still to be derived).
  int64_t gpus() const { return tp * pp * cp * dp; }
  /// Expert data-parallel size tp * cp * dp / (ep * etp) (integer division; validity checks it).
  int64_t edp() const { return ep * etp > 0 ? tp * cp * dp / (ep * etp) : 0; }

  bool operator==(const Layout&) const = default;
};

/// "none" / "selective" / "full".
const char* to_string(RecomputeGranularity value);
/// "uniform" / "block".
const char* to_string(RecomputeMethod value);
/// "alltoall" / "allgather" / "flex".
const char* to_string(MoeDispatcher value);
/// "fp32" / "bf16" / "fp16" / "fp8".
const char* to_string(StateDtype value);

/// Parses a granularity name; throws Error(usage) listing the valid names.
RecomputeGranularity parse_recompute_granularity(std::string_view name);
/// Parses a method name; throws Error(usage) listing the valid names.
RecomputeMethod parse_recompute_method(std::string_view name);
/// Parses a dispatcher name; throws Error(usage) listing the valid names.
MoeDispatcher parse_moe_dispatcher(std::string_view name);
/// Parses a state dtype; throws Error(usage) listing the valid names.
StateDtype parse_state_dtype(std::string_view name);

}  // namespace ladle
