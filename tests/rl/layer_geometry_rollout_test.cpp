// The rollout's KV cache per sequence (rl/rollout.cpp, kv_bytes_per_sequence) on models whose
// layers have their own attention geometry, by hand from the configs of tests/data/model/ (each
// with a .source.txt naming where it came from).
#include <gtest/gtest.h>

#include "ladle/model/config_json.hpp"
#include "ladle/rl/rollout.hpp"
#include "support/test_support.hpp"

namespace ladle::rl {
namespace {

ModelSpec config(const std::string& name) {
  return model::read_config_file(test::source_path("tests/data/model/" + name + ".json"));
}

EngineLayout one_gpu() {
  EngineLayout e;
  e.gpus = e.tp = 1;
  return e;
}

// Step-3.7-Flash at 8,192 tokens in BF16: every layer keeps 8 key/value heads of 128 + 128 (4,096
// bytes a token), whatever its query heads; the 12 full layers for all 8,192 tokens, the 33
// sliding layers for their 512-token window.
TEST(RolloutLayerGeometry, StepThreeSevenFlashByHand) {
  const ModelSpec m = config("real_step-3.7-flash");
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(m, one_gpu(), 8192), 12 * 8192 * 4096.0 + 33 * 512 * 4096.0);
}

// Gemma 4 31B at 8,192 tokens in BF16: the 50 sliding layers keep 16 heads of 256 + 256 for their
// 1,024-token window; the 10 full layers 4 heads of 512 + 512 for every token (their keys are
// their values in the weights, but the cache holds the rotated keys and the unrotated values).
TEST(RolloutLayerGeometry, GemmaFourThirtyOneBByHand) {
  const ModelSpec m = config("real_gemma-4-31b-it");
  const double sliding = 16 * (256 + 256) * 2.0 * 1024;
  const double full = 4 * (512 + 512) * 2.0 * 8192;
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(m, one_gpu(), 8192), 50 * sliding + 10 * full);
}

// MiMo-V2-Flash's values are 128 wide beside 192-wide keys: its cache is (192 + 128) / (2 x 192)
// of what the keys' width alone would say.
TEST(RolloutLayerGeometry, MiMoValuesNarrowerThanKeys) {
  ModelSpec m = config("real_mimo-v2-flash");
  const double narrow = kv_bytes_per_sequence(m, one_gpu(), 4096);
  m.value_head_dim = 0;  // values as wide as the keys
  const double wide = kv_bytes_per_sequence(m, one_gpu(), 4096);
  EXPECT_DOUBLE_EQ(narrow / wide, (192.0 + 128.0) / (2 * 192.0));
}

}  // namespace
}  // namespace ladle::rl
