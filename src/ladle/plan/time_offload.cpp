// time_offload.cpp: activation and optimizer offload (see time_offload.hpp).
#include "ladle/plan/time_offload.hpp"

#include <algorithm>

namespace ladle::plan::timing {

double activation_offload(const KindInputs& in, double fwd_compute) {
  const ModelCosts& c = in.c;
  const Layout& l = in.l;
  const double tokens = in.tokens;
  const double h = in.h;
  const double tp = in.tp;
  const double host_link = in.r.host_link;
  double exposed = 0;
  // Fine-grained activation offloading: the listed modules' saved inputs go to the host in the
  // forward pass and come back in the backward pass, behind that pass's compute.
  if (l.act_offload && l.offload_modules != 0 && host_link > 0) {
    const double tok = tokens / in.sp_div;
    const uint32_t om = l.offload_modules;
    double bytes = 0;
    if (has(om, OffloadModule::attn_norm)) bytes += kBf16 * tok * h;
    if (has(om, OffloadModule::qkv_linear)) bytes += kBf16 * tok * h;
    if (has(om, OffloadModule::core_attn))  // q, k and v (as wide as the queries) of this layer
      bytes += kBf16 * tokens * static_cast<double>(in.heads * (2 * in.head_dim + in.v_head_dim)) / tp;
    if (has(om, OffloadModule::attn_proj))  // the attention output, value heads wide
      bytes += kBf16 * tokens * static_cast<double>(in.heads * in.v_head_dim) / tp;
    if (has(om, OffloadModule::mlp_norm)) bytes += kBf16 * tok * h;
    if (in.moe && has(om, OffloadModule::expert_fc1)) bytes += kBf16 * in.routed_tokens * h;
    if (in.moe && has(om, OffloadModule::moe_act)) bytes += kBf16 * in.routed_tokens * 2 * in.moe_ffn;
    bytes *= l.act_offload_fraction;
    const double copy = bytes / host_link;
    exposed = std::max(0.0, copy - fwd_compute) + std::max(0.0, copy - 2 * fwd_compute);
  }
  // Layer-level CPU offloading (--cpu-offloading-num-layers N): Transformer Engine's handler copies
  // what each of the first N layers saves (the linear inputs and the attention's tensors, as the
  // fine-grained path counts them for every module) on its own stream, behind the next layer's
  // forward and the previous layer's backward; spread here over the model's layers.
  if (l.cpu_offload_layers > 0 && host_link > 0 && c.num_layers > 0) {
    const double tok = tokens / in.sp_div;
    const double attn = static_cast<double>(in.heads * (in.head_dim + in.v_head_dim)) / 2 / tp;
    double bytes = kBf16 * (3 * tok * h + tokens * 4 * attn);
    if (in.moe) bytes += kBf16 * in.routed_tokens * (h + 2 * in.moe_ffn);
    const double copy = bytes / host_link;
    const double share =
        std::min(1.0, static_cast<double>(l.cpu_offload_layers) / static_cast<double>(c.num_layers));
    exposed += share * (std::max(0.0, copy - fwd_compute) + std::max(0.0, copy - 2 * fwd_compute));
  }
  return exposed;
}

}  // namespace ladle::plan::timing

namespace ladle::plan {

using timing::kBf16;
using timing::kFp32;

double device_host_bytes_per_s(const GpuSpec& gpu, const Calibration& cal) {
  const double link = hw::host_link_bytes_per_s(gpu.name);
  return link > 0 ? link : cal.host_link_gb_per_s * 1e9;
}

// Optimizer step on this GPU's shard: HBM-bound Adam on the GPU, Adam on the host for the
// offloaded fraction (all ranks of a node share its CPUs), with the device-host copies over the
// GPU's own link (NVLink-C2C on a Grace system, PCIe elsewhere).
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
    copies = offload * shard * (kFp32 + kFp32) / device_host_bytes_per_s(cluster.gpu, cal);
  }
  out.parts[static_cast<size_t>(TimePart::optimizer_cpu)] = cpu;
  out.parts[static_cast<size_t>(TimePart::host_copies)] = overlap ? std::max(0.0, copies - cpu) : copies;
  out.parts[static_cast<size_t>(TimePart::step_host)] = cal.step_host_s;
  out.step_s = 0;
  for (double v : out.parts) out.step_s += v;
}

}  // namespace ladle::plan
