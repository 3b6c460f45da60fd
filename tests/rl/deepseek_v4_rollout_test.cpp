// The rollout's cache of DeepSeek-V4's compressed attention (rl/rollout.cpp, csa_kv_bytes), by
// hand on the real DeepSeek-V4-Flash config of tests/data/model/ (its .source.txt names where it
// came from).
#include <gtest/gtest.h>

#include "ladle/model/config_json.hpp"
#include "ladle/rl/rollout.hpp"
#include "support/test_support.hpp"

namespace ladle::rl {
namespace {

ModelSpec flash() {
  return model::read_config_file(test::source_path("tests/data/model/real_deepseek-v4-flash-nvfp4.json"));
}

// At 8,192 tokens in BF16 (2 bytes), one engine of TP 1: every layer keeps the window's 128 raw
// key heads of 512 (131,072 B). Ratio 4 (21 layers) adds 2,048 pooled keys of 512 (2,097,152 B),
// the compressor's FP32 state of 7 tokens x 2 x 2 x 512 (57,344 B), the indexer's 2,048 pooled
// keys of 128 (524,288 B) and its state, 7 x 2 x 2 x 128 x 4 (14,336 B): 2,824,192 B. Ratio 128
// (20 layers) adds 64 pooled keys (65,536 B) and a state of 127 x 2 x 512 x 4 (520,192 B):
// 716,800 B. The two window-only layers: 131,072 B each.
TEST(RolloutDeepSeekVFour, CacheBytesByHand) {
  const ModelSpec m = flash();
  EngineLayout e;
  e.gpus = e.tp = 1;
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(m, e, 8192), 2 * 131'072.0 + 21 * 2'824'192.0 + 20 * 716'800.0);
  // Under the window the cache grows with the sequence only through the pooled keys.
  const double at_8k = kv_bytes_per_sequence(m, e, 8192);
  const double at_16k = kv_bytes_per_sequence(m, e, 16384);
  EXPECT_DOUBLE_EQ(at_16k - at_8k, 21 * (2048 * 512 * 2.0 + 2048 * 128 * 2.0) + 20 * (64 * 512 * 2.0));
}

}  // namespace
}  // namespace ladle::rl
