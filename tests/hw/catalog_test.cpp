#include "ladle/hw/catalog.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/test_support.hpp"

namespace ladle::hw {
namespace {

TEST(GpuCatalog, HasEveryRequiredGpuWithItsFigures) {
  for (const char* name : {"h100-sxm", "h200", "b200", "gb200", "a100", "mi300x", "mi325x", "mi355x"}) {
    const auto gpu = find_gpu(name);
    ASSERT_TRUE(gpu.has_value()) << name;
    EXPECT_GT(gpu->bf16_dense_tflops, 0) << name;
    EXPECT_GT(gpu->hbm_gb, 0) << name;
    EXPECT_GT(gpu->hbm_tb_per_s, 0) << name;
    EXPECT_GT(gpu->intra_node_gb_per_s, 0) << name;
    EXPECT_GT(gpu->gpus_per_node, 0) << name;
    EXPECT_FALSE(gpu->sources.empty()) << name;
    EXPECT_EQ(gpu->checked.size(), 10u) << name;  // YYYY-MM-DD
  }
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
  EXPECT_LADLE_ERROR(parse_instance_catalog("other: 1\n", "i.yaml"), input,
                     "expected a top-level list 'instances'");
}

}  // namespace
}  // namespace ladle::hw
