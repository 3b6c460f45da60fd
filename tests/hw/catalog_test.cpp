#include "ladle/hw/catalog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "support/test_support.hpp"

namespace ladle::hw {
namespace {

TEST(GpuCatalog, HasEveryRequiredGpuWithItsFigures) {
  for (const char* name : {"h100-sxm", "h200", "b200", "gb200", "gb300", "b300", "a100", "mi300x",
                           "mi325x", "mi355x"}) {
    const auto gpu = find_gpu(name);
    ASSERT_TRUE(gpu.has_value()) << name;
    EXPECT_GT(gpu->bf16_dense_tflops, 0) << name;
    EXPECT_GT(gpu->hbm_gb, 0) << name;
    EXPECT_GT(gpu->hbm_tb_per_s, 0) << name;
    EXPECT_GT(gpu->intra_node_gb_per_s, 0) << name;
    EXPECT_GT(gpu->gpus_per_node, 0) << name;
    EXPECT_GT(gpu->sm_count, 0) << name;
    EXPECT_FALSE(gpu->sources.empty()) << name;
    EXPECT_EQ(gpu->checked.size(), 10u) << name;  // YYYY-MM-DD
  }
}

// The four Blackwell systems differ where their facts differ: the Grace superchip's CPU (and its
// NVLink-C2C host link) on GB200 and GB300, x86 on the HGX boards; GB200's higher power cap and
// peak than B200's; the block-scaled formats every Blackwell runs and Hopper does not.
TEST(GpuCatalog, BlackwellSystemsDifferWhereTheirFactsDiffer) {
  for (const char* name : {"gb200", "gb300"}) {
    EXPECT_EQ(require_gpu(name).host_cpu.rfind("Grace", 0), 0u) << name;
  }
  for (const char* name : {"b200", "b300", "h100-sxm", "h200", "a100", "mi300x", "mi325x", "mi355x"}) {
    EXPECT_EQ(require_gpu(name).host_cpu.rfind("x86", 0), 0u) << name;
    EXPECT_EQ(require_gpu(name).host_op_ratio, 1.0) << name;  // the x86 reference
  }
  // Grace's host time per operation over the DGX H100's Xeon: 37.08 / 13.48 us per Linear forward
  // (TransformerEngine issue #2053), to the two decimals gpus.yaml keeps.
  for (const char* name : {"gb200", "gb300"}) {
    EXPECT_NEAR(require_gpu(name).host_op_ratio, 37.08 / 13.48, 0.005) << name;
    EXPECT_NE(require_gpu(name).host_op_source.find("#2053"), std::string::npos) << name;
  }
  EXPECT_GT(require_gpu("gb200").tdp_w, require_gpu("b200").tdp_w);
  EXPECT_GT(require_gpu("gb200").max_clock_mhz, require_gpu("b200").max_clock_mhz);
  EXPECT_EQ(require_gpu("b300").max_clock_mhz, 0);  // not disclosed
  for (const char* name : {"b200", "b300", "gb200", "gb300"}) {
    const auto& formats = require_gpu(name).block_scaled_formats;
    EXPECT_NE(std::find(formats.begin(), formats.end(), "nvfp4"), formats.end()) << name;
  }
  EXPECT_TRUE(require_gpu("h100-sxm").block_scaled_formats.empty());
}

TEST(GpuCatalog, H200IsTheRecipesMfuPeak) {
  const GpuSpec h200 = require_gpu("h200");
  EXPECT_DOUBLE_EQ(h200.bf16_dense_tflops, 989);
  EXPECT_DOUBLE_EQ(h200.fp8_dense_tflops, 1979);
  EXPECT_DOUBLE_EQ(h200.hbm_gb, 141);
  EXPECT_DOUBLE_EQ(h200.hbm_tb_per_s, 4.8);
  EXPECT_DOUBLE_EQ(h200.intra_node_gb_per_s, 450);
  EXPECT_EQ(h200.gpus_per_node, 8);
  EXPECT_NEAR(h200.hbm_gib(), 131.32, 0.01);
  EXPECT_DOUBLE_EQ(require_gpu("a100").fp8_dense_tflops, 0);
  EXPECT_EQ(require_gpu("gb200").nvlink_domain_gpus, 72);
}

TEST(GpuCatalog, LookupIgnoresCaseAndSeparatorsAndKnowsAliases) {
  EXPECT_EQ(find_gpu("H200")->name, "h200");
  EXPECT_EQ(find_gpu("NVIDIA H200")->name, "h200");
  EXPECT_EQ(find_gpu("h100")->name, "h100-sxm");
  EXPECT_EQ(find_gpu("H100_SXM")->name, "h100-sxm");
  EXPECT_EQ(find_gpu("MI300X")->name, "mi300x");
  EXPECT_FALSE(find_gpu("h300").has_value());
  EXPECT_FALSE(find_gpu("").has_value());
}

TEST(GpuCatalog, UnknownGpuSuggestsTheNearest) {
  EXPECT_LADLE_ERROR(require_gpu("h20O"), usage, "unknown gpu 'h20O' (did you mean 'h200'?)");
  EXPECT_LADLE_ERROR(require_gpu("tpu"), usage, "known: h100-sxm, h200, b200");
}

TEST(InstanceCatalog, HasAwsP5P5enP6WithPricesDatesAndSources) {
  for (const char* name : {"p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge"}) {
    const auto instance = find_instance(name);
    ASSERT_TRUE(instance.has_value()) << name;
    EXPECT_EQ(instance->provider, "AWS");
    EXPECT_EQ(instance->gpu_count, 8);
    EXPECT_GT(instance->usd_per_hour, 0);
    EXPECT_GT(instance->network_gbps, 0);
    EXPECT_EQ(instance->price_date.size(), 10u);
    EXPECT_FALSE(instance->price_source.empty());
    EXPECT_TRUE(find_gpu(instance->gpu).has_value()) << name << " names an unknown gpu";
  }
  EXPECT_EQ(require_instance("p5en.48xlarge").gpu, "h200");
}

double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

TEST(InstanceCatalog, P5enPriceReproducesTheSeedRecipesCost) {
  const double per_gpu_hour = require_instance("p5en.48xlarge").usd_per_gpu_hour();
  EXPECT_GE(per_gpu_hour, 7.909);
  EXPECT_LE(per_gpu_hour, 7.9125);
  const auto usd_per_million = [&](double tokens_per_s_per_gpu) {
    return round_to(per_gpu_hour / (tokens_per_s_per_gpu * 3600) * 1e6, 2);
  };
  EXPECT_DOUBLE_EQ(usd_per_million(6178.46), 0.36);
  EXPECT_DOUBLE_EQ(usd_per_million(131.12), 16.76);
  EXPECT_DOUBLE_EQ(usd_per_million(161.79), 13.58);
}

TEST(InstanceCatalog, LookupAcceptsProviderPrefix) {
  EXPECT_EQ(find_instance("AWS p5en.48xlarge")->name, "p5en.48xlarge");
  EXPECT_EQ(find_instance("aws/P5EN.48XLARGE")->name, "p5en.48xlarge");
  EXPECT_FALSE(find_instance("gcp p5en.48xlarge").has_value());
  EXPECT_LADLE_ERROR(require_instance("p5e.48xlarge"), usage, "did you mean");
}

TEST(GpuCatalogParse, ReportsTheFieldAndLineOfABadEntry) {
  const std::string yaml = "gpus:\n  - name: x\n    display_name: X\n    vendor: V\n"
                           "    bf16_dense_tflops: fast\n";
  EXPECT_LADLE_ERROR(parse_gpu_catalog(yaml, "gpus.yaml"), input,
                     "gpus.yaml:5:24: error: gpus[0].bf16_dense_tflops: expected a number, got 'fast'");
  EXPECT_LADLE_ERROR(parse_gpu_catalog("gpus:\n  - name: x\n", "gpus.yaml"), input,
                     "gpus[0].display_name: missing required field");
  EXPECT_LADLE_ERROR(parse_gpu_catalog("gpus: [", "gpus.yaml"), input, "invalid YAML");
  // The SMs a GPU exposes: Blackwell Ultra's full die has 160, the shipping parts 148 and 152.
  EXPECT_EQ(find_gpu("h100-sxm")->sm_count, 132);
  EXPECT_EQ(find_gpu("b300")->sm_count, 148);
  EXPECT_EQ(find_gpu("gb300")->sm_count, 152);
  EXPECT_LADLE_ERROR(parse_instance_catalog("other: 1\n", "i.yaml"), input,
                     "expected a top-level list 'instances'");
}

TEST(SystemCatalog, HasEverySystemWithItsFabricAndDomain) {
  struct Want {
    const char* name;
    const char* gpu;
    int per_node;
    int domain;
    const char* fabric;
  };
  for (const Want& w : {Want{"p5.48xlarge", "h100-sxm", 8, 8, "EFAv2"},
                        Want{"p5en.48xlarge", "h200", 8, 8, "EFAv3"},
                        Want{"p6-b200.48xlarge", "b200", 8, 8, "EFAv4"},
                        Want{"gb200-nvl72", "gb200", 4, 72, "InfiniBand NDR"},
                        Want{"gb300-nvl72", "gb300", 4, 72, "InfiniBand XDR"},
                        Want{"dgx-b300", "b300", 8, 8, "InfiniBand XDR"},
                        Want{"dgx-a100", "a100", 8, 8, "InfiniBand HDR"},
                        Want{"superpod-h100", "h100-sxm", 8, 8, "InfiniBand NDR"},
                        Want{"superpod-h200", "h200", 8, 8, "InfiniBand NDR"},
                        Want{"superpod-b200", "b200", 8, 8, "InfiniBand NDR"}}) {
    const auto s = find_instance(w.name);
    ASSERT_TRUE(s.has_value()) << w.name;
    EXPECT_EQ(s->gpu, w.gpu) << w.name;
    EXPECT_EQ(s->gpu_count, w.per_node) << w.name;
    EXPECT_EQ(s->nvlink_domain, w.domain) << w.name;
    EXPECT_EQ(s->fabric, w.fabric) << w.name;
    EXPECT_DOUBLE_EQ(s->network_gbps, s->nics * s->nic_gbps) << w.name;
    EXPECT_GT(s->host_memory_gib, 0) << w.name;
    EXPECT_GT(s->usd_per_gpu_hour(), 0) << w.name;
    EXPECT_FALSE(s->price_source.empty()) << w.name;
    EXPECT_FALSE(s->sources.empty()) << w.name;
    ASSERT_TRUE(find_gpu(s->gpu).has_value()) << w.name;
  }
  // SuperPOD-style clusters: 8 x 400 Gbit/s ConnectX-7 per node.
  for (const char* name : {"superpod-h100", "superpod-h200", "superpod-b200"}) {
    EXPECT_EQ(require_instance(name).nics, 8) << name;
    EXPECT_DOUBLE_EQ(require_instance(name).nic_gbps, 400) << name;
  }
}

TEST(ClusterFile, ReadsEveryField) {
  const std::string yaml =
      "gpu: H100\ngpus_per_node: 8\nnvlink_domain: 8\nfabric: RoCE\nnics: 8\nnic_gbps: 400\n"
      "host_memory_gib: 1024\nusd_per_gpu_hour: 2\n";
  const InstanceSpec s = parse_cluster_file(yaml, "c.yaml", "lab");
  EXPECT_EQ(s.name, "lab");
  EXPECT_EQ(s.provider, "on-prem");
  EXPECT_EQ(s.gpu, "h100-sxm");
  EXPECT_EQ(s.gpu_count, 8);
  EXPECT_EQ(s.nvlink_domain, 8);
  EXPECT_EQ(s.fabric, "RoCE");
  EXPECT_DOUBLE_EQ(s.network_gbps, 3200);
  EXPECT_EQ(s.network, "RoCE, 8 x 400 Gbps");
  EXPECT_DOUBLE_EQ(s.host_memory_gib, 1024);
  EXPECT_DOUBLE_EQ(s.usd_per_gpu_hour(), 2);
}

TEST(ClusterFile, NamesTheMissingOrBadField) {
  const std::string full =
      "gpu: h100\ngpus_per_node: 8\nnvlink_domain: 8\nfabric: RoCE\nnics: 8\nnic_gbps: 400\n"
      "host_memory_gib: 1024\nusd_per_gpu_hour: 2\n";
  // Each field left out in turn is named.
  for (const char* field : {"gpu", "gpus_per_node", "nvlink_domain", "fabric", "nics", "nic_gbps",
                            "host_memory_gib", "usd_per_gpu_hour"}) {
    std::string yaml;
    for (size_t begin = 0; begin < full.size();) {
      const size_t end = full.find('\n', begin) + 1;
      const std::string line = full.substr(begin, end - begin);
      if (line.rfind(std::string(field) + ":", 0) != 0) yaml += line;
      begin = end;
    }
    EXPECT_LADLE_ERROR(parse_cluster_file(yaml, "c.yaml", "x"), input,
                       std::string("c.yaml:1:1: error: ") + field + ": missing; expected ");
  }
  std::string unknown_gpu = full;
  unknown_gpu.replace(0, 9, "gpu: h999");
  EXPECT_LADLE_ERROR(parse_cluster_file(unknown_gpu, "c.yaml", "x"), input,
                     "c.yaml:1:6: error: gpu: a GPU of the catalog");
  EXPECT_LADLE_ERROR(parse_cluster_file(full + "nvlink: 8\n", "c.yaml", "x"), input,
                     "c.yaml:9:1: error: nvlink: unknown field");
  std::string small_domain = full;
  small_domain.replace(small_domain.find("nvlink_domain: 8"), 16, "nvlink_domain: 4");
  EXPECT_LADLE_ERROR(parse_cluster_file(small_domain, "c.yaml", "x"), input,
                     "c.yaml:3:16: error: nvlink_domain: an integer at least gpus_per_node");
  std::string bad_nics = full;
  bad_nics.replace(bad_nics.find("nics: 8"), 7, "nics: many");
  EXPECT_LADLE_ERROR(parse_cluster_file(bad_nics, "c.yaml", "x"), input,
                     "nics: expected an integer, got 'many'");
  EXPECT_LADLE_ERROR(parse_cluster_file("- 1\n", "c.yaml", "x"), input, "expected a mapping");
}

}  // namespace
}  // namespace ladle::hw
