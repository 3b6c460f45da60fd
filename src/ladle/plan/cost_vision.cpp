#include "ladle/plan/cost_vision.hpp"

namespace ladle::plan {

double vision_forward_flops_per_image_token(const VisionShape& v, int64_t image_tokens) {
  if (v.depth <= 0 || image_tokens < 1) return 0.0;
  const auto d = [](int64_t x) { return static_cast<double>(x); };
  const double h = d(v.hidden);
  const double patches_per_token = d(v.merge * v.merge);
  const double patches = d(image_tokens) * patches_per_token;  // attended in one image
  const double embed = 2.0 * d(v.channels * v.temporal_patch * v.patch * v.patch) * h;
  const double block = 2.0 * 4.0 * h * h + 2.0 * 2.0 * h * d(v.intermediate) + 4.0 * h * patches;
  const double merged = patches_per_token * h;
  const double merger = 2.0 * (merged * merged + merged * d(v.out_hidden));
  return patches_per_token * (embed + d(v.depth) * block) + d(1 + v.deepstack) * merger;
}

double vision_activation_bytes_per_image_token(const VisionShape& v) {
  if (v.depth <= 0) return 0.0;
  const auto d = [](int64_t x) { return static_cast<double>(x); };
  const double h = d(v.hidden);
  const double patches_per_token = d(v.merge * v.merge);
  const double per_patch_block = 2 * h + h + 3 * h + h + h + 2 * d(v.intermediate);
  const double mergers = d(1 + v.deepstack) * 2.0 * 2.0 * patches_per_token * h;
  constexpr double kBf16 = 2;
  return kBf16 * (patches_per_token * d(v.depth) * per_patch_block + mergers);
}

}  // namespace ladle::plan
