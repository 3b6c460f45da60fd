// cmd_gpu.cpp: `ladle gpu [NAME]`, prints the GPU catalog (and the instances built on each GPU).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/hw/catalog.hpp"
#include "ladle/hw/gpu_json.hpp"
#include "ladle/hw/hw_facts.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/util/table.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {
namespace {

struct GpuOptions {
  std::string name;
  bool json = false;
};

std::string number(double value) { return fmt::format("{:g}", value); }

constexpr const char* kHostOpUnpublished =
    "no per-operation figure is published for this host: taken as a DGX H100's x86 host";

// The device-host link offload copies take, at the rate the time model prices them
// (plan::device_host_bytes_per_s): the GPU's listed link, else PCIe at the calibration's default.
struct OffloadLink {
  const hw::HostLink* listed = nullptr;  // nullptr: PCIe
  double gb_per_s = 0;
  std::string name() const { return listed ? "NVLink-C2C" : "PCIe"; }
  std::string source() const {
    return listed ? "data/hw/collectives.yaml host_links: " + listed->source
                  : "data/calibration.yaml host_link_gb_per_s (PCIe Gen5 x16, a default)";
  }
};

OffloadLink offload_link(const GpuSpec& g) {
  return {hw::host_link(g.name),
          plan::device_host_bytes_per_s(g, plan::default_calibration()) / 1e9};
}

// The GPU with its host and the catalog's nodes built on it.
nlohmann::ordered_json gpu_json(const GpuSpec& g) {
  std::vector<InstanceSpec> on_it;
  for (const InstanceSpec& i : hw::instances()) {
    if (i.gpu == g.name) on_it.push_back(i);
  }
  nlohmann::ordered_json j = hw::to_json(g, on_it);
  const OffloadLink link = offload_link(g);
  j["host"] = {{"cpu", g.host_cpu},
               {"op_ratio", g.host_op_ratio},
               {"op_source", g.host_op_source.empty() ? kHostOpUnpublished : g.host_op_source},
               {"link", link.name()},
               {"link_gb_per_s", link.gb_per_s},
               {"link_source", link.source()}};
  return j;
}

void render_one(const GpuSpec& g, std::ostream& out) {
  out << fmt::format("gpu: {} ({})\n", g.name, g.display_name);
  if (!g.aliases.empty()) out << fmt::format("aliases: {}\n", util::join(g.aliases, ", "));
  out << fmt::format("bf16 dense: {} TFLOP/s (the MFU peak)\n", number(g.bf16_dense_tflops));
  out << fmt::format("fp8 dense: {}\n",
                     g.fp8_dense_tflops > 0 ? number(g.fp8_dense_tflops) + " TFLOP/s" : "none");
  if (g.fp4_dense_tflops > 0)
    out << fmt::format("fp4 dense: {} TFLOP/s\n", number(g.fp4_dense_tflops));
  // The GEMM rates the time model prices: the GPU's measured row, or the fallback it names.
  const hw::PricedGemmRates rates = hw::priced_gemm_rates(g);
  std::string gemm = fmt::format("BF16 {:.0f}", rates.bf16);
  if (g.fp8_dense_tflops > 0) {
    gemm += fmt::format(", FP8 {:.0f}", rates.fp8);
    if (rates.fp8_block != rates.fp8)
      gemm += fmt::format(" (block-scaled, MXFP8 and blockwise: {:.0f})", rates.fp8_block);
  }
  if (rates.nvfp4 > 0) gemm += fmt::format(", NVFP4 {:.0f}", rates.nvfp4);
  if (rates.mxfp4 > 0) gemm += fmt::format(", MXFP4 {:.0f}", rates.mxfp4);
  out << fmt::format("GEMM as priced: {} TFLOP/s ({})\n", gemm,
                     rates.fallback.empty()
                         ? fmt::format("data/hw/kernels.yaml; sources: ladle gpu {} --json", g.name)
                         : rates.fallback);
  // The attention kernel's rate: the GPU's own measurement, or the H100's fraction taken.
  if (const hw::KernelFacts::GpuAttention* own = hw::gpu_attention(g.name)) {
    out << fmt::format("attention as measured: {} {:.0f} TFLOP/s forward (causal, 8k, heads of 128), {:.2f} times "
                       "cuDNN's share of the H100's peak (data/hw/kernels.yaml attention_gpus)\n",
                       own->kernel, own->curve.at_reference(), hw::attention_gpu_ratio(g));
  } else if (const hw::KernelFacts::HeadDimCurve& ref = hw::kernel_facts().head_dim_fa3; ref.measured_on == g.name) {
    out << fmt::format("attention as measured: cuDNN {:.0f} TFLOP/s forward (causal, 8k, heads of 128), the reference "
                       "the other GPUs are priced against (data/hw/kernels.yaml)\n",
                       ref.at_reference());
  } else {
    out << "attention as measured: none on this GPU; cuDNN's share of the H100's peak is taken (data/hw/kernels.yaml)\n";
  }
  // Attention by the length each call attends over, as the time model prices it.
  if (const hw::KernelFacts::AttentionLength* row = hw::attention_length_row(g.name)) {
    std::string by_length;
    for (const double tokens : row->tokens) {
      if (tokens == hw::kAttentionReferenceTokens) continue;
      const hw::AttentionLengthRatio r = hw::attention_length_ratio(g.name, tokens);
      by_length += fmt::format("{}{} {:.2f} / {:.2f}", by_length.empty() ? "" : ", ",
                               util::format_grouped(static_cast<long long>(tokens)), r.forward, r.backward);
    }
    const bool own = std::find(row->gpus.begin(), row->gpus.end(), g.name) != row->gpus.end();
    out << fmt::format("attention by length: {} of the rate at 8,192 tokens, forward / backward (cuDNN, measured on "
                       "{}{}; data/hw/kernels.yaml attention_length)\n",
                       by_length, row->gpus.front(), own ? "" : ", none on this GPU");
  }
  out << fmt::format("hbm: {} GB ({:.2f} GiB), {} TB/s\n", number(g.hbm_gb), g.hbm_gib(),
                     number(g.hbm_tb_per_s));
  out << fmt::format("intra-node link: {}, {} GB/s per GPU per direction\n", g.intra_node_link,
                     number(g.intra_node_gb_per_s));
  out << fmt::format("gpus per node: {}, NVLink/fabric domain: {}\n", g.gpus_per_node,
                     g.nvlink_domain_gpus);
  if (g.tdp_w > 0) out << fmt::format("power: {} W\n", number(g.tdp_w));
  if (g.max_clock_mhz > 0)
    out << fmt::format("max clock: {} MHz (as the device reports it)\n", number(g.max_clock_mhz));
  out << fmt::format("{}: {}\n", g.vendor == "AMD" ? "compute units" : "SMs", g.sm_count);
  if (!g.host_cpu.empty()) {
    out << fmt::format(
        "host: {}; {}\n", g.host_cpu,
        g.host_op_source.empty()
            ? "a host operation is taken to cost what it does on a DGX H100 (none published for "
              "this host)"
            : fmt::format("a host operation costs {} x a DGX H100's (sources: ladle gpu {} --json)",
                          number(g.host_op_ratio), g.name));
  }
  const OffloadLink link = offload_link(g);
  out << fmt::format("host link (offload copies): {}, {} GB/s per GPU per direction{}\n",
                     link.name(), number(link.gb_per_s),
                     link.listed ? "" : " (a default: data/calibration.yaml)");
  for (const InstanceSpec& i : hw::instances()) {
    if (i.gpu != g.name) continue;
    out << fmt::format(
        "instance: {} {}: {} GPUs per node, NVLink domain {}, {} Gbps ({}), {} GiB host, {} vCPUs, "
        "${}/hour = "
        "${:.4f}/GPU-hour ({}, {}; {})\n",
        i.provider, i.name, i.gpu_count, i.nvlink_domain, number(i.network_gbps), i.network,
        number(i.host_memory_gib), i.vcpus, number(i.usd_per_hour), i.usd_per_gpu_hour(),
        i.price_region, i.price_date, i.price_source);
  }
  for (const std::string& source : g.sources) out << fmt::format("source: {}\n", source);
  out << fmt::format("checked: {}\n", g.checked);
}

void render_catalog(std::ostream& out) {
  util::Table gpus;
  gpus.header = {"gpu", "bf16 TFLOP/s", "fp8 TFLOP/s", "HBM GB", "HBM TB/s", "link GB/s", "per node"};
  for (const GpuSpec& g : hw::gpus()) {
    gpus.rows.push_back({g.name, number(g.bf16_dense_tflops),
                         g.fp8_dense_tflops > 0 ? number(g.fp8_dense_tflops) : "-", number(g.hbm_gb),
                         number(g.hbm_tb_per_s), number(g.intra_node_gb_per_s),
                         std::to_string(g.gpus_per_node)});
  }
  out << gpus.render();
  out << "(dense peaks without sparsity; link bandwidth per GPU, one direction)\n\n";
  util::Table instances;
  instances.header = {"instance",     "provider", "gpus",       "NVLink domain", "fabric",
                      "network Gbps", "$/hour",   "$/GPU-hour", "price date"};
  for (const InstanceSpec& i : hw::instances()) {
    instances.rows.push_back({i.name, i.provider, fmt::format("{} x {}", i.gpu_count, i.gpu),
                              std::to_string(i.nvlink_domain), i.fabric, number(i.network_gbps),
                              number(i.usd_per_hour), fmt::format("{:.4f}", i.usd_per_gpu_hour()),
                              i.price_date});
  }
  out << instances.render();
  out << "(cloud rows: on-demand list price, Linux; on-prem rows: a documented default, override with --price or\n"
         "--cluster; sources: ladle gpu NAME)\n";
}

void run_gpu(const GpuOptions& options, Io& io) {
  if (!options.name.empty()) {
    const GpuSpec gpu = hw::require_gpu(options.name);
    if (options.json) {
      io.out << gpu_json(gpu).dump(2) << "\n";
    } else {
      render_one(gpu, io.out);
    }
  } else if (options.json) {
    nlohmann::ordered_json out;
    nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
    for (const GpuSpec& g : hw::gpus()) gpus.push_back(gpu_json(g));
    out["gpus"] = gpus;
    nlohmann::ordered_json instances = nlohmann::ordered_json::array();
    for (const InstanceSpec& i : hw::instances()) instances.push_back(hw::to_json(i));
    out["instances"] = instances;
    io.out << out.dump(2) << "\n";
  } else {
    render_catalog(io.out);
  }
  io.exit_code = kExitOk;
}

}  // namespace

void add_gpu_command(CLI::App& command, Io& io) {
  auto options = std::make_shared<GpuOptions>();
  command.add_option("name", options->name, "a GPU name or alias (h200, h100, b200, mi300x, ...)");
  add_json_flag(command, options->json);
  command.callback([options, &io] { run_gpu(*options, io); });
}

}  // namespace ladle::cli
