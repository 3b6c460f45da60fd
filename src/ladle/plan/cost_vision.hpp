#pragma once
// cost_vision.hpp: the forward FLOPs of a vision tower and its merger (Qwen3-VL, Qwen3.5), per
// image token a sample carries, from the config's vision_config (ModelSpec::vision).

#include <cstdint>

#include "ladle/model/model_spec.hpp"

namespace ladle::plan {

/// Forward FLOPs per image token of a sample holding `image_tokens` image tokens in one image
/// (Qwen3-VL's vision tower, transformers modeling_qwen3_vl.py). One image token is merge x merge
/// patches of temporal x patch x patch x channels pixels. Per patch: the patch embedding
/// 2 (C T p^2) h, per block the fused qkv and proj (2 x 4 h^2), fc1 and fc2 (2 x 2 h i) and
/// bidirectional attention over the image's patches (4 h x patches); per image token the merger's
/// fc1 (m^2 h)^2 and fc2 (m^2 h x out), times 2, once for the merger and once per deepstack merger.
/// 0 when the spec has no vision tower or image_tokens < 1.
double vision_forward_flops_per_image_token(const VisionShape& v, int64_t image_tokens);

/// Activation bytes (BF16) the vision tower keeps per image token for backward, before any split:
/// per patch and block, the two LayerNorms' inputs (2 h), the qkv input (h), q, k and v (3 h),
/// the attention output (h), fc1's input (h), fc1's output and the activation's output (2 x
/// intermediate) as a transformer layer keeps them without dropout (Korthikanti et al. 2022, sec.
/// 4); per image token the mergers' inputs and hidden (2 x merge^2 h each).
double vision_activation_bytes_per_image_token(const VisionShape& v);

}  // namespace ladle::plan
