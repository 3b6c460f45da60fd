#include "ladle/plan/cluster.hpp"

#include "ladle/hw/catalog.hpp"
#include "ladle/util/error.hpp"

namespace ladle::plan {

const char* to_string(Precision precision) { return precision == Precision::fp8 ? "fp8" : "bf16"; }

Precision parse_precision(std::string_view name) {
  if (name == "bf16") return Precision::bf16;
  if (name == "fp8") return Precision::fp8;
  throw_usage("unknown precision '{}'; expected bf16 or fp8", name);
}

Cluster make_cluster(std::string_view gpu_name, int64_t gpus, std::string_view instance_name) {
  Cluster cluster;
  cluster.gpu = hw::require_gpu(gpu_name);
  cluster.gpus = gpus;
  if (!instance_name.empty()) {
    cluster.instance = hw::require_instance(instance_name);
    if (cluster.instance.gpu != cluster.gpu.name) {
      throw_usage("instance '{}' carries {} GPUs, not {}", cluster.instance.name, cluster.instance.gpu,
                  cluster.gpu.name);
    }
    return cluster;
  }
  for (const InstanceSpec& instance : hw::instances()) {
    if (instance.gpu == cluster.gpu.name) return Cluster{cluster.gpu, instance, gpus};
  }
  throw_usage("no instance in the catalog carries {} GPUs; the planner needs a node's network, host "
              "memory and price", cluster.gpu.name);
}

}  // namespace ladle::plan
