// The JSON form of the hardware catalog's rows.
#include "ladle/hw/gpu_json.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "ladle/hw/catalog.hpp"
#include "ladle/hw/hw_facts.hpp"

namespace ladle::hw {
namespace {

TEST(GpuJson, GpuListsTheInstancesItIsGiven) {
  const GpuSpec& gpu = require_gpu("h100");
  std::vector<InstanceSpec> on_it;
  for (const InstanceSpec& i : instances()) {
    if (i.gpu == gpu.name) on_it.push_back(i);
  }
  ASSERT_FALSE(on_it.empty());
  const nlohmann::ordered_json j = to_json(gpu, on_it);
  EXPECT_EQ(j["name"], gpu.name);
  EXPECT_DOUBLE_EQ(j["bf16_dense_tflops"].get<double>(), gpu.bf16_dense_tflops);
  EXPECT_DOUBLE_EQ(j["hbm_gib"].get<double>(), gpu.hbm_gib());
  ASSERT_EQ(j["instances"].size(), on_it.size());
  for (const auto& i : j["instances"]) EXPECT_EQ(i["gpu"], gpu.name);
  EXPECT_TRUE(to_json(gpu, {})["instances"].empty());
}

// The GEMM rates the time model prices, with where they come from: every catalog GPU has a
// published row (a GPU without one would name the fallback it takes); NVFP4 and MXFP4 only where
// the GPU's tensor cores run the format, at its measured rate.
TEST(GpuJson, GpuGivesTheGemmRatesItIsPricedAt) {
  for (const GpuSpec& g : gpus()) {
    const nlohmann::ordered_json gemm = to_json(g, {})["gemm_priced"];
    EXPECT_GT(gemm["bf16_tflops"].get<double>(), 0.4 * g.bf16_dense_tflops) << g.name;  // the MI350X: 0.48
    EXPECT_LT(gemm["bf16_tflops"].get<double>(), g.bf16_dense_tflops) << g.name;
    EXPECT_EQ(gemm.contains("nvfp4_tflops"), g.runs_block_scaled("nvfp4")) << g.name;
    EXPECT_EQ(gemm.contains("mxfp4_tflops"), g.runs_block_scaled("mxfp4")) << g.name;
    EXPECT_TRUE(gemm.contains("source")) << g.name;
    EXPECT_FALSE(gemm.contains("fallback")) << g.name;
  }
  // The MI350X: HipKittens' measured BF16 GEMM (1,116.7 TFLOP/s at 8192 cubed), and the MI355X's
  // FP8 and MXFP4 fractions times the same BF16 ratio; below the MI355X at every precision.
  const nlohmann::ordered_json mi350x = to_json(require_gpu("mi350x"), {})["gemm_priced"];
  EXPECT_NEAR(mi350x["bf16_tflops"].get<double>(), 1116.7, 1.0);
  EXPECT_NEAR(mi350x["mxfp4_tflops"].get<double>(), 9227.5 * 0.391, 1e-6);
  const nlohmann::ordered_json mi355x_rates = to_json(require_gpu("mi355x"), {})["gemm_priced"];
  for (const char* key : {"bf16_tflops", "fp8_tflops", "mxfp4_tflops"}) {
    EXPECT_LT(mi350x[key].get<double>(), 0.8 * mi355x_rates[key].get<double>()) << key;
  }
  // CDNA 4: MXFP4 at its measured rate, no NVFP4 (its block-scaled MFMA takes E8M0 scales only).
  const nlohmann::ordered_json mi355x = to_json(require_gpu("mi355x"), {})["gemm_priced"];
  EXPECT_NEAR(mi355x["mxfp4_tflops"].get<double>(), 10066.3 * 0.502, 1e-6);
  EXPECT_FALSE(mi355x.contains("nvfp4_tflops"));
  // Blackwell runs MXFP4 on the FP4 MMA that runs NVFP4: the same rate where no MXFP4 row is published.
  const nlohmann::ordered_json b200 = to_json(require_gpu("b200"), {})["gemm_priced"];
  EXPECT_DOUBLE_EQ(b200["mxfp4_tflops"].get<double>(), b200["nvfp4_tflops"].get<double>());
  const nlohmann::ordered_json gb300 = to_json(require_gpu("gb300"), {})["gemm_priced"];
  EXPECT_NEAR(gb300["nvfp4_tflops"].get<double>(), 15000 * 0.438, 1e-6);
  EXPECT_LT(gb300["fp8_block_scaled_tflops"].get<double>(), gb300["fp8_tflops"].get<double>());
  const nlohmann::ordered_json h100 = to_json(require_gpu("h100"), {})["gemm_priced"];
  EXPECT_DOUBLE_EQ(h100["fp8_block_scaled_tflops"].get<double>(), h100["fp8_tflops"].get<double>());
  EXPECT_NE(gb300["source"].get<std::string>().find("aiconfigurator"), std::string::npos);
  // CDNA3's FP8 at AMD's measured FP8/BF16 MAF ratio (1.798 on MI300X, 1.802 on MI325X), not at
  // twice the BF16 rate that its peaks and the BF16 fraction would give.
  for (const auto& [name, ratio] : {std::pair{"mi300x", 1.798}, std::pair{"mi325x", 1.802}}) {
    const nlohmann::ordered_json amd = to_json(require_gpu(name), {})["gemm_priced"];
    EXPECT_NEAR(amd["fp8_tflops"].get<double>() / amd["bf16_tflops"].get<double>(), ratio, 0.005)
        << name;
    EXPECT_NE(amd["source"].get<std::string>().find("rocm-blogs"), std::string::npos) << name;
  }
}

// The device-host link offload copies take: NVLink-C2C where collectives.yaml lists one, with its
// source; PCIe (the calibration's figure) elsewhere.
// The attention-by-length ratios `gpu --json` gives are those the time model prices with: the
// GPU's row (a B200 its GB200 sibling's), else the H200's.
TEST(GpuJson, GpuGivesTheAttentionByLengthItIsPricedAt) {
  const auto by_length = [](const char* name) { return to_json(require_gpu(name), {})["attention_by_length"]; };
  const auto b200 = by_length("b200");
  EXPECT_EQ(b200["measured_on"], "gb200");
  ASSERT_EQ(b200["tokens"].size(), 5u);
  EXPECT_EQ(b200["tokens"][0], 2048);
  EXPECT_NEAR(b200["forward_over_8192"][0].get<double>(), 1042.0 / 1598, 1e-3);
  EXPECT_NEAR(b200["backward_over_8192"][1].get<double>(), attention_length_ratio("b200", 4096).backward, 1e-3);
  EXPECT_EQ(b200["forward_over_8192"][2], 1.0);
  EXPECT_EQ(by_length("mi355x")["measured_on"], "h200");
  EXPECT_NE(by_length("gb300")["source"].get<std::string>().find("gb300_919_only_cudnn"), std::string::npos);
}

TEST(GpuJson, Gb200AndGb300CopyToTheirHostOverC2c) {
  for (const char* name : {"gb200", "gb300"}) {
    const HostLink* link = host_link(name);
    ASSERT_NE(link, nullptr) << name;
    EXPECT_DOUBLE_EQ(link->bytes_per_s, 330e9) << name;
    EXPECT_NE(link->source.find("NVLink-C2C"), std::string::npos) << name;
  }
  for (const char* name : {"h100-sxm", "b200", "b300", "mi355x"})
    EXPECT_EQ(host_link(name), nullptr) << name;
  EXPECT_EQ(host_link_bytes_per_s("b200"), 0.0);
}

TEST(GpuJson, InstanceGivesItsPricePerGpuHour) {
  for (const InstanceSpec& i : instances()) {
    const nlohmann::ordered_json j = to_json(i);
    EXPECT_EQ(j["name"], i.name);
    EXPECT_DOUBLE_EQ(j["usd_per_gpu_hour"].get<double>(), i.usd_per_gpu_hour()) << i.name;
    EXPECT_EQ(j["sources"].size(), i.sources.size()) << i.name;
  }
}

}  // namespace
}  // namespace ladle::hw
