// The vision tower's FLOPs term (plan/cost_vision) on Qwen3-VL-8B's real config
// (tests/data/model/real_qwen3-vl-8b.json, its .source.txt beside it).
#include <gtest/gtest.h>

#include "ladle/model/config_json.hpp"
#include "ladle/plan/cost_vision.hpp"
#include "ladle/plan/model_costs.hpp"
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

// --image-tokens as a workload input: the tower's parameters and its FLOPs and activations per
// row go into the model's costs; a model without a priced tower, or more image tokens than the
// row holds, is a usage error.
TEST(CostVision, ImageTokensEnterTheModelCosts) {
  const ModelSpec spec = model::read_config_file(test::source_path("tests/data/model/real_qwen3-vl-8b.json"));
  const ModelCosts text = model_costs(spec, 8192);
  EXPECT_EQ(text.vision_params, 0.0);
  EXPECT_EQ(text.vision_flops_per_row, 0.0);
  const ModelCosts vl = model_costs(spec, 8192, 256);
  EXPECT_EQ(vl.vision_params, static_cast<double>(spec.vision_params));
  EXPECT_DOUBLE_EQ(vl.vision_flops_per_row, 256 * 4133191680.0);
  // Per image token: 4 patches x 27 blocks x (8 x 1152 + 2 x 4304) + 4 mergers x 2 x 2 x 4 x
  // 1152 elements, 2 bytes each: 2 x (1,924,992 + 73,728) = 3,997,440 bytes.
  EXPECT_DOUBLE_EQ(vl.vision_activation_bytes_per_row, 256 * 3997440.0);
  EXPECT_LADLE_ERROR(model_costs(spec, 8192, 8193), usage, "--image-tokens must be 0 to the row's 8192 tokens");
  EXPECT_LADLE_ERROR(model_costs(model::read_config_file(test::source_path("tests/data/model/real_phi-4.json")), 8192, 1),
                     usage, "has no vision tower ladle prices");
}

}  // namespace
}  // namespace ladle::plan
