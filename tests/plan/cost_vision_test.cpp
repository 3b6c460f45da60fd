// The vision tower's FLOPs term (plan/cost_vision) on Qwen3-VL-8B's real config
// (tests/data/model/real_qwen3-vl-8b.json, its .source.txt beside it).
#include <gtest/gtest.h>

#include "ladle/model/config_json.hpp"
#include "ladle/plan/cost_vision.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

// vision_config: depth 27, hidden 1152, intermediate 4304, patch 16, temporal 2, 3 channels,
// merge 2, out 4096, 3 deepstack indexes. With 256 image tokens (1,024 patches in the image):
// per patch, embedding 2 x 1536 x 1152 = 3,538,944; per block 8 x 1152^2 + 4 x 1152 x 4304 +
// 4 x 1152 x 1024 = 10,616,832 + 19,832,832 + 4,718,592 = 35,168,256, x 27 = 949,542,912;
// x 4 patches per token = 3,812,327,424; the mergers 4 x 2 x (4608^2 + 4608 x 4096) =
// 320,864,256. Total 4,133,191,680 FLOPs per image token.
TEST(CostVision, QwenThreeVlEightBByHand) {
  const ModelSpec spec = model::read_config_file(test::source_path("tests/data/model/real_qwen3-vl-8b.json"));
  ASSERT_EQ(spec.vision.depth, 27);
  EXPECT_DOUBLE_EQ(vision_forward_flops_per_image_token(spec.vision, 256), 4133191680.0);
  EXPECT_DOUBLE_EQ(vision_forward_flops_per_image_token(spec.vision, 0), 0.0);
  // Twice the image tokens in one image grows only the attention term: each patch attends to
  // 256 x 4 more patches, 4 x 1152 FLOPs each, in 27 blocks, for 4 patches per image token.
  EXPECT_DOUBLE_EQ(vision_forward_flops_per_image_token(spec.vision, 512) -
                       vision_forward_flops_per_image_token(spec.vision, 256),
                   256.0 * 4 * 4 * 1152 * 27 * 4);
}

}  // namespace
}  // namespace ladle::plan
