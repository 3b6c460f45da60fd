#pragma once
// cost_fp16.hpp: what --fp16 (FP16 with a dynamic loss scale, not BF16) costs the time model.
//
// FP16 GEMMs run at BF16's tensor-core rate (the GPU tables give one 16-bit dense rate), and the
// weights, master weights and moments take the same bytes as under BF16 (Megatron-LM keeps FP32
// master weights for both: megatron/core/optimizer/optimizer.py, Float16OptimizerWithFloat16Params
// and the distributed optimizer). What FP16 adds is the grad scaler's step: before every update,
// MixedPrecisionOptimizer._unscale_main_grads_and_check_for_nan runs
// torch._amp_foreach_non_finite_check_and_unscale_ over the rank's FP32 main gradients (read and
// write 4 bytes each) and all-reduces one found-inf flag; the scaler's own state is two scalars.
// A step that finds an inf or NaN is skipped; the rate of those is the run's, not the layout's.

namespace ladle::plan {

/// Seconds of the unscale-and-check pass over `shard_params` FP32 main gradients at
/// `hbm_bytes_per_s` (0 unless `fp16`: the layout's --fp16 or the workload's precision).
double fp16_unscale_seconds(bool fp16, double shard_params, double hbm_bytes_per_s);

}  // namespace ladle::plan
