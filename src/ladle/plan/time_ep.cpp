// time_ep.cpp: the EP all-to-all (see time_ep.hpp).
#include "ladle/plan/time_ep.hpp"

#include <algorithm>
#include <cmath>

namespace ladle::plan::timing {

// Inside an NVLink domain at the published NVLink all-to-all fraction (DeepEP's intranode
// figure), across domains at the fabric's published all-to-all fraction for that size and node
// count (nccl-tests on EFA, DeepEP's internode kernels on InfiniBand), plus the per-call latency.
double all_to_all_time(const Rates& r, double bytes_per_gpu, double group, MoeDispatcher dispatcher, double top_k) {
  if (group <= 1) return 0;
  // All-gather: every GPU receives the (group - 1) other GPUs' tokens once, not top-k copies of its
  // own; scaled so that the (group - 1) / group below leaves (group - 1) x tokens x hidden.
  if (dispatcher == MoeDispatcher::allgather) bytes_per_gpu *= group / std::max(1.0, top_k);
  const double nvl_fraction = hw::link_fraction(*r.nvl, hw::Collective::all_to_all, bytes_per_gpu, 1);
  const double gpn = r.domain;
  if (group <= gpn) return bytes_per_gpu * (group - 1) / group / (nvl_fraction * r.nvlink) + r.nvl->latency_s;
  const double nodes = std::ceil(group / gpn);
  double remote_fraction = 1.0 - gpn / group;
  if (dispatcher == MoeDispatcher::flex) {
    // DeepEP sends each token once per destination node and forwards inside the node over NVLink.
    const double distinct_remote = (nodes - 1) * (1.0 - std::pow(1.0 - 1.0 / nodes, top_k));
    remote_fraction = std::min(remote_fraction, distinct_remote / top_k);
  }
  const double net_fraction = hw::link_fraction(*r.net, hw::Collective::all_to_all, bytes_per_gpu, nodes);
  const double inter = gpn * bytes_per_gpu * remote_fraction / (net_fraction * r.node_net);
  const double intra = bytes_per_gpu * (gpn - 1) / group / (nvl_fraction * r.nvlink);
  return std::max(inter, intra) + r.net->latency_s;
}

double ep_forward(const KindInputs& in) {
  const Layout& l = in.l;
  const Rates& r = in.r;
  if (!in.moe || l.ep * l.etp <= 1) return 0;
  // Latent experts (kimi_k3) take the token after its down-projection to the latent width, which
  // runs once per token before the dispatch, so the all-to-all moves latent-wide rows (sglang
  // python/sglang/srt/models/kimi_k3.py @0000e9b4, the latent MoE block).
  const double h = in.c.moe_latent > 0 ? static_cast<double>(in.c.moe_latent) : in.h;
  const double sent = kBf16 * in.tokens / in.tp * static_cast<double>(in.c.top_k) * h;
  const double group = static_cast<double>(l.ep * l.etp);
  const bool deepep = l.dispatcher == MoeDispatcher::flex && l.flex_backend == FlexBackend::deepep;
  double fwd = 0;
  if ((deepep || l.dispatcher == MoeDispatcher::alltoall) && r.domain > 8 && group <= r.domain) {
    // DeepEP's normal kernels across a multi-node NVLink domain reach a published fraction of
    // the link (data/hw/kernels.yaml, deepep_mnnvl), dispatch and combine apart. NCCL's
    // all-to-all there moves no faster: the GB200 write-up switched from it to DeepEP at these
    // rates and "did not get the communication benefits" (its 2.2.1), so both take them.
    fwd = sent * (group - 1) / group *
              (1.0 / hw::kernel_facts().deepep_mnnvl_dispatch + 1.0 / hw::kernel_facts().deepep_mnnvl_combine) +
          2 * r.nvl->latency_s;
  } else {
    fwd = 2 * all_to_all_time(r, sent, group, l.dispatcher, static_cast<double>(in.c.top_k));
  }
  fwd *= in.imbalance;  // the busiest rank receives the most
  return fwd;
}

double ep_sync(const KindInputs& in) { return in.moe && in.l.ep * in.l.etp > 1 ? in.r.moe_sync : 0.0; }

double ep_exposed(const KindInputs& in, double ep_comm, double fwd_compute) {
  // The forward and backward all-to-alls and the host's waits on token counts. An overlapped
  // schedule runs one microbatch's all-to-alls beside another's compute, and that compute is
  // already queued while the host waits, so what it can hide is bounded by the smaller of the two
  // (all of the comm when it is the shorter, as much as the compute lasts when it is the longer),
  // and it reaches a share of that bound:
  // - DualPipe overlaps each chunk's all-to-all with the other direction's chunk (its F&B): "both
  //   all-to-all and PP communication can be fully hidden" (DeepSeek-V3 report, section 3.2.1). The
  //   all-to-all kernels hold their SMs meanwhile, so the compute they hide behind runs on the
  //   rest: the hidden time costs that share of itself.
  // - --overlap-moe-expert-parallel-comm (Megatron-LM's combined 1F1B) reaches the fitted share.
  double share = 0;
  if (in.l.schedule == PipelineSchedule::dualpipe) {
    share = 1 - in.r.dualpipe_comm_sms;
  } else if (in.l.a2a_overlap) {
    share = in.r.a2a_hidden;
  }
  return ep_comm - share * std::min(ep_comm, 3 * fwd_compute);
}

}  // namespace ladle::plan::timing
