#include "ladle/hw/catalog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string>
#include <utility>

#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::hw {
namespace {

constexpr const char* kGpuCatalogPath = "data/hw/gpus.yaml";
constexpr const char* kInstanceCatalogPath = "data/hw/instances.yaml";

// Lowercase without spaces, '-', '_' and '/': "NVIDIA H200-SXM" and "nvidia_h200_sxm" compare equal.
std::string normalize(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == ' ' || c == '-' || c == '_' || c == '/') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

// Reads one catalog entry's fields, reporting errors at the node's line and column.
class EntryReader {
 public:
  EntryReader(const YAML::Node& node, std::string file, std::string path)
      : node_(node), file_(std::move(file)), path_(std::move(path)) {
    if (!node_.IsMap()) fail(node_, path_, "expected a mapping");
  }

  std::string text(const char* key, bool required = true) const {
    const YAML::Node value = node_[key];
    if (!value) {
      if (required) fail(node_, field(key), "missing required field");
      return {};
    }
    if (!value.IsScalar()) fail(value, field(key), "expected a string");
    return value.as<std::string>();
  }

  double number(const char* key) const {
    const YAML::Node value = node_[key];
    if (!value) fail(node_, field(key), "missing required field");
    double result = 0;
    if (!value.IsScalar() || !YAML::convert<double>::decode(value, result)) {
      fail(value, field(key), "expected a number, got '" + scalar_text(value) + "'");
    }
    if (result < 0) fail(value, field(key), "must not be negative");
    return result;
  }

  int integer(const char* key) const {
    const YAML::Node value = node_[key];
    if (!value) fail(node_, field(key), "missing required field");
    int result = 0;
    if (!value.IsScalar() || !YAML::convert<int>::decode(value, result)) {
      fail(value, field(key), "expected an integer, got '" + scalar_text(value) + "'");
    }
    if (result < 0) fail(value, field(key), "must not be negative");
    return result;
  }

  std::vector<std::string> list(const char* key, bool required = true) const {
    const YAML::Node value = node_[key];
    std::vector<std::string> out;
    if (!value) {
      if (required) fail(node_, field(key), "missing required field");
      return out;
    }
    if (!value.IsSequence()) fail(value, field(key), "expected a list of strings");
    for (const YAML::Node& item : value) {
      if (!item.IsScalar()) fail(item, field(key), "expected a list of strings");
      out.push_back(item.as<std::string>());
    }
    return out;
  }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& field_path,
                         const std::string& message) const {
    const YAML::Mark mark = at.Mark();
    throw_input(SourceLocation{file_, mark.line + 1, mark.column + 1, field_path}, "{}", message);
  }

 private:
  std::string field(const char* key) const {
    return path_.empty() ? std::string(key) : path_ + "." + key;
  }
  static std::string scalar_text(const YAML::Node& node) {
    return node.IsScalar() ? node.Scalar() : std::string("a non-scalar value");
  }

  YAML::Node node_;
  std::string file_;
  std::string path_;
};

YAML::Node load_root(std::string_view yaml, const std::string& file, const char* key) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::ParserException& e) {
    throw_input(SourceLocation{file, e.mark.line + 1, e.mark.column + 1, ""}, "invalid YAML: {}",
                e.msg);
  }
  const YAML::Node list = root[key];
  if (!list || !list.IsSequence()) {
    throw_input(SourceLocation{file, 1, 1, key}, "expected a top-level list '{}'", key);
  }
  return list;
}

std::string_view embedded_or_die(const char* path) {
  const auto bytes = util::find_embedded(path);
  LADLE_ASSERT(bytes.has_value(), "the hardware catalogs are embedded by cmake/embed.cmake");
  return *bytes;
}

template <typename T>
std::vector<std::string> names_of(const std::vector<T>& items) {
  std::vector<std::string> names;
  for (const T& item : items) names.push_back(item.name);
  return names;
}

}  // namespace

std::vector<GpuSpec> parse_gpu_catalog(std::string_view yaml, const std::string& file) {
  const YAML::Node list = load_root(yaml, file, "gpus");
  std::vector<GpuSpec> gpus;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const EntryReader entry(list[i], file, fmt::format("gpus[{}]", i));
    GpuSpec gpu;
    gpu.name = entry.text("name");
    gpu.display_name = entry.text("display_name");
    gpu.vendor = entry.text("vendor");
    gpu.aliases = entry.list("aliases", false);
    gpu.bf16_dense_tflops = entry.number("bf16_dense_tflops");
    gpu.fp8_dense_tflops = entry.number("fp8_dense_tflops");
    if (list[i]["fp4_dense_tflops"]) gpu.fp4_dense_tflops = entry.number("fp4_dense_tflops");
    gpu.hbm_gb = entry.number("hbm_gb");
    gpu.hbm_tb_per_s = entry.number("hbm_tb_per_s");
    gpu.intra_node_gb_per_s = entry.number("intra_node_gb_per_s");
    gpu.intra_node_link = entry.text("intra_node_link");
    gpu.gpus_per_node = entry.integer("gpus_per_node");
    gpu.nvlink_domain_gpus = entry.integer("nvlink_domain_gpus");
    gpu.tdp_w = entry.number("tdp_w");
    gpu.block_scaled_formats = entry.list("block_scaled_formats", false);
    if (list[i]["host_cpu"]) gpu.host_cpu = entry.text("host_cpu");
    if (list[i]["host_op_ratio"]) {
      gpu.host_op_ratio = entry.number("host_op_ratio");
      gpu.host_op_source = entry.text("host_op_source");
      if (gpu.host_op_ratio <= 0) {
        entry.fail(list[i]["host_op_ratio"], fmt::format("gpus[{}].host_op_ratio", i), "must be positive");
      }
    }
    if (list[i]["max_clock_mhz"]) gpu.max_clock_mhz = entry.number("max_clock_mhz");
    gpu.sm_count = entry.integer("sm_count");
    if (gpu.sm_count <= 0) {
      entry.fail(list[i]["sm_count"], fmt::format("gpus[{}].sm_count", i), "must be positive");
    }
    gpu.sources = entry.list("sources");
    gpu.checked = entry.text("checked");
    if (gpu.bf16_dense_tflops <= 0) {
      entry.fail(list[i]["bf16_dense_tflops"], fmt::format("gpus[{}].bf16_dense_tflops", i),
                 "must be positive");
    }
    if (gpu.gpus_per_node <= 0) {
      entry.fail(list[i]["gpus_per_node"], fmt::format("gpus[{}].gpus_per_node", i),
                 "must be positive");
    }
    if (gpu.sources.empty()) {
      entry.fail(list[i], fmt::format("gpus[{}].sources", i), "every GPU needs a source");
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

InstanceSpec parse_cluster_file(std::string_view yaml, const std::string& file,
                                std::string_view name) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::ParserException& e) {
    throw_input(SourceLocation{file, e.mark.line + 1, e.mark.column + 1, ""}, "invalid YAML: {}",
                e.msg);
  }
  if (!root || !root.IsMap())
    throw_input(SourceLocation{file, 1, 1, "cluster"}, "expected a mapping");
  const EntryReader entry(root, file, "");
  static constexpr const char* kKnown[] = {
      "name",        "gpu",      "gpus_per_node",   "nvlink_domain",    "fabric",
      "nics",        "nic_gbps", "host_memory_gib", "usd_per_gpu_hour", "vcpus",
      "price_source"};
  for (const auto& item : root) {
    const std::string key = item.first.Scalar();
    if (std::find(std::begin(kKnown), std::end(kKnown), key) == std::end(kKnown)) {
      entry.fail(item.first, key,
                 "unknown field; expected one of gpu, gpus_per_node, nvlink_domain, fabric, nics, "
                 "nic_gbps, "
                 "host_memory_gib, usd_per_gpu_hour (optional: name, vcpus, price_source)");
    }
  }
  static constexpr std::pair<const char*, const char*> kRequired[] = {
      {"gpu", "a GPU of `ladle gpu`, e.g. h200"},
      {"gpus_per_node", "the GPUs of one node, e.g. 8"},
      {"nvlink_domain", "the GPUs one NVLink domain joins, e.g. 8 (72 for NVL72)"},
      {"fabric", "the scale-out fabric, e.g. InfiniBand NDR, RoCE, EFAv3"},
      {"nics", "the scale-out NICs per node, e.g. 8"},
      {"nic_gbps", "the Gbit/s of one NIC, e.g. 400"},
      {"host_memory_gib", "the host memory of one node, GiB"},
      {"usd_per_gpu_hour", "the price of one GPU-hour, USD"}};
  for (const auto& [key, what] : kRequired) {
    if (!root[key]) entry.fail(root, key, fmt::format("missing; expected {}", what));
  }
  InstanceSpec s;
  s.name = root["name"] ? entry.text("name") : std::string(name);
  s.provider = "on-prem";
  const std::string gpu = entry.text("gpu");
  const std::optional<GpuSpec> spec = find_gpu(gpu);
  if (!spec) {
    entry.fail(
        root["gpu"], "gpu",
        fmt::format("a GPU of the catalog ({}), got '{}'", fmt::join(gpu_names(), ", "), gpu));
  }
  s.gpu = spec->name;
  s.gpu_count = entry.integer("gpus_per_node");
  if (s.gpu_count < 1) entry.fail(root["gpus_per_node"], "gpus_per_node", "a positive integer");
  s.nvlink_domain = entry.integer("nvlink_domain");
  if (s.nvlink_domain < s.gpu_count) {
    entry.fail(root["nvlink_domain"], "nvlink_domain", "an integer at least gpus_per_node");
  }
  s.fabric = entry.text("fabric");
  if (s.fabric.empty())
    entry.fail(root["fabric"], "fabric", "a fabric kind (InfiniBand, RoCE, EFAv3, ...)");
  s.nics = entry.integer("nics");
  if (s.nics < 1) entry.fail(root["nics"], "nics", "a positive integer");
  s.nic_gbps = entry.number("nic_gbps");
  if (s.nic_gbps <= 0) entry.fail(root["nic_gbps"], "nic_gbps", "a positive number of Gbit/s");
  s.network_gbps = s.nics * s.nic_gbps;
  s.network = fmt::format("{}, {} x {:g} Gbps", s.fabric, s.nics, s.nic_gbps);
  s.host_memory_gib = entry.number("host_memory_gib");
  s.vcpus = root["vcpus"] ? entry.integer("vcpus") : 0;
  const double per_gpu = entry.number("usd_per_gpu_hour");
  s.usd_per_hour = per_gpu * s.gpu_count;
  s.price_region = "on-prem";
  s.price_date = "";
  s.price_source =
      root["price_source"] ? entry.text("price_source") : std::string("the cluster file");
  s.sources = {file};
  return s;
}

std::vector<InstanceSpec> parse_instance_catalog(std::string_view yaml, const std::string& file) {
  const YAML::Node list = load_root(yaml, file, "instances");
  std::vector<InstanceSpec> instances;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const EntryReader entry(list[i], file, fmt::format("instances[{}]", i));
    InstanceSpec instance;
    instance.name = entry.text("name");
    instance.provider = entry.text("provider");
    instance.gpu = entry.text("gpu");
    instance.gpu_count = entry.integer("gpu_count");
    instance.network_gbps = entry.number("network_gbps");
    instance.network = entry.text("network");
    instance.fabric = entry.text("fabric");
    instance.nics = entry.integer("nics");
    instance.nic_gbps = entry.number("nic_gbps");
    instance.nvlink_domain = entry.integer("nvlink_domain");
    instance.host_memory_gib = entry.number("host_memory_gib");
    instance.vcpus = entry.integer("vcpus");
    instance.usd_per_hour = entry.number("usd_per_hour");
    instance.price_region = entry.text("price_region");
    instance.price_date = entry.text("price_date");
    instance.price_source = entry.text("price_source");
    instance.sources = entry.list("sources");
    if (instance.gpu_count <= 0) {
      entry.fail(list[i]["gpu_count"], fmt::format("instances[{}].gpu_count", i),
                 "must be positive");
    }
    if (instance.nvlink_domain < instance.gpu_count) {
      entry.fail(list[i]["nvlink_domain"], fmt::format("instances[{}].nvlink_domain", i),
                 "must be at least gpu_count");
    }
    if (instance.network_gbps != instance.nics * instance.nic_gbps) {
      entry.fail(list[i]["network_gbps"], fmt::format("instances[{}].network_gbps", i),
                 "must equal nics x nic_gbps");
    }
    instances.push_back(std::move(instance));
  }
  return instances;
}

const std::vector<GpuSpec>& gpus() {
  static const std::vector<GpuSpec> catalog =
      parse_gpu_catalog(embedded_or_die(kGpuCatalogPath), kGpuCatalogPath);
  return catalog;
}

const std::vector<InstanceSpec>& instances() {
  static const std::vector<InstanceSpec> catalog =
      parse_instance_catalog(embedded_or_die(kInstanceCatalogPath), kInstanceCatalogPath);
  return catalog;
}

std::optional<GpuSpec> find_gpu(std::string_view name) {
  const std::string key = normalize(name);
  if (key.empty()) return std::nullopt;
  for (const GpuSpec& gpu : gpus()) {
    if (normalize(gpu.name) == key) return gpu;
    for (const std::string& alias : gpu.aliases) {
      if (normalize(alias) == key) return gpu;
    }
  }
  return std::nullopt;
}

std::vector<std::string> gpu_names() { return names_of(gpus()); }

GpuSpec require_gpu(std::string_view name) {
  if (auto gpu = find_gpu(name)) return *gpu;
  std::vector<std::string> candidates = gpu_names();
  for (const GpuSpec& gpu : gpus()) {
    candidates.insert(candidates.end(), gpu.aliases.begin(), gpu.aliases.end());
  }
  const std::vector<std::string> names = gpu_names();
  throw_usage("unknown gpu '{}'{}; known: {}", name, util::did_you_mean(name, candidates),
              util::join(names, ", "));
}

std::optional<InstanceSpec> find_instance(std::string_view name) {
  const std::string wanted = util::to_lower(util::trim(name));
  for (const InstanceSpec& instance : instances()) {
    const std::string plain = util::to_lower(instance.name);
    const std::string provider = util::to_lower(instance.provider);
    if (wanted == plain || wanted == provider + " " + plain || wanted == provider + "/" + plain ||
        wanted == provider + ":" + plain) {
      return instance;
    }
  }
  return std::nullopt;
}

InstanceSpec require_instance(std::string_view name) {
  if (auto instance = find_instance(name)) return *instance;
  const std::vector<std::string> names = names_of(instances());
  throw_usage("unknown instance '{}'{}; known: {}", name, util::did_you_mean(name, names),
              util::join(names, ", "));
}

}  // namespace ladle::hw
