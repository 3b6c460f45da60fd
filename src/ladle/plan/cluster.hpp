#pragma once
// cluster.hpp: the hardware a plan runs on: GPU, node (instance) and GPU count, and the workload.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ladle/hw/gpu_spec.hpp"
#include "ladle/hw/instance_spec.hpp"

namespace ladle::plan {

struct StackGeneration;  // stack.hpp

/// GPUs of one kind in nodes of one instance type.
struct Cluster {
  GpuSpec gpu;
  InstanceSpec instance;  ///< the node: network, host memory, price
  int64_t gpus = 0;

  int64_t gpus_per_node() const { return instance.gpu_count > 0 ? instance.gpu_count : gpu.gpus_per_node; }
  /// GPUs that reach each other over NVLink (8 on an HGX node, 72 on an NVL72 rack): the
  /// instance's domain, else the GPU's, never fewer than a node. TP, EP and CP groups no larger
  /// than this are priced on NVLink; larger ones cross the fabric.
  int64_t nvlink_domain() const {
    const int64_t domain =
        instance.nvlink_domain > 0 ? instance.nvlink_domain : gpu.nvlink_domain_gpus;
    return std::max(domain, gpus_per_node());
  }
  /// Node network, bytes per second (network_gbps / 8 * 1e9).
  double network_bytes_per_s() const { return instance.network_gbps / 8.0 * 1e9; }
  /// Scale-out bandwidth of one whole NVLink domain, bytes per second: its nodes' networks.
  double domain_network_bytes_per_s() const {
    return network_bytes_per_s() * static_cast<double>(nvlink_domain()) /
           static_cast<double>(gpus_per_node());
  }
};

/// Numeric precision of the GEMMs. fp16 (--fp16: FP16 with a dynamic loss scale) runs at BF16's
/// tensor-core rate; cost_fp16.hpp prices what its grad scaler adds.
enum class Precision { bf16, fp8, fp16 };
/// "bf16" / "fp8" / "fp16".
const char* to_string(Precision precision);
/// Parses "bf16" / "fp8" / "fp16"; throws Error(usage).
Precision parse_precision(std::string_view name);

/// The training stack that runs a layout, where the time model prices it differently.
enum class Stack {
  megatron,    ///< Megatron-LM / Megatron-Bridge with Transformer Engine (fused kernels, cuDNN attention)
  torchtitan,  ///< PyTorch FSDP2 (torchtitan): SDPA's FlashAttention-2, per-op selective checkpointing
};

/// What is trained per step.
struct Workload {
  int64_t row_tokens = 8192;   ///< tokens per fixed-length row
  int64_t global_batch = 128;  ///< rows per optimizer step
  Precision precision = Precision::bf16;
  Stack stack = Stack::megatron;
  bool compiled = false;  ///< torch.compile (torchtitan): its elementwise ops fused as Megatron's are
  /// Megatron-LM's --attention-backend flash: Transformer Engine's FlashAttention backend runs the
  /// flash-attn package (FlashAttention-2 unless FlashAttention-3 is installed), not cuDNN's
  /// fused attention that the default (auto) picks on Hopper.
  bool flash_attention_2 = false;
  /// An RL job's workload (slime, miles: layout/rl_workload.hpp's format_rl_workload), where its
  /// rows per step and row length came from; "" for other jobs.
  std::string rl;
  /// Image tokens per row of a VL model (--image-tokens), priced through its vision tower
  /// (plan/cost_vision); 0: text only.
  int64_t image_tokens = 0;
  /// The Megatron-Core release (plan/stack.hpp, data/hw/stacks.yaml); nullptr: the newest.
  const StackGeneration* stack_generation = nullptr;
  /// Host time of a Transformer Engine module call over PyTorch's own op, where the job's source
  /// states its Transformer Engine release (a measurement's source.transformer_engine); 0: the
  /// stack's (stacks.yaml).
  double te_module_host_ratio = 0;
};

/// The cluster for `gpu_name` (hw::require_gpu) and `gpus`, on the first catalog instance that
/// carries that GPU; `instance_name` (optional) picks another. Throws Error(usage) for an unknown
/// GPU or instance, or an instance with another GPU.
Cluster make_cluster(std::string_view gpu_name, int64_t gpus, std::string_view instance_name = {});

/// The cluster a `--cluster FILE` describes (hw::parse_cluster_file), with `gpus` GPUs; a
/// non-empty `gpu_name` (--gpu) must name the file's GPU. Throws Error(input) for a bad file,
/// Error(usage) for a --gpu that contradicts it.
Cluster make_cluster_from_file(const std::string& path, int64_t gpus,
                               std::string_view gpu_name = {});

/// Sets the price to `usd_per_gpu_hour` (--price): the node's price becomes that times its GPUs,
/// and the price source says so. Throws Error(usage) unless the price is positive and finite.
void override_price(Cluster& cluster, double usd_per_gpu_hour);

/// The hardware options of predict and plan: --gpu, --instance, --cluster FILE, --price.
struct ClusterOptions {
  std::string gpu;
  std::string instance;
  std::string file;             ///< --cluster: an on-prem cluster file
  std::optional<double> price;  ///< --price: USD per GPU-hour
};

/// The cluster `options` describe with `gpus` GPUs: the --cluster file, else make_cluster; then
/// --price. Throws Error(usage) for --cluster with --instance.
Cluster make_cluster(const ClusterOptions& options, int64_t gpus);

}  // namespace ladle::plan
