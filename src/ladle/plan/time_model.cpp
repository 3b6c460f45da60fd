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

namespace ladle::plan {

namespace {

constexpr double kBf16 = 2;
constexpr double kFp32 = 4;

struct Rates {
  double gemm_flops = 0;       // achieved GEMM FLOP/s
  double attention_flops = 0;  // achieved flash-attention FLOP/s
  double hbm = 0;              // achieved HBM bytes/s
  double kernel = 0;           // fixed seconds per kernel
  double nvlink = 0;           // NVLink bytes/s per GPU, one way (the link; collectives.yaml gives the fraction)
  double node_net = 0;         // scale-out bytes/s of one NVLink domain (its nodes' NICs together)
  double domain = 8;           // GPUs of one NVLink domain
  const FabricFacts* nvl = nullptr;  // collectives inside the domain
  const FabricFacts* net = nullptr;  // collectives across domains
  double moe_sync = 0;               // seconds per MoE layer pass with experts over several GPUs
  double host_launch = 0;            // host seconds per launched kernel
  double a2a_hidden = 0;             // share of the EP all-to-all a2a overlap hides
  double imbalance = 1;              // routed tokens on the busiest expert rank over the mean
  double host_link = 0;              // device-host bytes/s per GPU (activation offload)
  bool router_fusion = true;         // the stack has the fused router (stacks.yaml)
};

// A ring-like collective (all-gather, reduce-scatter; an all-reduce is both) of `bytes` (the
// whole buffer) over `ranks` ranks, `per_domain` of them in each NVLink domain: the part inside a
// domain on NVLink, the part across domains on the NICs the group's share of its domain owns,
// each at the link fraction the published sweep gives for that size and node count, plus the
// fabric's per-call latency.
double collective_time(const Rates& r, Collective c, double bytes, double ranks, double per_domain) {
  if (ranks <= 1 || bytes <= 0) return 0;
  per_domain = std::clamp(per_domain, 1.0, ranks);
  const double domains = ranks / per_domain;
  const double phases = c == Collective::all_reduce ? 2.0 : 1.0;
  double intra = 0;
  if (per_domain > 1) {
    const double fraction = link_fraction(*r.nvl, c, bytes, 1);
    intra = phases * bytes * (per_domain - 1) / per_domain / (fraction * r.nvlink) + r.nvl->latency_s;
  }
  if (domains <= 1) return intra;
  // The group's share of its domain's NICs: per_domain of the domain's GPUs.
  const double share = r.node_net * per_domain / r.domain;
  const double fraction = link_fraction(*r.net, c, bytes, domains);
  const double inter = phases * bytes * (domains - 1) / domains / (fraction * share) + r.net->latency_s;
  return std::max(intra, inter);
}

// Point-to-point transfer of `bytes` inside the domain or across it.
double send_time(const Rates& r, double bytes, bool across) {
  if (!across) return bytes / (link_fraction(*r.nvl, Collective::send_recv, bytes, 1) * r.nvlink) + r.nvl->latency_s;
  const double per_gpu = r.node_net / r.domain;
  return bytes / (link_fraction(*r.net, Collective::send_recv, bytes, 2) * per_gpu) + r.net->latency_s;
}

// Roofline-additive GEMM: compute at the achieved rate plus the HBM traffic of A, B and C. The
// sum (not the max) stands for the efficiency a GEMM loses as it gets smaller (tile quantisation,
// waves that do not fill the GPU): the traffic term grows relative to the compute as m, k or n
// shrink, as in published cuBLAS sweeps.
double gemm_time(const Rates& r, double m, double k, double n) {
  return 2 * m * k * n / r.gemm_flops + kBf16 * (m * k + k * n + m * n) / r.hbm + r.kernel;
}

// Bytes Transformer Engine's FP8 GEMMs move outside the GEMM for one m x k by k x n product,
// forward and backward together: the input cast to FP8 (read 2, write 1 byte per element) and its
// transposed copy for wgrad (1 + 1), the output gradient's cast (2 + 1) and transpose (1 + 1);
// weights are cast once per step (cached over microbatches), so they do not count here. The
// caller spreads them over the forward and backward passes (it multiplies elementwise work by 3).
double fp8_cast_bytes(double m, double k, double n) { return 5 * m * k + 5 * m * n; }

// Bytes per element of the GEMM inputs a recipe quantizes (the input and the output gradient),
// counted as fp8_cast_bytes counts them for delayed scaling: the cast (read 2, write the quantized
// copy) and the second, column-wise copy for the weight gradient (read and write the quantized
// copy), 5 for FP8. What separates the recipes in Transformer Engine's own account
// (docs/features/low_precision_training/*): current scaling (tensorwise) reads the tensor once
// more for its amax ("the tensor needs to be read twice"), and so does NVFP4 for its global
// amax; blockwise and MXFP8 write their block scales beside both copies (FP32 per 128 elements,
// E8M0 per 32); NVFP4 writes E2M1 values with an E4M3 scale per 16. No published measurement
// times the kernels apart, so beyond these bytes the recipes are priced alike.
double quantize_bytes_per_element(const Layout& l) {
  constexpr double kCastAndCopy = 5;  // read 2, write 1; read 1, write 1
  constexpr double kAmaxPass = kBf16;
  if (l.fp4 != Fp4Format::none) {
    constexpr double kNvfp4 = 0.5 + 1.0 / 16.0;
    return kAmaxPass + kBf16 + kNvfp4 + 2 * kNvfp4;
  }
  switch (l.fp8_recipe) {
    case Fp8Recipe::delayed: return kCastAndCopy;
    case Fp8Recipe::tensorwise: return kCastAndCopy + kAmaxPass;
    case Fp8Recipe::blockwise: return kCastAndCopy + 2 * kFp32 / 128.0;
    case Fp8Recipe::mxfp8: return kCastAndCopy + 2 * 1.0 / 32.0;
  }
  return kCastAndCopy;
}

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

// One all-to-all of `bytes_per_gpu` (what each GPU sends) over a group of `group` contiguous GPUs:
// inside an NVLink domain at the published NVLink all-to-all fraction (DeepEP's intranode
// figure), across domains at the fabric's published all-to-all fraction for that size and node
// count (nccl-tests on EFA, DeepEP's internode kernels on InfiniBand), plus the per-call latency.
double all_to_all_time(const Rates& r, double bytes_per_gpu, double group, MoeDispatcher dispatcher, double top_k) {
  if (group <= 1) return 0;
  // All-gather: every GPU receives the (group - 1) other GPUs' tokens once, not top-k copies of its
  // own; scaled so that the (group - 1) / group below leaves (group - 1) x tokens x hidden.
  if (dispatcher == MoeDispatcher::allgather) bytes_per_gpu *= group / std::max(1.0, top_k);
  const double nvl_fraction = link_fraction(*r.nvl, Collective::all_to_all, bytes_per_gpu, 1);
  const double gpn = r.domain;
  if (group <= gpn) return bytes_per_gpu * (group - 1) / group / (nvl_fraction * r.nvlink) + r.nvl->latency_s;
  const double nodes = std::ceil(group / gpn);
  double remote_fraction = 1.0 - gpn / group;
  if (dispatcher == MoeDispatcher::flex) {
    // DeepEP sends each token once per destination node and forwards inside the node over NVLink.
    const double distinct_remote = (nodes - 1) * (1.0 - std::pow(1.0 - 1.0 / nodes, top_k));
    remote_fraction = std::min(remote_fraction, distinct_remote / top_k);
  }
  const double net_fraction = link_fraction(*r.net, Collective::all_to_all, bytes_per_gpu, nodes);
  const double inter = gpn * bytes_per_gpu * remote_fraction / (net_fraction * r.node_net);
  const double intra = bytes_per_gpu * (gpn - 1) / group / (nvl_fraction * r.nvlink);
  return std::max(inter, intra) + r.net->latency_s;
}

// Bytes per token the memory-bound work of one layer moves in the forward pass (norms, residual
// adds, rotary, activation), in BF16. Fused (Megatron-LM's Transformer Engine and apex kernels,
// or torch.compile): each tensor read and written once, 16 hidden-size tensors. Eager PyTorch
// (torchtitan without torch.compile) runs torchtitan's model code op by op: RMSNorm in FP32
// (cast, square, mean, scale, cast back, weight: ~16 bytes per element where fused moves 4),
// rotary through FP32 complex numbers (~10 bytes per q/k element where fused moves 4), SwiGLU in
// three kernels (silu, multiply: 10 bytes per FFN element where fused moves 6).
double stream_bytes_per_token(const ModelCosts& c, const Workload& w) {
  const double h = static_cast<double>(c.hidden);
  // deepseek_v4's hyper-connection mixing (cost_compressed_attention), 0 for other models.
  const double fused = kBf16 * 16.0 * h + hyper_connection_stream_bytes(c);
  if (w.stack != Stack::torchtitan || w.compiled) return fused;
  const double qk = static_cast<double>(c.heads * c.head_dim + c.kv_heads * c.head_dim);
  const double ffn = static_cast<double>(c.ffn);
  return fused + 2 * (16 - 4) * h + (10 - 4) * qk + (10 - 6) * ffn;
}

// Which launches a layer's CUDA graphs capture (--cuda-graph-impl, --cuda-graph-scope): a captured
// part is replayed without the host. Full-iteration graphs capture everything; layer graphs with
// no scope capture whole layers; partial scopes capture attention (attn), the dense MLP (mlp),
// the router with the shared expert unless it overlaps (moe_router), the dispatcher's preprocess
// (moe_preprocess) and a token-dropping MoE block (moe). Megatron-LM's
// transformer_engine/graph-scope rules: megatron/core/transformer/cuda_graphs.py and the GB200
// write-up's 2.3 (NVIDIA/Megatron-LM docs/discussions/deepseek-v3-gb200-optimization).
struct Captured {
  bool attn = false, mlp = false, router = false, shared = false, preprocess = false,
       experts = false;
};

Captured captured(const Layout& l) {
  Captured g;
  if (l.cuda_graph == CudaGraphImpl::none) return g;
  if (l.cuda_graph == CudaGraphImpl::full_iteration || l.graph_modules == 0) {
    return Captured{true, true, true, true, true, true};
  }
  g.attn = has(l.graph_modules, GraphModule::attn);
  g.mlp = has(l.graph_modules, GraphModule::mlp);
  g.router = has(l.graph_modules, GraphModule::moe_router);
  g.shared = g.router && !l.shared_overlap;
  g.preprocess = g.router && has(l.graph_modules, GraphModule::moe_preprocess);
  g.experts = has(l.graph_modules, GraphModule::moe) && l.capacity > 0;
  return g;
}

// One module's forward: GPU seconds and kernels launched.
struct Work {
  double s = 0;
  double launches = 0;
  Work& operator+=(const Work& o) {
    s += o.s;
    launches += o.launches;
    return *this;
  }
};

KindTime kind_time(const ModelCosts& c, const LayerKind& kind, const Layout& l, const Rates& r,
                   const Workload& w, double tokens) {
  // FP8 (the workload's precision) or NVFP4 (--fp4-format): TE quantizes each GEMM's inputs.
  const bool fp8 = w.precision == Precision::fp8 || l.fp4 != Fp4Format::none;
  const double quantize_scale = quantize_bytes_per_element(l) / 5.0;  // over fp8_cast_bytes' 5
  KindTime t;
  const double tp = static_cast<double>(l.tp);
  const double etp = static_cast<double>(l.etp);
  const double sp_div = l.sp ? tp : 1.0;
  const double h = static_cast<double>(c.hidden);
  // per-layer attention geometry (step3p7, gemma4): this kind's heads and head sizes, the
  // model's where a kind does not say.
  const int64_t kind_heads = kind.heads > 0 ? kind.heads : c.heads;
  const int64_t kind_kv_heads = kind.kv_heads > 0 ? kind.kv_heads : c.kv_heads;
  const int64_t kind_head_dim = kind.head_dim > 0 ? kind.head_dim : c.head_dim;
  const int64_t kind_v_head_dim = kind.v_head_dim > 0 ? kind.v_head_dim : c.v_head_dim;
  const Captured graph = captured(l);
  // An FP8 GEMM launches its input's quantisation besides the GEMM.
  const double per_gemm = fp8 ? 2.0 : 1.0;
  // Dense matrices by module: every TP rank multiplies the whole (gathered) microbatch by its
  // slice.
  std::array<Work, 7> gemm_by{};
  // Compute lost to partial tiles (cost_gemm_shape): rows or an output width not whole tiles. A
  // grouped GEMM's rows are one expert's (per_expert below: the mean over the rank's experts, no
  // spread between experts is modelled), a dense GEMM's the microbatch's tokens.
  auto tile_loss = [&](double rows, double k, double n) {
    return 2 * rows * k * n / r.gemm_flops * (1 / gemm_shape_efficiency(rows, n) - 1);
  };
  double cast_bytes = 0;  // FP8 quantisation traffic (memory-bound, outside the GEMMs)
  for (const Gemm& g : kind.gemms) {
    double out = static_cast<double>(g.out);
    double in = static_cast<double>(g.in);
    if (g.split == GemmSplit::tp_out) out /= tp;
    if (g.split == GemmSplit::tp_in) in /= tp;
    Work& m = gemm_by[static_cast<size_t>(g.module)];
    m.s += gemm_time(r, tokens, in, out) + tile_loss(tokens, in, out);
    m.launches += per_gemm;
    cast_bytes += fp8_cast_bytes(tokens, in, out);
  }
  double gemm = 0;
  for (const Work& m : gemm_by) gemm += m.s;
  auto module = [&](GemmModule m) { return gemm_by[static_cast<size_t>(m)]; };
  const bool moe = kind.moe && c.experts > 0;
  // The busiest expert rank sets the pace: it computes and receives `imbalance` times the mean.
  const double imbalance = moe && l.ep > 1 ? r.imbalance : 1.0;
  Work expert;
  double routed_tokens = 0;
  if (moe) {
    const double local_experts = static_cast<double>(c.experts) / static_cast<double>(l.ep);
    routed_tokens =
        tokens / tp * static_cast<double>(c.top_k) * etp * imbalance;  // copies this GPU computes
    const double per_expert = routed_tokens / local_experts;
    for (const Gemm& g : kind.expert_gemms) {
      double out = static_cast<double>(g.out);
      double in = static_cast<double>(g.in);
      if (g.split == GemmSplit::expert_out) out /= etp;
      if (g.split == GemmSplit::expert_in) in /= etp;
      // One grouped GEMM over the local experts: the weights are read once per expert.
      expert.s += local_experts * (gemm_time(r, per_expert, in, out) + tile_loss(per_expert, in, out) - r.kernel) +
                  r.kernel;
      // Transformer Engine's grouped linear issues its per-expert cuBLAS GEMMs (and an FP8
      // recipe's quantisation of the split inputs) from one host call: one operation per matrix.
      expert.launches += per_gemm;
      cast_bytes += local_experts * fp8_cast_bytes(per_expert, in, out);
    }
  }
  Work core_attention;
  // A short sliding window wastes part of the key tiles its queries visit (cost_gemm_shape).
  const double window_eff =
      kind.window > 0 && kind.window < c.row_tokens ? windowed_attention_efficiency(static_cast<double>(kind.window)) : 1.0;
  core_attention.s =
      tokens * (kind.attention_flops / tp / window_eff + kind.indexer_flops) / r.attention_flops + 2 * r.kernel;
  core_attention.launches = 2;
  // Memory-bound work: norms, residual adds, rotary, activation, router, permutation; half of its
  // 20 kernels belong to the attention block, half to the MLP / MoE block.
  const double stream_bytes = tokens / sp_div * stream_bytes_per_token(c, w);
  const double moe_ffn = static_cast<double>(c.moe_ffn) / etp;
  const double routed_bytes = kBf16 * routed_tokens * (4 * h + 3 * moe_ffn);
  const double elementwise_s =
      (stream_bytes + routed_bytes + (fp8 ? quantize_scale * cast_bytes / 3.0 : 0.0)) / r.hbm + 20 * r.kernel;
  // The flex path's published 17 kernels come with the fused router; a stack without it
  // (data/hw/stacks.yaml, router_fusion) launches the kernels that fusion removed as well.
  const auto& kf = kernel_facts();
  const double unfused_router = r.router_fusion ? 0.0 : kf.router_launches - kf.router_launches_fused;
  const double router_launches =
      moe ? (l.dispatcher == MoeDispatcher::flex ? kf.router_launches_flex + unfused_router : kf.router_launches)
          : 0.0;
  // The all-to-all dispatcher permutes, exchanges counts and tokens and unpermutes on each side;
  // the flex dispatcher fuses the permute into its dispatch and combine kernels.
  const double dispatch_launches =
      moe && l.ep * l.etp > 1 ? (l.dispatcher == MoeDispatcher::flex ? 4.0 : 8.0) : 0.0;

  // TP collectives: with SP an all-gather before and a reduce-scatter after attention and after the
  // dense MLP or shared expert; without SP, all-reduces (twice the traffic).
  double tp_fwd = 0;
  if (l.tp > 1) {
    // Two around the mixer and two around a dense MLP or shared expert, where the layer has them.
    const double collectives = (kind.mixer != MixerKind::none ? 2 : 0) +
                               (kind.has_mlp && (!kind.moe || c.shared_ffn > 0) ? 2 : 0);
    const double one = collective_time(r, Collective::all_gather, kBf16 * tokens * h, tp, std::min(tp, r.domain));
    // An all-reduce costs a reduce-scatter plus an all-gather, so both cases move the same bytes.
    tp_fwd = collectives * one;
    if (kind.indexer && l.sp) {
      // Megatron-LM's DSA indexer is duplicated on every TP rank: under sequence parallel it
      // gathers the hidden state and the q latent over TP first (experimental_attention_variant/
      // dsa.py, DSAIndexer: parallel_mode="duplicated", gather_from_sequence_parallel_region of
      // x and qr); their gradients are reduce-scattered in the backward pass.
      const double q_in = c.q_lora_rank > 0 ? static_cast<double>(c.q_lora_rank) : h;
      for (double width : {h, q_in}) {
        tp_fwd += collective_time(r, Collective::all_gather, kBf16 * tokens * width, tp,
                                  std::min(tp, r.domain));
      }
    }
  }
  double ep_fwd = 0;
  if (moe && l.ep * l.etp > 1) {
    const double sent = kBf16 * tokens / tp * static_cast<double>(c.top_k) * h;
    const double group = static_cast<double>(l.ep * l.etp);
    const bool deepep =
        l.dispatcher == MoeDispatcher::flex && l.flex_backend == FlexBackend::deepep;
    if ((deepep || l.dispatcher == MoeDispatcher::alltoall) && r.domain > 8 && group <= r.domain) {
      // DeepEP's normal kernels across a multi-node NVLink domain reach a published fraction of
      // the link (data/hw/kernels.yaml, deepep_mnnvl), dispatch and combine apart. NCCL's
      // all-to-all there moves no faster: the GB200 write-up switched from it to DeepEP at these
      // rates and "did not get the communication benefits" (its 2.2.1), so both take them.
      ep_fwd = sent * (group - 1) / group *
                   (1.0 / kernel_facts().deepep_mnnvl_dispatch +
                    1.0 / kernel_facts().deepep_mnnvl_combine) +
               2 * r.nvl->latency_s;
    } else {
      ep_fwd = 2 * all_to_all_time(r, sent, group, l.dispatcher, static_cast<double>(c.top_k));
    }
    ep_fwd *= imbalance;  // the busiest rank receives the most
  }
  double cp_fwd = 0;
  if (l.cp > 1) {
    // The layer's own keys and values (per-layer attention geometry: step3p7, gemma4; values
    // v_head_dim wide, MiMo-V2-Flash's 128 beside 192).
    const double kv_per_token = c.mla ? static_cast<double>(c.heads * (c.qk_head_dim + c.v_head_dim))
                                      : static_cast<double>(kind_kv_heads * (kind_head_dim + kind_v_head_dim));
    const double bytes = kBf16 * tokens * static_cast<double>(l.cp) * kv_per_token / tp;
    const double cp = static_cast<double>(l.cp);
    const double per_domain = std::max(1.0, std::min(cp, r.domain / tp));
    cp_fwd = std::max(
        0.0, collective_time(r, Collective::all_gather, bytes, cp, per_domain) - core_attention.s);
  }
  const double fwd_compute = gemm + expert.s + core_attention.s + elementwise_s;
  // Backward: dgrad + wgrad (2x), flash backward 2.5x, the same collectives once more.
  t.dense_gemm = 3 * gemm;
  t.expert_gemm = 3 * expert.s;
  if (l.lora_rank > 0) {  // frozen base weights, trained adapters (cost_lora.hpp)
    const LoraLayer a = lora_layer(c, kind, l, lora_target_bits(l.lora_targets, c));
    t.dense_gemm = lora_gemm_seconds(gemm, 2 * tokens * a.dense_params, r.gemm_flops);
    t.expert_gemm = lora_gemm_seconds(expert.s, 2 * routed_tokens * a.expert_params_one, r.gemm_flops);
  }
  t.attention = 3.5 * core_attention.s;
  t.elementwise = 3 * elementwise_s;
  t.tp = 2 * tp_fwd;
  // Forward + backward all-to-alls; --overlap-moe-expert-parallel-comm runs one microbatch's
  // all-to-alls beside another's compute, hiding a share of them (never more than that compute).
  double ep_comm = 2 * ep_fwd;
  // DualPipe overlaps each chunk's all-to-all with the other direction's chunk the same way (its
  // F&B, DeepSeek-V3 report, section 3.2.1).
  if (l.a2a_overlap || l.schedule == PipelineSchedule::dualpipe)
    ep_comm -= std::min(r.a2a_hidden * ep_comm, 3 * fwd_compute);
  // The host sync on token counts happens in each forward pass.
  const double sync = moe && l.ep * l.etp > 1 ? r.moe_sync : 0.0;
  t.ep = ep_comm + sync;
  t.cp = 3 * cp_fwd;

  // Launches of the forward pass the host still issues (what no CUDA graph captures).
  auto host = [&](const Work& m, bool is_captured) { return is_captured ? 0.0 : m.launches; };
  Work attention_block = module(GemmModule::attention);
  attention_block += module(GemmModule::mla_up);
  attention_block += module(GemmModule::indexer);
  attention_block += core_attention;
  attention_block.launches += 10;
  Work mlp_block = module(GemmModule::dense_mlp);
  mlp_block.launches += 10;
  const Work shared = module(GemmModule::shared_expert);
  Work router = module(GemmModule::router);
  router.launches += router_launches;
  Work experts = expert;
  experts.launches += dispatch_launches / 2 + (moe ? 2.0 : 0.0);  // combine side, activation
  const Work preprocess{0, dispatch_launches / 2};
  double launches_fwd = host(attention_block, graph.attn) + host(shared, graph.shared) +
                        host(router, graph.router) + host(preprocess, graph.preprocess) +
                        host(experts, graph.experts) +
                        host(mlp_block, moe ? graph.experts : graph.mlp);
  double launches_recompute = 0;

  if (l.recompute == RecomputeGranularity::full) {
    t.recompute = fwd_compute;
    t.tp += tp_fwd;
    t.ep += ep_fwd + sync;
    t.cp += cp_fwd;
    launches_recompute = launches_fwd;
  } else if (l.recompute == RecomputeGranularity::selective) {
    if (w.stack == Stack::torchtitan) {
      // torchtitan's per-op selective checkpointing saves every compute op's output except every
      // second matmul (torchtitan/distributed/activation_checkpoint.py, `_save_list` and the
      // "every second mm" rule), and saves attention: half the matmuls and the memory-bound
      // work are recomputed.
      t.recompute = 0.5 * (gemm + expert.s) + elementwise_s;
    } else {
      // Megatron-LM recomputes the forward of each listed module in the backward pass
      // (megatron/core/transformer: transformer_layer.py, multi_latent_attention.py,
      // moe/moe_layer.py, moe/experts.py; --recompute-modules).
      const uint32_t mods = l.recompute_modules;
      Work redo;
      if (has(mods, RecomputeModule::core_attn)) redo += core_attention;
      if (has(mods, RecomputeModule::mla_up_proj) && c.mla) redo += module(GemmModule::mla_up);
      if (has(mods, RecomputeModule::layernorm)) {
        // Two norms: read and write one hidden-size tensor each.
        redo += Work{4 * kBf16 * tokens / sp_div * h / r.hbm + 2 * r.kernel, 2};
      }
      if (has(mods, RecomputeModule::mlp) && !moe) {
        redo += module(GemmModule::dense_mlp);
        const double ffn = static_cast<double>(c.ffn) / tp;
        redo += Work{3 * kBf16 * tokens * ffn / r.hbm + r.kernel, 1};  // SwiGLU
      }
      if (moe && has(mods, RecomputeModule::moe)) {
        // The whole MoE block: router, dispatch, experts, combine, shared expert.
        redo += router;
        redo += experts;
        redo += preprocess;
        redo += shared;
        redo += Work{routed_bytes / r.hbm, 0};
        t.ep += ep_fwd + sync;
      } else {
        if (moe && has(mods, RecomputeModule::moe_act)) {
          // The routed experts' activation: read fc1's output (2 x width), write width.
          redo += Work{3 * kBf16 * routed_tokens * moe_ffn / r.hbm + r.kernel, 1};
        }
        if (has(mods, RecomputeModule::shared_experts)) redo += shared;
      }
      t.recompute = redo.s;
      launches_recompute = redo.launches;
    }
  }
  // Host-bound layers: the backward pass launches about twice the forward's kernels (dgrad and
  // wgrad per GEMM). A layer whose launches take the host longer than the GPU needs for its work
  // runs at the host's pace (the GB200 write-up's "CPU overhead": gaps between kernels).
  const double host_s = r.host_launch * (3 * launches_fwd + launches_recompute);
  t.host = std::max(0.0, host_s - t.total());

  // Fine-grained activation offloading: the listed modules' saved inputs go to the host in the
  // forward pass and come back in the backward pass, behind that pass's compute.
  if (l.act_offload && l.offload_modules != 0 && r.host_link > 0) {
    const double tok = tokens / sp_div;
    const uint32_t om = l.offload_modules;
    double bytes = 0;
    if (has(om, OffloadModule::attn_norm)) bytes += kBf16 * tok * h;
    if (has(om, OffloadModule::qkv_linear)) bytes += kBf16 * tok * h;
    if (has(om, OffloadModule::core_attn))  // q, k and v (as wide as the queries) of this layer
      bytes += kBf16 * tokens * static_cast<double>(kind_heads * (2 * kind_head_dim + kind_v_head_dim)) / tp;
    if (has(om, OffloadModule::attn_proj))  // the attention output, value heads wide
      bytes += kBf16 * tokens * static_cast<double>(kind_heads * kind_v_head_dim) / tp;
    if (has(om, OffloadModule::mlp_norm)) bytes += kBf16 * tok * h;
    if (moe && has(om, OffloadModule::expert_fc1)) bytes += kBf16 * routed_tokens * h;
    if (moe && has(om, OffloadModule::moe_act)) bytes += kBf16 * routed_tokens * 2 * moe_ffn;
    bytes *= l.act_offload_fraction;
    const double copy = bytes / r.host_link;
    t.act_offload = std::max(0.0, copy - fwd_compute) + std::max(0.0, copy - 2 * fwd_compute);
  }
  // Layer-level CPU offloading (--cpu-offloading-num-layers N): Transformer Engine's handler copies
  // what each of the first N layers saves (the linear inputs and the attention's tensors, as the
  // fine-grained path counts them for every module) on its own stream, behind the next layer's
  // forward and the previous layer's backward; spread here over the model's layers.
  if (l.cpu_offload_layers > 0 && r.host_link > 0 && c.num_layers > 0) {
    const double tok = tokens / sp_div;
    const double attn = static_cast<double>(kind_heads * (kind_head_dim + kind_v_head_dim)) / 2 / tp;
    double bytes = kBf16 * (3 * tok * h + tokens * 4 * attn);
    if (moe) bytes += kBf16 * routed_tokens * (h + 2 * moe_ffn);
    const double copy = bytes / r.host_link;
    const double share =
        std::min(1.0, static_cast<double>(l.cpu_offload_layers) / static_cast<double>(c.num_layers));
    t.act_offload += share * (std::max(0.0, copy - fwd_compute) + std::max(0.0, copy - 2 * fwd_compute));
  }
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

void apply_offload(TimeEstimate& out, double offload, bool overlap, StateDtype moments, const Cluster& cluster,
                   const Calibration& cal) {
  const double shard = out.optimizer_shard_params;
  const double gpn = static_cast<double>(cluster.gpus_per_node());
  const double hbm = cluster.gpu.hbm_tb_per_s * 1e12 * cal.hbm_efficiency;
  const double adam_bytes = kFp32 + 2 * (kFp32 + (moments == StateDtype::bf16 ? 2 * kBf16 : 2 * kFp32)) + kBf16;
  out.parts[static_cast<size_t>(TimePart::optimizer_gpu)] = (1.0 - offload) * shard * adam_bytes / hbm;
  double cpu = 0;
  double copies = 0;
  if (offload > 0) {
    cpu = offload * shard * gpn / cal.cpu_adam_params_per_s;
    copies = offload * shard * (kFp32 + kFp32) / (cal.host_link_gb_per_s * 1e9);
  }
  out.parts[static_cast<size_t>(TimePart::optimizer_cpu)] = cpu;
  out.parts[static_cast<size_t>(TimePart::host_copies)] = overlap ? std::max(0.0, copies - cpu) : copies;
  out.step_s = 0;
  for (double v : out.parts) out.step_s += v;
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
