#pragma once
// cluster.hpp: the hardware a plan runs on: GPU, node (instance) and GPU count, and the workload.

#include <cstdint>
#include <string>
#include <string_view>

#include "ladle/hw/gpu_spec.hpp"
#include "ladle/hw/instance_spec.hpp"

namespace ladle::plan {

/// GPUs of one kind in nodes of one instance type.
struct Cluster {
  GpuSpec gpu;
  InstanceSpec instance;  ///< the node: network, host memory, price
  int64_t gpus = 0;

  int64_t gpus_per_node() const { return instance.gpu_count > 0 ? instance.gpu_count : gpu.gpus_per_node; }
  /// Node network, bytes per second (network_gbps / 8 * 1e9).
  double network_bytes_per_s() const { return instance.network_gbps / 8.0 * 1e9; }
};

/// Numeric precision of the GEMMs.
enum class Precision { bf16, fp8 };
/// "bf16" / "fp8".
const char* to_string(Precision precision);
/// Parses "bf16" / "fp8"; throws Error(usage).
Precision parse_precision(std::string_view name);

/// What is trained per step.
struct Workload {
  int64_t row_tokens = 8192;   ///< tokens per fixed-length row
  int64_t global_batch = 128;  ///< rows per optimizer step
  Precision precision = Precision::bf16;
};

/// The cluster for `gpu_name` (hw::require_gpu) and `gpus`, on the first catalog instance that
/// carries that GPU; `instance_name` (optional) picks another. Throws Error(usage) for an unknown
/// GPU or instance, or an instance with another GPU.
Cluster make_cluster(std::string_view gpu_name, int64_t gpus, std::string_view instance_name = {});

}  // namespace ladle::plan
