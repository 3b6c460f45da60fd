// time_model.cpp: the step time of one layout by part (see predictor.hpp for the model).
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "ladle/plan/cost_gemm_shape.hpp"
#include "ladle/plan/cost_compressed_attention.hpp"
#include "ladle/plan/cost_fp16.hpp"
#include "ladle/plan/cost_fp8_amax_history.hpp"
#include "ladle/plan/cost_grad_accum_fusion.hpp"
#include "ladle/plan/cost_lora.hpp"
#include "ladle/plan/hw_facts.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/stack.hpp"
#include "ladle/plan/time_attention.hpp"
#include "ladle/plan/time_collective.hpp"
#include "ladle/plan/time_cp.hpp"
#include "ladle/plan/time_elementwise.hpp"
#include "ladle/plan/time_ep.hpp"
#include "ladle/plan/time_gemm.hpp"
#include "ladle/plan/time_host.hpp"
#include "ladle/plan/time_offload.hpp"
#include "ladle/plan/time_recompute.hpp"
#include "ladle/plan/time_terms.hpp"
#include "ladle/plan/time_tp.hpp"

namespace ladle::plan {

namespace {

using timing::activation_offload;
using timing::Blocks;
using timing::collective_time;
using timing::core_attention;
using timing::cp_forward;
using timing::dense_gemms;
using timing::elementwise;
using timing::ep_exposed;
using timing::ep_forward;
using timing::ep_sync;
using timing::expert_gemms;
using timing::forward_blocks;
using timing::gemm_time;
using timing::host_launches;
using timing::host_time;
using timing::KindInputs;
using timing::kBf16;
using timing::kFp32;
using timing::LayerForward;
using timing::Rates;
using timing::Recompute;
using timing::selective_recompute;
using timing::send_time;
using timing::tp_forward;

// Per-layer costs of one kind, one microbatch, seconds.
struct KindTime {
  double dense_gemm = 0, expert_gemm = 0, attention = 0, elementwise = 0, recompute = 0;
  double tp = 0, ep = 0, cp = 0;
  double host = 0;         // host launch time beyond the GPU's (the layer runs at the host's pace)
  double act_offload = 0;  // activation copies to and from the host that compute does not hide
  double total() const {
    return dense_gemm + expert_gemm + attention + elementwise + recompute + tp + ep + cp + host +
           act_offload;
  }
};

// One layer kind under the layout, one microbatch: the terms (time_<term>.cpp) priced in the
// forward pass, then scaled for backward, recompute, host launches and offload.
KindTime kind_time(const ModelCosts& c, const LayerKind& kind, const Layout& l, const Rates& r,
                   const Workload& w, double tokens) {
  const double tp = static_cast<double>(l.tp);
  const double etp = static_cast<double>(l.etp);
  const bool moe = kind.moe && c.experts > 0;
  // The busiest expert rank sets the pace: it computes and receives `imbalance` times the mean.
  const double imbalance = moe && l.ep > 1 ? r.imbalance : 1.0;
  // FP8 (the workload's precision) or NVFP4 (--fp4-format): TE quantizes each GEMM's inputs.
  const bool fp8 = w.precision == Precision::fp8 || l.fp4 != Fp4Format::none;
  const KindInputs in{
      .c = c,
      .kind = kind,
      .l = l,
      .r = r,
      .w = w,
      .tokens = tokens,
      .tp = tp,
      .etp = etp,
      .sp_div = l.sp ? tp : 1.0,
      .h = static_cast<double>(c.hidden),
      .heads = kind.heads > 0 ? kind.heads : c.heads,
      .kv_heads = kind.kv_heads > 0 ? kind.kv_heads : c.kv_heads,
      .head_dim = kind.head_dim > 0 ? kind.head_dim : c.head_dim,
      .v_head_dim = kind.v_head_dim > 0 ? kind.v_head_dim : c.v_head_dim,
      .fp8 = fp8,
      .per_gemm = fp8 ? 2.0 : 1.0,
      .moe = moe,
      .imbalance = imbalance,
      .routed_tokens = moe ? tokens / tp * static_cast<double>(c.top_k) * etp * imbalance : 0.0,
      .moe_ffn = static_cast<double>(c.moe_ffn) / etp,
  };
  LayerForward f;
  dense_gemms(in, f);
  expert_gemms(in, f);
  f.core_attention = core_attention(in);
  elementwise(in, f);
  f.tp = tp_forward(in);
  f.ep = ep_forward(in);
  f.cp = cp_forward(in, f.core_attention.s);
  const double fwd_compute = f.compute();

  KindTime t;
  // Backward: dgrad + wgrad (2x), flash backward 2.5x, the same collectives once more.
  t.dense_gemm = 3 * f.dense;
  t.expert_gemm = 3 * f.expert.s;
  if (l.lora_rank > 0) {  // frozen base weights, trained adapters (cost_lora.hpp)
    const LoraLayer a = lora_layer(c, kind, l, lora_target_bits(l.lora_targets, c));
    t.dense_gemm = lora_gemm_seconds(f.dense, 2 * tokens * a.dense_params, r.gemm_flops);
    t.expert_gemm = lora_gemm_seconds(f.expert.s, 2 * in.routed_tokens * a.expert_params_one, r.gemm_flops);
  }
  t.attention = 3.5 * f.core_attention.s;
  t.elementwise = 3 * f.elementwise;
  t.tp = 2 * f.tp;
  const double sync = ep_sync(in);
  t.ep = ep_exposed(in, f.ep, fwd_compute) + sync;
  t.cp = 3 * f.cp;

  const Blocks blocks = forward_blocks(in, f);
  const double launches_fwd = host_launches(in, blocks);
  double launches_recompute = 0;
  if (l.recompute == RecomputeGranularity::full) {
    t.recompute = fwd_compute;
    t.tp += f.tp;
    t.ep += f.ep + sync;
    t.cp += f.cp;
    launches_recompute = launches_fwd;
  } else if (l.recompute == RecomputeGranularity::selective) {
    const Recompute redo = selective_recompute(in, f, blocks);
    if (redo.moe_block) t.ep += f.ep + sync;
    t.recompute = redo.s;
    launches_recompute = redo.launches;
  }
  t.host = host_time(in, launches_fwd, launches_recompute, t.total());
  t.act_offload = activation_offload(in, fwd_compute);
  return t;
}

constexpr size_t kMaxKinds = 16;

// --- DualPipe ------------------------------------------------------------------------------------
// DeepSeek-V3 technical report (arXiv 2412.19437), section 3.2.1 and Table 2, and
// deepseek-ai/DualPipe (README, dualpipe.py): pipeline rank r runs the model's stages r and
// pp - 1 - r, half the microbatches entering at each end, each forward chunk overlapped with a
// backward chunk of the other direction (F&B), the weight-gradient GEMMs (W) deferred into the
// bubbles. Bubble (PP/2 - 1)(F&B + B - 3W) against 1F1B's (PP - 1)(F + B).

using Parts = std::array<double, kTimeParts>;

struct DualPipeStep {
  Parts parts{};      ///< the step's parts on the slowest rank (pipeline_bubble included)
  Parts per_chunk{};  ///< one microbatch through one of that rank's chunks (the mean of its two)
  double dense_params = 0;   ///< the most dense parameters one rank holds (both its stages)
  double expert_params = 0;  ///< the most expert parameters one rank holds
};

DualPipeStep dualpipe_step(const std::vector<Parts>& stage_parts,
                           const std::vector<double>& stage_dense,
                           const std::vector<double>& stage_expert, double microbatches) {
  DualPipeStep out;
  const size_t pp = stage_parts.size();
  double slowest = -1;
  Parts pair_parts{};
  for (size_t r = 0; r < pp / 2; ++r) {
    // Ranks r and pp - 1 - r hold the same two stages.
    Parts pair{};
    double pair_time = 0;
    for (size_t i = 0; i < kTimeParts; ++i) {
      pair[i] = stage_parts[r][i] + stage_parts[pp - 1 - r][i];
      pair_time += pair[i];
    }
    if (pair_time > slowest) {
      slowest = pair_time;
      pair_parts = pair;
    }
    out.dense_params = std::max(out.dense_params, stage_dense[r] + stage_dense[pp - 1 - r]);
    out.expert_params = std::max(out.expert_params, stage_expert[r] + stage_expert[pp - 1 - r]);
  }
  // Steady state: m / 2 microbatches through each of the two chunks.
  for (size_t i = 0; i < kTimeParts; ++i) {
    out.parts[i] = pair_parts[i] * microbatches / 2;
    out.per_chunk[i] = pair_parts[i] / 2;
  }
  // One chunk's F, B (full backward, B = chunk - F) and W (the weight-gradient GEMMs: one of a
  // GEMM's three passes); F&B, a forward and a backward run together with each one's
  // communication under the other's compute, takes F + B of compute (the all-to-all it hides is
  // already off the EP part).
  double chunk = 0;
  double forward = 0;
  for (size_t i = 0; i < kTimeParts; ++i) {
    chunk += out.per_chunk[i];
    forward += forward_share(static_cast<TimePart>(i)) * out.per_chunk[i];
  }
  const double backward = chunk - forward;
  const double weight = (out.per_chunk[static_cast<size_t>(TimePart::dense_gemm)] +
                         out.per_chunk[static_cast<size_t>(TimePart::expert_gemm)]) /
                        3.0;
  const double f_and_b = forward + backward;
  out.parts[static_cast<size_t>(TimePart::pipeline_bubble)] =
      std::max(0.0, (static_cast<double>(pp) / 2.0 - 1.0) * (f_and_b + backward - 3.0 * weight));
  return out;
}
// -------------------------------------------------------------------------------------------------

}  // namespace

TimeEstimate estimate_time(const ModelCosts& c, const Layout& l, const std::vector<int64_t>& stages,
                           int64_t microbatches, const Cluster& cluster, const Workload& w,
                           const Calibration& cal) {
  TimeEstimate out;
  Rates r;
  require_runs_precision(l, cluster.gpu);
  const bool fp4_gemm = l.fp4 != Fp4Format::none;
  const bool fp8_gemm = (fp4_gemm || w.precision == Precision::fp8) && cluster.gpu.fp8_dense_tflops > 0;
  const double peak = (fp8_gemm ? cluster.gpu.fp8_dense_tflops : cluster.gpu.bf16_dense_tflops) * 1e12;
  r.gemm_flops = peak * gemm_mamf_fraction(cluster.gpu.name, fp8_gemm) * cal.gemm_efficiency;
  // The output layer stays BF16 under NVFP4 (Megatron-LM quantizes the decoder's TE linears);
  // the decoder's GEMMs run at the FP4 peak times the GPU's FP8 MAMF fraction: no measured NVFP4
  // MAMF of a data-centre GPU is published, and the FP8 fraction is that of the same tensor cores
  // and block-scaled pipeline.
  double head_flops = r.gemm_flops;
  if (fp4_gemm) {
    head_flops = cluster.gpu.bf16_dense_tflops * 1e12 * gemm_mamf_fraction(cluster.gpu.name, false) * cal.gemm_efficiency;
    r.gemm_flops = cluster.gpu.fp4_dense_tflops * 1e12 * gemm_mamf_fraction(cluster.gpu.name, true) * cal.gemm_efficiency;
  }
  const KernelFacts& kernels = kernel_facts();
  const double attention_kernel =
      w.stack == Stack::torchtitan || w.flash_attention_2 ? kernels.attention_fa2 : kernels.attention_fa3;
  r.attention_flops = cluster.gpu.bf16_dense_tflops * 1e12 * attention_kernel * cal.attention_efficiency;
  // fp8_dot_product_attention under an FP8 or FP4 recipe: Transformer Engine's FP8 fused
  // attention, at the FP8 peak times FlashAttention-3's published FP8 fraction.
  if (l.fp8_dpa && fp8_gemm && w.stack != Stack::torchtitan && !w.flash_attention_2) {
    r.attention_flops = cluster.gpu.fp8_dense_tflops * 1e12 * kernels.attention_fa3_fp8 * cal.attention_efficiency;
  }
  r.hbm = cluster.gpu.hbm_tb_per_s * 1e12 * cal.hbm_efficiency;
  r.kernel = cal.kernel_overhead_s;
  r.nvlink = cluster.gpu.intra_node_gb_per_s * 1e9;
  r.node_net = cluster.domain_network_bytes_per_s();  // per NVLink domain
  const double domain = static_cast<double>(cluster.nvlink_domain());  // groups within it stay on NVLink
  r.domain = domain;
  r.nvl = &nvlink_facts();
  r.net = &fabric_for(cluster.instance.fabric);
  r.moe_sync =
      l.dispatcher == MoeDispatcher::flex ? cal.moe_layer_sync_flex_s : cal.moe_layer_sync_s;
  // Full-iteration graphs run MoE without the host sync (Megatron-LM's sync-free dropless path);
  // partial graphs leave a share of it.
  // So does a pre-sized expert-rank budget (--moe-expert-rank-capacity-factor: "Sync-free ...
  // avoiding a per-step device query / realloc loop for buffer sizing", Megatron-LM
  // docs/user-guide/features/paged_stash.md).
  if (l.cuda_graph == CudaGraphImpl::full_iteration || l.rank_capacity > 0) {
    r.moe_sync = 0;
  } else if (l.cuda_graph != CudaGraphImpl::none) {
    r.moe_sync *= cal.cuda_graph_sync_fraction;
  }
  // The stack's host cost per operation (stacks.yaml: the fitted figure unless the release has its own).
  const StackGeneration& stack = workload_stack(w);
  r.host_launch = cal.host_launch_s * stack.host_launch_scale;
  r.router_fusion = stack.has("router_fusion");
  r.a2a_hidden = cal.a2a_overlap_hidden_fraction;
  // Routing imbalance, as the memory model takes it: 1 with --moe-router-force-load-balancing;
  // a capacity factor caps it (padding to capacity fixes it there); else the documented default.
  r.imbalance = cal.moe_memory_imbalance;
  if (l.force_balance) {
    r.imbalance = 1.0;
  } else if (l.capacity > 0) {
    r.imbalance = l.pad_capacity ? l.capacity : std::min(l.capacity, r.imbalance);
  }
  // An expert rank's pre-sized budget drops what routing sends beyond it (paged_stash.md).
  if (l.rank_capacity > 0) r.imbalance = std::min(r.imbalance, l.rank_capacity);
  // Activation offload: NVLink-C2C where the GPU has it (collectives.yaml host_links), else PCIe.
  r.host_link = host_link_bytes_per_s(cluster.gpu.name);
  if (r.host_link <= 0) r.host_link = cal.host_link_gb_per_s * 1e9;

  const double tp = static_cast<double>(l.tp);
  const double sp_div = l.sp ? tp : 1.0;
  const double h = static_cast<double>(c.hidden);
  const double tokens = static_cast<double>(l.rows_per_mb * c.row_tokens) / static_cast<double>(l.cp);
  const double m = static_cast<double>(microbatches);
  const double vpp = static_cast<double>(l.vpp);

  std::array<KindTime, kMaxKinds> kinds{};
  for (size_t k = 0; k < c.kinds.size() && k < kMaxKinds; ++k) kinds[k] = kind_time(c, c.kinds[k], l, r, w, tokens);
  const KindTime mtp = c.num_mtp_layers > 0 ? kind_time(c, c.mtp, l, r, w, tokens) : KindTime{};

  // Pipeline point-to-point: the stage boundary leaves the node when a stage fills one.
  double p2p = 0;
  if (l.pp > 1) {
    const double bytes = kBf16 * tokens * h / sp_div;
    const double stage_gpus = static_cast<double>(l.tp * l.cp * l.dp);
    p2p = 2 * send_time(r, bytes, stage_gpus >= domain) * vpp;
  }
  // Output head and loss on the last stage (and once more per MTP layer).
  Rates head_rates = r;
  head_rates.gemm_flops = head_flops;
  const double head_gemm = gemm_passes(l) * gemm_time(head_rates, tokens, h, static_cast<double>(c.vocab) / tp);
  const double loss = 4 * kFp32 * tokens * static_cast<double>(c.vocab) / tp / r.hbm;

  std::array<double, kTimeParts> critical{};
  double critical_time = -1;
  double sum_stages = 0;
  int64_t begin = 0;
  const double expert_div = static_cast<double>(l.ep * l.etp);
  double worst_dense = 0;
  double worst_expert = 0;
  std::vector<Parts> stage_parts;
  std::vector<double> stage_dense;
  std::vector<double> stage_expert;
  const LoraKinds lora = lora_kinds(c, l);  // LoRA: only the adapters are reduced and updated
  for (int64_t s = 0; s < l.pp; ++s) {
    const int64_t n = stages[static_cast<size_t>(s)];
    const int64_t end = begin + n;
    std::array<double, kTimeParts> p{};
    double dense_params = 0;
    double expert_params = 0;
    double fp8_gemms = 0;  // Transformer Engine GEMMs under FP8 delayed scaling (cost_fp8_amax_history.hpp)
    auto add_kind = [&p](const KindTime& t, double count) {
      p[static_cast<size_t>(TimePart::dense_gemm)] += count * t.dense_gemm;
      p[static_cast<size_t>(TimePart::expert_gemm)] += count * t.expert_gemm;
      p[static_cast<size_t>(TimePart::attention)] += count * t.attention;
      p[static_cast<size_t>(TimePart::elementwise)] += count * t.elementwise;
      p[static_cast<size_t>(TimePart::recompute)] += count * t.recompute;
      p[static_cast<size_t>(TimePart::tp_comm)] += count * t.tp;
      p[static_cast<size_t>(TimePart::ep_comm)] += count * t.ep;
      p[static_cast<size_t>(TimePart::cp_comm)] += count * t.cp;
      p[static_cast<size_t>(TimePart::host_launches)] += count * t.host;
      p[static_cast<size_t>(TimePart::activation_offload)] += count * t.act_offload;
    };
    for (size_t k = 0; k < c.kinds.size(); ++k) {
      const double count = c.count(k, begin, end);
      if (count == 0) continue;
      add_kind(kinds[k], count);
      dense_params += count * (c.kinds[k].tp_params / tp + c.kinds[k].replicated_params);
      expert_params += count * c.kinds[k].expert_params / expert_div;
      fp8_gemms += count * fp8_layer_gemms(c.kinds[k], c, l);
    }
    if (s == 0) {
      dense_params += c.embedding_params / tp + c.vision_params / tp;
      // A VL workload's vision tower (cost_vision) on the first stage: its forward and backward
      // (3 x forward) FLOPs for the microbatch's images at the GEMM rate, split by TP and CP.
      p[static_cast<size_t>(TimePart::dense_gemm)] += 3.0 * static_cast<double>(l.rows_per_mb) * c.vision_flops_per_row /
                                                       (tp * static_cast<double>(l.cp)) / r.gemm_flops;
    }
    if (s == l.pp - 1) {
      const double mtp_n = static_cast<double>(c.num_mtp_layers);
      add_kind(mtp, mtp_n);
      p[static_cast<size_t>(TimePart::dense_gemm)] += (1 + mtp_n) * head_gemm;
      p[static_cast<size_t>(TimePart::elementwise)] += (1 + mtp_n) * loss;
      dense_params += c.head_params / tp + c.final_norm_params +
                      mtp_n * (c.mtp.tp_params / tp + c.mtp.replicated_params);
      expert_params += mtp_n * c.mtp.expert_params / expert_div;
    }
    p[static_cast<size_t>(TimePart::pp_p2p)] = p2p;
    if (l.lora_rank > 0) {
      const LoraParams a = lora_params(c, lora, begin, end, s == l.pp - 1 ? static_cast<double>(c.num_mtp_layers) : 0.0);
      dense_params = a.dense;
      expert_params = a.expert;
    }
    if (l.fsdp != Fsdp::torch) {
      // Per microbatch: the add pass of unfused gradient accumulation over the trainable weights but
      // the input embedding (cost_grad_accum_fusion.hpp), and the FP8 amax histories' roll.
      const double embedding = s == 0 && l.lora_rank == 0 ? c.embedding_params / tp : 0.0;
      p[static_cast<size_t>(TimePart::elementwise)] +=
          unfused_grad_accum_seconds(l.grad_accum_fusion, dense_params + expert_params - embedding, r.hbm) +
          amax_history_seconds(fp8_delayed(l), l.fp8_amax_history, fp8_gemms, r.hbm);
    }
    double stage_time = 0;
    for (double v : p) stage_time += v;
    sum_stages += stage_time;
    if (stage_time > critical_time) {
      critical_time = stage_time;
      critical = p;
    }
    worst_dense = std::max(worst_dense, dense_params);
    worst_expert = std::max(worst_expert, expert_params);
    stage_parts.push_back(p);
    stage_dense.push_back(dense_params);
    stage_expert.push_back(expert_params);
    begin = end;
  }
  if (l.schedule == PipelineSchedule::dualpipe && l.pp > 1 && l.pp % 2 == 0) {
    // DualPipe (dualpipe_step above): each rank holds two stages' parameters.
    const DualPipeStep dual = dualpipe_step(stage_parts, stage_dense, stage_expert, m);
    out.parts = dual.parts;
    critical = dual.per_chunk;
    worst_dense = dual.dense_params;
    worst_expert = dual.expert_params;
  } else {
    // 1F1B: m microbatches at the slowest stage's pace, plus filling and draining the others;
    // interleaving divides the fill and drain by vpp.
    for (size_t i = 0; i < kTimeParts; ++i) out.parts[i] = critical[i] * m;
    out.parts[static_cast<size_t>(TimePart::pipeline_bubble)] = (sum_stages - critical_time) / vpp;
  }

  // Data parallel: the gradient reduce-scatter in the reduce dtype (FP32, or BF16 with
  // --grad-reduce-in-bf16) and the parameter all-gather (BF16, FP8 with --fp8-param-gather), once
  // a step; FSDP gathers the parameters again for every microbatch's forward and backward
  // (resharding after forward) and reduce-scatters the gradients once, after the last microbatch.
  const double dense_group = static_cast<double>(l.dp * l.cp);
  const double edp = static_cast<double>(std::max<int64_t>(1, l.edp()));
  const double grad_bytes = l.grad_reduce == StateDtype::bf16 ? kBf16 : kFp32;
  const double param_bytes = l.fp8_param_gather ? 1.0 : kBf16;
  const bool fsdp = l.fsdp != Fsdp::none;
  // The members of a data-parallel group that share an NVLink domain: the group strides over
  // the TP (and, for the expert group, the ETP x EP) ranks laid out before it.
  const double dense_per_domain = std::max(1.0, domain / tp);
  const double expert_per_domain = std::max(1.0, domain / static_cast<double>(l.etp * l.ep));
  // Message sizes: Megatron-LM reduces and gathers in buckets (--ddp-bucket-size, default
  // max(40M, 1M x DP) parameters: megatron/core/distributed/distributed_data_parallel_config.py);
  // FSDP2 gathers and reduces one layer (one fully_shard unit) at a time.
  const double layers_here = std::max(1.0, static_cast<double>(c.num_layers) / static_cast<double>(l.pp));
  auto dp_time = [&](double params, double group, double per_domain, double bytes_per) {
    if (group <= 1 || params <= 0) return 0.0;
    const double bucket = fsdp ? params / layers_here : std::max(40e6, 1e6 * group);
    const double message = std::min(params, bucket) * bytes_per;
    return params * bytes_per / message *
           collective_time(r, Collective::reduce_scatter, message, group, std::min(per_domain, group));
  };
  double dp_comm = dp_time(worst_dense, dense_group, dense_per_domain, grad_bytes) +
                   dp_time(worst_expert, edp, expert_per_domain, grad_bytes);
  // Only a sharding that reshards the parameters after forward gathers them per microbatch
  // (FSDP2's default, Megatron-FSDP's optim_grads_params); ZeRO-1/2-style sharding (optim,
  // optim_grads) keeps the gathered parameters for the step, as the distributed optimizer does.
  const bool reshard = l.fsdp == Fsdp::torch ||
                       (l.fsdp == Fsdp::megatron && l.fsdp_sharding == FsdpSharding::optim_grads_params);
  const double gathers = reshard ? m * 2 : 1;
  dp_comm += gathers * (dp_time(worst_dense, dense_group, dense_per_domain, param_bytes) +
                        dp_time(worst_expert, edp, expert_per_domain, param_bytes));
  // Overlap: --overlap-grad-reduce hides the reduce-scatter behind the last microbatch's backward
  // and --overlap-param-gather the all-gather behind the first one's forward; FSDP prefetches
  // behind every microbatch. `dp_overlap_hidden_fraction` is the fraction of that compute window
  // the communication really hides (streams contend for SMs and HBM).
  double per_mb_compute = 0;
  for (TimePart part : {TimePart::dense_gemm, TimePart::expert_gemm, TimePart::attention, TimePart::elementwise,
                        TimePart::recompute}) {
    per_mb_compute += critical[static_cast<size_t>(part)];
  }
  double window = 0;
  if (fsdp) {
    window = per_mb_compute * m;
  } else {
    if (l.overlap_grad) window += per_mb_compute * 2.0 / 3.0;
    if (l.overlap_param) window += per_mb_compute / 3.0;
  }
  out.parts[static_cast<size_t>(TimePart::dp_comm)] = std::max(0.0, dp_comm - cal.dp_overlap_hidden_fraction * window);
  // TP communication overlap (--tp-comm-overlap, torchtitan's async TP) hides a fraction of it.
  if (l.tp_overlap) out.parts[static_cast<size_t>(TimePart::tp_comm)] *= 1.0 - cal.tp_overlap_hidden_fraction;

  // Optimizer step on this GPU's shard: HBM-bound Adam on the GPU, Adam on the host for the
  // offloaded fraction (all ranks of a node share its CPUs), with the device-host copies.
  out.optimizer_shard_params = worst_dense / dense_group + worst_expert / edp;
  // FP16's grad scaler unscales and checks the main gradients once a step (cost_fp16.hpp).
  out.parts[static_cast<size_t>(TimePart::elementwise)] +=
      fp16_unscale_seconds(l.fp16 || w.precision == Precision::fp16, out.optimizer_shard_params,
                           cluster.gpu.hbm_tb_per_s * 1e12 * cal.hbm_efficiency);
  apply_offload(out, l.offload, l.overlap, l.moments, cluster, cal);
  return out;
}

double forward_share(TimePart part) {
  switch (part) {
    case TimePart::dense_gemm:
    case TimePart::expert_gemm:
    case TimePart::elementwise:
    case TimePart::cp_comm:
    case TimePart::host_launches: return 1.0 / 3.0;
    case TimePart::attention: return 1.0 / 3.5;
    case TimePart::tp_comm:
    case TimePart::ep_comm:
    case TimePart::pp_p2p:
    case TimePart::activation_offload: return 0.5;
    default: return 0.0;
  }
}

}  // namespace ladle::plan
