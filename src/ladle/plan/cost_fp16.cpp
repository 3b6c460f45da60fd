#include "ladle/plan/cost_fp16.hpp"

namespace ladle::plan {

double fp16_unscale_seconds(bool fp16, double shard_params, double hbm_bytes_per_s) {
  if (!fp16 || hbm_bytes_per_s <= 0) return 0.0;
  constexpr double kReadWriteFp32 = 4.0 + 4.0;
  return kReadWriteFp32 * shard_params / hbm_bytes_per_s;
}

}  // namespace ladle::plan
