// The rollout's KV cache per sequence (rl/rollout.cpp, kv_bytes_per_sequence) on MiniMax-M3
// (tests/data/model/real_minimax-m3.json, source beside it): only its block-sparse layers keep
// the index's key cache.
#include <gtest/gtest.h>

#include "ladle/model/config_json.hpp"
#include "ladle/rl/rollout.hpp"
#include "support/test_support.hpp"

namespace ladle::rl {
namespace {

// At 8,192 tokens in BF16 on one GPU: all 60 layers keep 4 key/value heads of 128 + 128 (2,048
// bytes a token); the 57 sparse layers also keep the index's one key head of 128 (256 bytes).
TEST(RolloutMiniMaxMThree, IndexKeysOnTheSparseLayersOnly) {
  const ModelSpec m = model::read_config_file(test::source_path("tests/data/model/real_minimax-m3.json"));
  EngineLayout e;
  e.gpus = e.tp = 1;
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(m, e, 8192), 60 * 8192 * 2048.0 + 57 * 8192 * 256.0);
}

}  // namespace
}  // namespace ladle::rl
