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
#include "ladle/hw/hw_facts.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/stack.hpp"
#include "ladle/plan/time_attention.hpp"
#include "ladle/plan/time_collective.hpp"
#include "ladle/plan/time_cp.hpp"
#include "ladle/plan/time_elementwise.hpp"
#include "ladle/plan/time_dp.hpp"
#include "ladle/plan/time_ep.hpp"
#include "ladle/plan/time_gemm.hpp"
#include "ladle/plan/time_host.hpp"
#include "ladle/plan/time_offload.hpp"
#include "ladle/plan/time_pipeline.hpp"
#include "ladle/plan/time_rates.hpp"
#include "ladle/plan/time_recompute.hpp"
#include "ladle/plan/time_terms.hpp"
#include "ladle/plan/time_tp.hpp"

namespace ladle::plan {

namespace {

using timing::activation_offload;
using timing::Blocks;
using timing::core_attention;
using timing::cp_forward;
using timing::dense_gemms;
using timing::DpInputs;
using timing::dp_exposed;
using timing::dp_shard_params;
using timing::elementwise;
using timing::ep_exposed;
using timing::ep_forward;
using timing::ep_sync;
using timing::expert_gemms;
using timing::forward_blocks;
using timing::head_gemm_time;
using timing::host_launches;
using timing::host_time;
using timing::KindInputs;
using timing::LayerForward;
using timing::loss_time;
using timing::Parts;
using timing::pipeline_step;
using timing::PipelineStep;
using timing::pp_p2p;
using timing::Rates;
using timing::Recompute;
using timing::selective_recompute;
using timing::StageTimes;
using timing::time_rates;
using timing::tp_backward;
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

// What every stage and layer kind of one step shares: the model, the layout, the rates, the
// workload and one microbatch's tokens on one GPU (after CP).
struct StepContext {
  const ModelCosts& c;
  const Layout& l;
  const Rates& r;
  const Workload& w;
  double tokens = 0;
};

// One layer kind under the layout, one microbatch: the terms (time_<term>.cpp) priced in the
// forward pass, then scaled for backward, recompute, host launches and offload.
KindTime kind_time(const StepContext& x, const LayerKind& kind) {
  const ModelCosts& c = x.c;
  const Layout& l = x.l;
  const Rates& r = x.r;
  const Workload& w = x.w;
  const double tokens = x.tokens;
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
  // Backward: dgrad + wgrad (2x), flash backward 2.5x, the collectives once more (time_tp.cpp:
  // the backward's gathers move the output gradients, quantized as the recipe gathers them).
  t.dense_gemm = 3 * f.dense;
  t.expert_gemm = 3 * f.expert.s;
  if (l.lora_rank > 0) {  // frozen base weights, trained adapters (cost_lora.hpp)
    const LoraLayer a = lora_layer(c, kind, l, lora_target_bits(l.lora_targets, c));
    t.dense_gemm = lora_gemm_seconds(f.dense, 2 * tokens * a.dense_params, r.gemm_flops);
    t.expert_gemm = lora_gemm_seconds(f.expert.s, 2 * in.routed_tokens * a.expert_params_one, r.gemm_flops);
  }
  t.attention = (1 + r.attention_backward) * f.core_attention.s;
  t.elementwise = 3 * f.elementwise;
  t.tp = f.tp + tp_backward(in);
  const double sync = ep_sync(in);
  t.ep = ep_exposed(in, 2 * f.ep + sync, fwd_compute);
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

// What the stages of one step share beyond the StepContext: every layer kind's time, the MTP
// layer's, the pipeline P2P, the output head and loss of one microbatch, and LoRA's kinds.
struct StageTerms {
  const std::array<KindTime, kMaxKinds>& kinds;
  const KindTime& mtp;
  double p2p = 0;
  double head_gemm = 0;
  double loss = 0;
  const LoraKinds& lora;  // LoRA: only the adapters are reduced and updated
};

// One pipeline stage (layers [begin, end) of stage s): its parts for one microbatch and the
// trained parameters it holds.
struct Stage {
  Parts parts{};
  double dense_params = 0;
  double expert_params = 0;
};

Stage stage_time(const StepContext& x, const StageTerms& terms, int64_t s, int64_t begin, int64_t end) {
  const ModelCosts& c = x.c;
  const Layout& l = x.l;
  const double tp = static_cast<double>(l.tp);
  const double expert_div = static_cast<double>(l.ep * l.etp);
  Stage out;
  Parts& p = out.parts;
  double& dense_params = out.dense_params;
  double& expert_params = out.expert_params;
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
    add_kind(terms.kinds[k], count);
    dense_params += count * (c.kinds[k].tp_params / tp + c.kinds[k].replicated_params);
    expert_params += count * c.kinds[k].expert_params / expert_div;
    fp8_gemms += count * fp8_layer_gemms(c.kinds[k], c, l);
  }
  if (s == 0) {
    dense_params += c.embedding_params / tp + c.vision_params / tp;
    // A VL workload's vision tower (cost_vision) on the first stage: its forward and backward
    // (3 x forward) FLOPs for the microbatch's images at the GEMM rate, split by TP and CP.
    p[static_cast<size_t>(TimePart::dense_gemm)] += 3.0 * static_cast<double>(l.rows_per_mb) * c.vision_flops_per_row /
                                                     (tp * static_cast<double>(l.cp)) / x.r.gemm_flops;
  }
  if (s == l.pp - 1) {
    // Output head and loss on the last stage (and once more per MTP layer).
    const double mtp_n = static_cast<double>(c.num_mtp_layers);
    add_kind(terms.mtp, mtp_n);
    p[static_cast<size_t>(TimePart::dense_gemm)] += (1 + mtp_n) * terms.head_gemm;
    p[static_cast<size_t>(TimePart::elementwise)] += (1 + mtp_n) * terms.loss;
    dense_params += c.head_params / tp + c.final_norm_params +
                    mtp_n * (c.mtp.tp_params / tp + c.mtp.replicated_params);
    expert_params += mtp_n * c.mtp.expert_params / expert_div;
  }
  p[static_cast<size_t>(TimePart::pp_p2p)] = terms.p2p;
  if (l.lora_rank > 0) {
    const LoraParams a =
        lora_params(c, terms.lora, begin, end, s == l.pp - 1 ? static_cast<double>(c.num_mtp_layers) : 0.0);
    dense_params = a.dense;
    expert_params = a.expert;
  }
  if (l.fsdp != Fsdp::torch) {
    // Per microbatch: the add pass of unfused gradient accumulation over the trainable weights but
    // the input embedding (cost_grad_accum_fusion.hpp), and the FP8 amax histories' roll.
    const double embedding = s == 0 && l.lora_rank == 0 ? c.embedding_params / tp : 0.0;
    p[static_cast<size_t>(TimePart::elementwise)] +=
        unfused_grad_accum_seconds(l.grad_accum_fusion, dense_params + expert_params - embedding, x.r.hbm) +
        amax_history_seconds(fp8_delayed(l), l.fp8_amax_history, fp8_gemms, x.r.hbm);
  }
  return out;
}

}  // namespace

TimeEstimate estimate_time(const ModelCosts& c, const Layout& l, const std::vector<int64_t>& stages,
                           int64_t microbatches, const Cluster& cluster, const Workload& w,
                           const Calibration& cal) {
  TimeEstimate out;
  require_runs_precision(l, cluster.gpu);
  const Rates r = time_rates(l, cluster, w, cal);
  out.attention_backward = r.attention_backward;
  const double tokens = static_cast<double>(l.rows_per_mb * c.row_tokens) / static_cast<double>(l.cp);
  const double m = static_cast<double>(microbatches);
  const StepContext x{.c = c, .l = l, .r = r, .w = w, .tokens = tokens};

  std::array<KindTime, kMaxKinds> kinds{};
  for (size_t k = 0; k < c.kinds.size() && k < kMaxKinds; ++k) kinds[k] = kind_time(x, c.kinds[k]);
  const KindTime mtp = c.num_mtp_layers > 0 ? kind_time(x, c.mtp) : KindTime{};
  const LoraKinds lora = lora_kinds(c, l);
  const StageTerms terms{.kinds = kinds,
                         .mtp = mtp,
                         .p2p = pp_p2p(r, l, tokens, static_cast<double>(c.hidden)),
                         .head_gemm = head_gemm_time(r, c, l, tokens),
                         .loss = loss_time(r, c, l, tokens),
                         .lora = lora};
  StageTimes times;
  times.attention_backward = r.attention_backward;
  int64_t begin = 0;
  for (int64_t s = 0; s < l.pp; ++s) {
    const int64_t end = begin + stages[static_cast<size_t>(s)];
    const Stage stage = stage_time(x, terms, s, begin, end);
    times.add(stage.parts, stage.dense_params, stage.expert_params);
    begin = end;
  }
  const PipelineStep step = pipeline_step(times, l, m);
  out.parts = step.parts;
  out.parts[static_cast<size_t>(TimePart::dp_comm)] =
      dp_exposed(DpInputs{.c = c, .l = l, .r = r, .cal = cal, .step = step, .microbatches = m});
  // TP communication overlap hides a fraction of it: Megatron-LM's --tp-comm-overlap and torchtitan's async
  // TP are two implementations, each with its own fitted share.
  if (l.tp_overlap) {
    const double hidden =
        w.stack == Stack::torchtitan ? cal.async_tp_hidden_fraction : cal.tp_overlap_hidden_fraction;
    out.parts[static_cast<size_t>(TimePart::tp_comm)] *= 1.0 - hidden;
  }

  // Optimizer step on this GPU's shard (time_offload.cpp).
  out.optimizer_shard_params = dp_shard_params(l, step);
  // FP16's grad scaler unscales and checks the main gradients once a step (cost_fp16.hpp).
  out.parts[static_cast<size_t>(TimePart::elementwise)] +=
      fp16_unscale_seconds(l.fp16 || w.precision == Precision::fp16, out.optimizer_shard_params,
                           cluster.gpu.hbm_tb_per_s * 1e12 * cal.hbm_efficiency);
  apply_offload(out, l.offload, l.overlap, l.moments, cluster, cal);
  return out;
}

double forward_share(TimePart part, double attention_backward) {
  switch (part) {
    case TimePart::dense_gemm:
    case TimePart::expert_gemm:
    case TimePart::elementwise:
    case TimePart::cp_comm:
    case TimePart::host_launches: return 1.0 / 3.0;
    case TimePart::attention: return 1.0 / (1.0 + attention_backward);  // flash forward : backward
    case TimePart::tp_comm:
    case TimePart::ep_comm:
    case TimePart::pp_p2p:
    case TimePart::activation_offload: return 0.5;
    default: return 0.0;
  }
}

}  // namespace ladle::plan
