#include "ladle/plan/cluster.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "ladle/hw/catalog.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"

namespace ladle::plan {

const char* to_string(Precision precision) {
  switch (precision) {
    case Precision::bf16: return "bf16";
    case Precision::fp8: return "fp8";
    case Precision::fp16: return "fp16";
  }
  return "bf16";
}

Precision parse_precision(std::string_view name) {
  if (name == "bf16") return Precision::bf16;
  if (name == "fp8") return Precision::fp8;
  if (name == "fp16") return Precision::fp16;
  throw_usage("unknown precision '{}'; expected bf16, fp8 or fp16", name);
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

Cluster make_cluster_from_file(const std::string& path, int64_t gpus, std::string_view gpu_name) {
  const std::string text = util::read_file(path);
  Cluster cluster;
  cluster.instance =
      hw::parse_cluster_file(text, path, std::filesystem::path(path).stem().string());
  cluster.gpu = hw::require_gpu(cluster.instance.gpu);
  cluster.gpus = gpus;
  if (!gpu_name.empty() && hw::require_gpu(gpu_name).name != cluster.gpu.name) {
    throw_usage("--gpu {} contradicts --cluster {} (gpu: {})", gpu_name, path, cluster.gpu.name);
  }
  return cluster;
}

void override_price(Cluster& cluster, double usd_per_gpu_hour) {
  if (!std::isfinite(usd_per_gpu_hour) || usd_per_gpu_hour <= 0) {
    throw_usage("--price: expected a positive USD per GPU-hour, got {}", usd_per_gpu_hour);
  }
  cluster.instance.usd_per_hour = usd_per_gpu_hour * static_cast<double>(cluster.gpus_per_node());
  cluster.instance.price_source = fmt::format("--price {:g} USD per GPU-hour", usd_per_gpu_hour);
}

Cluster make_cluster(const ClusterOptions& options, int64_t gpus) {
  if (!options.file.empty() && !options.instance.empty()) {
    throw_usage("give --cluster or --instance, not both");
  }
  Cluster cluster = options.file.empty() ? make_cluster(options.gpu, gpus, options.instance)
                                         : make_cluster_from_file(options.file, gpus, options.gpu);
  if (options.price) override_price(cluster, *options.price);
  return cluster;
}

}  // namespace ladle::plan
