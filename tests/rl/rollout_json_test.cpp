// The JSON form of the rollout model's value types: memory in GiB, the estimate with its memory,
// one object per fitted serving row.
#include "ladle/rl/rollout_json.hpp"

#include <gtest/gtest.h>

#include "ladle/hw/catalog.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/rl/rollout.hpp"
#include "ladle/rl/serving_data.hpp"

namespace ladle::rl {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TEST(RolloutJson, EngineLayoutKeys) {
  EngineLayout e;
  e.gpus = e.tp = 4;
  e.kv_bits = 8;
  const nlohmann::ordered_json j = to_json(e);
  EXPECT_EQ(j["tp"], 4);
  EXPECT_EQ(j["kv_bits"], 8);
  EXPECT_EQ(j.size(), 7u);  // gpus, tp, dp_attention, ep, mem_fraction, weight_bits, kv_bits
}

TEST(RolloutJson, EstimateCarriesItsMemoryInGib) {
  const ModelSpec m = model::load_model("qwen3-30b-a3b");
  const GpuSpec gpu = hw::require_gpu("h200");
  EngineLayout e;
  e.gpus = e.tp = 2;
  const RolloutEstimate r = estimate_rollout(m, gpu, e, 2, RolloutWorkload{64, 4, 256, 512, 1024});
  const nlohmann::ordered_json j = to_json(r);
  EXPECT_DOUBLE_EQ(j["seconds"].get<double>(), r.seconds);
  EXPECT_EQ(j["concurrency_per_engine"], r.concurrency);
  EXPECT_EQ(j["bound"], r.bound);
  EXPECT_DOUBLE_EQ(j["memory_per_gpu"]["weights_gib"].get<double>(), r.memory.weights_bytes / kGiB);
  EXPECT_DOUBLE_EQ(j["memory_per_gpu"]["kv_tokens"].get<double>(), r.memory.kv_tokens);
}

TEST(RolloutJson, FitHasOneRowPerMeasurementAndRangesAsPairs) {
  const ServingFit fit = fit_serving(serving_measurements());
  const nlohmann::ordered_json j = to_json(fit);
  ASSERT_EQ(j["rows"].size(), fit.rows.size());
  for (size_t i = 0; i < fit.rows.size(); ++i) {
    EXPECT_EQ(j["rows"][i]["id"], fit.rows[i].row->id);
    EXPECT_DOUBLE_EQ(j["rows"][i]["held_out"].get<double>(), fit.rows[i].held_out);
  }
  EXPECT_EQ(j["hbm_fraction_range"].size(), 2u);
  EXPECT_EQ(j["sources"].size(), fit.sources.size());
}

}  // namespace
}  // namespace ladle::rl
