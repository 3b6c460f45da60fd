#pragma once
// instance_spec.hpp: InstanceSpec, a rentable node (cloud instance type) and its price.

#include <string>
#include <vector>

namespace ladle {

/// One node type of the catalog (data/hw/instances.yaml): a cloud instance type or an on-prem
/// system (DGX, NVL72 compute tray), or a user's cluster file (`--cluster`).
struct InstanceSpec {
  std::string name;      ///< "p5en.48xlarge"
  std::string provider;  ///< "AWS"
  std::string gpu;       ///< GpuSpec::name of its accelerators ("h200")
  int gpu_count = 0;     ///< GPUs per instance
  double network_gbps = 0;  ///< inter-node network per instance, Gbit/s (EFA for AWS)
  std::string network;      ///< "EFAv3, 16 x 200 Gbps"
  std::string fabric;       ///< scale-out fabric kind: "EFAv3", "InfiniBand NDR", "RoCE", ...
  int nics = 0;             ///< scale-out NICs (or EFA interfaces) per node
  double nic_gbps = 0;      ///< Gbit/s of one of them (network_gbps = nics x nic_gbps)
  /// GPUs that reach each other over NVLink: 8 on an HGX node, 72 on an NVL72 rack whose node
  /// (compute tray) carries 4. A TP/EP/CP group no larger than this is priced on NVLink.
  int nvlink_domain = 0;
  double host_memory_gib = 0;
  int vcpus = 0;
  double usd_per_hour = 0;   ///< on-demand Linux price of the whole instance, USD per hour
  std::string price_region;  ///< region the price was read for ("us-east-1")
  std::string price_date;    ///< YYYY-MM-DD the price was published or read
  std::string price_source;  ///< where the price comes from
  std::vector<std::string> sources;  ///< where the hardware figures come from

  /// On-demand price per GPU-hour, USD: usd_per_hour / gpu_count.
  double usd_per_gpu_hour() const { return gpu_count > 0 ? usd_per_hour / gpu_count : 0.0; }

  bool operator==(const InstanceSpec&) const = default;
};

}  // namespace ladle
