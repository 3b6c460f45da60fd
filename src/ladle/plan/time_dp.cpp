// time_dp.cpp: data-parallel communication (see time_dp.hpp).
#include "ladle/plan/time_dp.hpp"

#include <algorithm>

#include "ladle/plan/time_collective.hpp"

namespace ladle::plan::timing {

namespace {

double dense_group(const Layout& l) { return static_cast<double>(l.dp * l.cp); }
double expert_group(const Layout& l) { return static_cast<double>(std::max<int64_t>(1, l.edp())); }

}  // namespace

// Data parallel: the gradient reduce-scatter in the reduce dtype (FP32, or BF16 with
// --grad-reduce-in-bf16) and the parameter all-gather (BF16, FP8 with --fp8-param-gather), once
// a step; FSDP gathers the parameters again for every microbatch's forward and backward
// (resharding after forward) and reduce-scatters the gradients once, after the last microbatch.
double dp_exposed(const DpInputs& in) {
  const ModelCosts& c = in.c;
  const Layout& l = in.l;
  const Rates& r = in.r;
  const double m = in.microbatches;
  const double tp = static_cast<double>(l.tp);
  const double domain = r.domain;
  const double worst_dense = in.step.dense_params;
  const double worst_expert = in.step.expert_params;
  const double dense_group_size = dense_group(l);
  const double edp = expert_group(l);
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
           collective_time(r, hw::Collective::reduce_scatter, message, group, std::min(per_domain, group));
  };
  double dp_comm = dp_time(worst_dense, dense_group_size, dense_per_domain, grad_bytes) +
                   dp_time(worst_expert, edp, expert_per_domain, grad_bytes);
  // Only a sharding that reshards the parameters after forward gathers them per microbatch
  // (FSDP2's default, Megatron-FSDP's optim_grads_params); ZeRO-1/2-style sharding (optim,
  // optim_grads) keeps the gathered parameters for the step, as the distributed optimizer does.
  const bool reshard = l.fsdp == Fsdp::torch ||
                       (l.fsdp == Fsdp::megatron && l.fsdp_sharding == FsdpSharding::optim_grads_params);
  const double gathers = reshard ? m * 2 : 1;
  dp_comm += gathers * (dp_time(worst_dense, dense_group_size, dense_per_domain, param_bytes) +
                        dp_time(worst_expert, edp, expert_per_domain, param_bytes));
  // Overlap: --overlap-grad-reduce hides the reduce-scatter behind the last microbatch's backward
  // and --overlap-param-gather the all-gather behind the first one's forward; FSDP prefetches
  // behind every microbatch. `dp_overlap_hidden_fraction` is the fraction of that compute window
  // the communication really hides (streams contend for SMs and HBM).
  double per_mb_compute = 0;
  for (TimePart part : {TimePart::dense_gemm, TimePart::expert_gemm, TimePart::attention, TimePart::elementwise,
                        TimePart::recompute}) {
    per_mb_compute += in.step.per_microbatch[static_cast<size_t>(part)];
  }
  double window = 0;
  if (fsdp) {
    window = per_mb_compute * m;
  } else {
    if (l.overlap_grad) window += per_mb_compute * 2.0 / 3.0;
    if (l.overlap_param) window += per_mb_compute / 3.0;
  }
  return std::max(0.0, dp_comm - in.cal.dp_overlap_hidden_fraction * window);
}

double dp_shard_params(const Layout& l, const PipelineStep& step) {
  return step.dense_params / dense_group(l) + step.expert_params / expert_group(l);
}

}  // namespace ladle::plan::timing
