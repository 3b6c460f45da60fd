// gpu_json.hpp: the JSON form of the hardware catalog's rows, as `ladle gpu --json` prints them
// (key order is the output order).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "ladle/hw/gpu_spec.hpp"
#include "ladle/hw/instance_spec.hpp"

namespace ladle::hw {

/// Every field of the node, with its price per GPU-hour and its sources.
nlohmann::ordered_json to_json(const InstanceSpec& instance);

/// Every field of the GPU, with `instances` (the nodes built on it) between its figures and its
/// sources.
nlohmann::ordered_json to_json(const GpuSpec& gpu, const std::vector<InstanceSpec>& instances);

}  // namespace ladle::hw
