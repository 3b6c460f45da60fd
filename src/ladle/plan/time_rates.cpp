// time_rates.cpp: achieved rates (see time_rates.hpp).
#include "ladle/plan/time_rates.hpp"

#include <algorithm>

#include "ladle/hw/memory_facts.hpp"
#include "ladle/plan/stack.hpp"
#include "ladle/plan/time_attention.hpp"

namespace ladle::plan::timing {

Rates time_rates(const Layout& l, const Cluster& cluster, const Workload& w, const Calibration& cal) {
  Rates r;
  const bool fp4_gemm = l.fp4 != Fp4Format::none;
  const bool fp8_gemm = (fp4_gemm || w.precision == Precision::fp8) && cluster.gpu.fp8_dense_tflops > 0;
  const double peak = (fp8_gemm ? cluster.gpu.fp8_dense_tflops : cluster.gpu.bf16_dense_tflops) * 1e12;
  // MXFP8 and blockwise FP8 run on the block-scaled tensor cores at their measured rate
  // (kernels.yaml fp8_block), delayed and current scaling at the per-tensor FP8 MAMF.
  const bool block_scaled =
      fp8_gemm && !fp4_gemm &&
      (l.fp8_recipe == Fp8Recipe::mxfp8 || l.fp8_recipe == Fp8Recipe::blockwise);
  const double fraction = block_scaled ? hw::gemm_fp8_block_fraction(cluster.gpu.name)
                                       : gemm_mamf_fraction(cluster.gpu.name, fp8_gemm);
  r.gemm_flops = peak * fraction * cal.gemm_efficiency;
  // The output layer stays BF16 under FP4 (Megatron-LM quantizes the decoder's TE linears);
  // the decoder's GEMMs run at the FP4 peak times the GPU's measured fraction for the recipe
  // (kernels.yaml: NVFP4 about 1.4-1.8 times the FP8 rate, not the peaks' 2-3 times; MXFP4 on
  // CDNA 4 about 1.6 times).
  r.head_gemm_flops = r.gemm_flops;
  if (fp4_gemm) {
    r.head_gemm_flops =
        cluster.gpu.bf16_dense_tflops * 1e12 * gemm_mamf_fraction(cluster.gpu.name, false) * cal.gemm_efficiency;
    const double fp4_fraction = l.fp4_recipe == Fp4Recipe::mxfp4 ? hw::gemm_mxfp4_fraction(cluster.gpu.name)
                                                                 : hw::gemm_nvfp4_fraction(cluster.gpu.name);
    r.gemm_flops = cluster.gpu.fp4_dense_tflops * 1e12 * fp4_fraction * cal.gemm_efficiency;
  }
  const KernelFacts& kernels = kernel_facts();
  const bool fa2 = !runs_fused_attention(w);
  r.attention_flops =
      cluster.gpu.bf16_dense_tflops * 1e12 * (fa2 ? kernels.attention_fa2 : kernels.attention_fa3) * cal.attention_efficiency;
  // Transformer Engine's fused attention on a GPU with its own measured rate (kernels.yaml
  // attention_gpus: AMD's CK v3 kernels) runs at that rate's fraction of its peak over cuDNN's on
  // the H100, of which the fraction above is the calibrated share.
  if (!fa2) r.attention_flops *= hw::attention_gpu_ratio(cluster.gpu);
  r.attention_head_dims = &attention_head_dim_curve(w, cluster.gpu.name);
  r.gpu = cluster.gpu.name;
  // fp8_dot_product_attention under an FP8 or FP4 recipe: Transformer Engine's FP8 fused
  // attention, at the FP8 peak times FlashAttention-3's published FP8 fraction.
  const bool fp8_attention = l.fp8_dpa && fp8_gemm && !fa2;
  r.bf16_fused_attention = !fa2 && !fp8_attention;
  r.fused_attention = !fa2;
  if (fp8_attention) {
    r.attention_flops = cluster.gpu.fp8_dense_tflops * 1e12 * kernels.attention_fa3_fp8 * cal.attention_efficiency;
  }
  // Blackwell Ultra's SFU runs the softmax's exponentials at sfu_ratio times Blackwell's rate
  // (kernels.yaml softmax_exp). The forward is MMA time plus the exponential time the tensor cores
  // wait on; the published FP8 forward speedup gives that wait over the FP8 MMA time. BF16's MMA
  // takes twice as long, and the backward 2.5 times the forward's MMA with one exponential per
  // score again, so the saving is smaller there.
  const auto& fast = kernels.softmax_fast_gpus;
  if (std::find(fast.begin(), fast.end(), cluster.gpu.name) != fast.end()) {
    const double ratio = kernels.softmax_sfu_ratio;
    const double wait = kernels.softmax_exp_wait;  // exponential wait / FP8 MMA time
    const double mma = fp8_attention ? 1.0 : 2.0;
    const double forward = (mma + wait / ratio) / (mma + wait);
    const double backward = (r.attention_backward * mma + wait / ratio) / (r.attention_backward * mma + wait);
    r.attention_flops /= forward;
    r.attention_backward *= backward / forward;
  }
  r.hbm = cluster.gpu.hbm_tb_per_s * 1e12 * cal.hbm_efficiency;
  r.kernel = cal.kernel_overhead_s;
  r.nvlink = cluster.gpu.intra_node_gb_per_s * 1e9;
  r.node_net = cluster.domain_network_bytes_per_s();  // per NVLink domain
  r.domain = static_cast<double>(cluster.nvlink_domain());  // groups within it stay on NVLink
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
  // The stack's host cost per operation (stacks.yaml: the fitted figure unless the release has its
  // own), on this GPU's host (gpus.yaml host_op_ratio: Grace against the x86 reference).
  const StackGeneration& stack = workload_stack(w);
  r.host_launch = cal.host_launch_s * stack.host_launch_scale * cluster.gpu.host_op_ratio;
  // A GEMM issued through a Transformer Engine module costs the host its release's module ratio
  // (stacks.yaml transformer_engine_host); torchtitan calls PyTorch's own.
  if (w.stack != Stack::torchtitan) {
    r.te_host = w.te_module_host_ratio > 0 ? w.te_module_host_ratio : stack.te_module_host_ratio;
  }
  r.a2a_hidden = cal.a2a_overlap_hidden_fraction;
  // DualPipe's all-to-all runs on DeepEP's communication SMs (memory_facts.yaml deepep.num_sms: 20,
  // the 20 of the H800's 132 the DeepSeek-V3 report's section 3.2.2 dedicates to it); the compute it
  // overlaps runs on the rest.
  r.dualpipe_comm_sms = std::min(1.0, static_cast<double>(hw::memory_facts().deepep.num_sms) /
                                          static_cast<double>(std::max(1, cluster.gpu.sm_count)));
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
  r.host_link = device_host_bytes_per_s(cluster.gpu, cal);
  return r;
}

}  // namespace ladle::plan::timing
