#pragma once
// catalog.hpp: the embedded GPU and instance catalogs (data/hw/gpus.yaml, data/hw/instances.yaml).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/hw/gpu_spec.hpp"
#include "ladle/hw/instance_spec.hpp"

namespace ladle::hw {

/// Every GPU of the embedded catalog, in file order. Parsed once; throws Error(internal) only
/// if the embedded YAML is broken (a test guards that).
const std::vector<GpuSpec>& gpus();

/// Every instance type of the embedded catalog, in file order.
const std::vector<InstanceSpec>& instances();

/// The GPU whose name or alias equals `name`, ignoring case, spaces, '-' and '_'
/// ("H200", "h200-sxm", "nvidia h200" all match), or nullopt.
std::optional<GpuSpec> find_gpu(std::string_view name);

/// find_gpu, or throws Error(usage) "unknown gpu 'x' (did you mean 'h200'?); known: ...".
GpuSpec require_gpu(std::string_view name);

/// The instance named `name`, ignoring case, optionally prefixed by its provider
/// ("p5en.48xlarge", "AWS p5en.48xlarge", "aws/p5en.48xlarge"), or nullopt.
std::optional<InstanceSpec> find_instance(std::string_view name);

/// find_instance, or throws Error(usage) with "did you mean".
InstanceSpec require_instance(std::string_view name);

/// Names of every GPU (canonical names), in catalog order.
std::vector<std::string> gpu_names();

/// Parses a GPU catalog in the format of data/hw/gpus.yaml; `file` names it in errors.
/// Throws Error(input) "file:line:col: error: gpus[i].field: message" for a missing or bad field.
std::vector<GpuSpec> parse_gpu_catalog(std::string_view yaml, const std::string& file);

/// Parses a user's cluster file (`--cluster FILE`): one mapping with gpu, gpus_per_node,
/// nvlink_domain, fabric, nics, nic_gbps, host_memory_gib, usd_per_gpu_hour (optional: name,
/// vcpus, price_source). `name` names the node when the file has none. Throws Error(input)
/// "file:line:col: error: field: what was expected" for a missing, unknown or bad field.
InstanceSpec parse_cluster_file(std::string_view yaml, const std::string& file,
                                std::string_view name);

/// Parses an instance catalog in the format of data/hw/instances.yaml; throws Error(input).
std::vector<InstanceSpec> parse_instance_catalog(std::string_view yaml, const std::string& file);

}  // namespace ladle::hw
