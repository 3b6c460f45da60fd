// The JSON form of the hardware catalog's rows.
#include "ladle/hw/gpu_json.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "ladle/hw/catalog.hpp"

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
