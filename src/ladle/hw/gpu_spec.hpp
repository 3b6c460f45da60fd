#pragma once
// gpu_spec.hpp: GpuSpec, the facts about one accelerator that MFU, memory and time models use.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace ladle {

/// One accelerator of the catalog (data/hw/gpus.yaml). Every figure is per GPU, as published by
/// its vendor; `sources` names the documents, `checked` the date they were read.
struct GpuSpec {
  std::string name;                  ///< canonical short name: "h200", "h100-sxm", "b200", ...
  std::string display_name;          ///< as marketed: "NVIDIA H200 SXM"
  std::string vendor;                ///< "NVIDIA" or "AMD"
  std::vector<std::string> aliases;  ///< other spellings accepted by find_gpu (case-insensitive)
  /// Dense (no structured sparsity) BF16 tensor peak, TFLOP/s: the denominator of MFU.
  double bf16_dense_tflops = 0;
  /// Dense FP8 tensor peak, TFLOP/s; 0 when the GPU has no FP8 tensor cores (A100).
  double fp8_dense_tflops = 0;
  /// Dense FP4 tensor peak, TFLOP/s, of the NVFP4 format Transformer Engine's NVFP4 recipe runs;
  /// 0 when the GPU has no FP4 tensor cores (gpus.yaml leaves it out).
  double fp4_dense_tflops = 0;
  double hbm_gb = 0;        ///< HBM capacity in decimal GB as marketed (H200: 141)
  double hbm_tb_per_s = 0;  ///< HBM bandwidth, decimal TB/s
  /// Intra-node GPU-to-GPU link (NVLink, Infinity Fabric), GB/s per GPU in ONE direction
  /// (NVIDIA's "900 GB/s" NVLink 4 figure is bidirectional: 450 here).
  double intra_node_gb_per_s = 0;
  std::string intra_node_link;  ///< "NVLink 4", "NVLink 5", "Infinity Fabric", ...
  int gpus_per_node = 0;        ///< GPUs in one server (GB200: 4 per compute tray)
  int nvlink_domain_gpus = 0;   ///< GPUs reachable over the intra-node link (GB200 NVL72: 72)
  double tdp_w = 0;             ///< board power, W (0 when not published)
  /// The host CPU that issues this GPU's kernels in its catalog system: "Grace (Arm Neoverse V2)"
  /// on GB200 / GB300, an x86 part on HGX boards; empty when not published.
  std::string host_cpu;
  /// Host time per operation on that CPU over an x86 DGX H100's (Xeon Platinum 8480C), as
  /// published (host_op_source); 1 where no figure is published.
  double host_op_ratio = 1;
  std::string host_op_source;
  /// Device-reported maximum SM (or peak engine) clock, MHz; 0 when not disclosed. The clock a
  /// GPU sustains under its power cap is inside its measured MAMF (data/hw/kernels.yaml).
  double max_clock_mhz = 0;
  /// Streaming multiprocessors (AMD: compute units) the GPU exposes, as published. Kernels that
  /// take SMs for themselves (DeepEP's communication channels) leave the compute the rest.
  int sm_count = 0;
  /// Block-scaled (microscaling) tensor-core formats, e.g. "mxfp8" (Blackwell); empty on GPUs
  /// without them (Hopper, Ampere), where Megatron-LM's --fp8-recipe mxfp8 does not run.
  std::vector<std::string> block_scaled_formats;
  std::vector<std::string> sources;  ///< where each figure comes from
  std::string checked;               ///< date the sources were read, YYYY-MM-DD

  /// HBM capacity in GiB (2^30 bytes), the unit memory models compare against.
  double hbm_gib() const { return hbm_gb * 1e9 / (1024.0 * 1024.0 * 1024.0); }

  /// Whether the tensor cores run `format` ("mxfp8", "nvfp4", "mxfp4"): listed among the
  /// block-scaled formats, and for an FP4 one with an FP4 peak to run it at.
  bool runs_block_scaled(std::string_view format) const {
    const bool listed = std::find(block_scaled_formats.begin(), block_scaled_formats.end(), format) !=
                        block_scaled_formats.end();
    return listed && (!format.ends_with("fp4") || fp4_dense_tflops > 0);
  }

  bool operator==(const GpuSpec&) const = default;
};

}  // namespace ladle
