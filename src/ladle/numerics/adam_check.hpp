#pragma once
// The optimizer component test: every path of adam_paths.hpp over a layer's synthetic weights and
// gradients, against the FP64 reference, step by step; plus the bitwise check of the rebuilt
// masters, the remainder self-test and the negative controls.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ladle/numerics/adam_paths.hpp"
#include "ladle/numerics/layer_shape.hpp"
#include "ladle/numerics/param_remainder.hpp"

namespace ladle::numerics {

/// The paths compared with the reference, in report order; the last three are negative controls.
enum class AdamPath {
  default_mixed,      ///< FP32 masters and moments, FusedAdam, RNE copy to BF16
  precision_aware,    ///< FusedAdam with BF16 weights + int16 remainders, chosen state dtypes
  explicit_master,    ///< FusedAdam with explicit FP32 masters and the same state dtypes
  cpu_offload,        ///< FP32 host masters, PyTorch CPU AdamW, RNE copy to BF16
  control_remainders_dropped,  ///< precision-aware, remainders not kept between steps
  control_truncating_split,    ///< precision-aware, split truncates instead of rounding
  control_no_bias_correction,  ///< precision-aware, bias correction skipped
};

/// Number of AdamPath values.
constexpr int kAdamPathCount = 7;

/// "default", "precision-aware", "explicit-master", "cpu-offload", "remainders-dropped",
/// "truncating-split", "no-bias-correction".
std::string to_string(AdamPath path);

/// True for the three negative controls.
bool is_control(AdamPath path);

/// Where the GPU paths run.
enum class Device { cpu, cuda };

/// Relative L2 error bound after one step (the seed's).
constexpr double kBoundStepOne = 1e-3;
/// After more steps: kBoundFactor x the default path's error + kBoundStepOne (the seed's).
constexpr double kBoundFactor = 2.0;
/// Largest fraction of BF16 weights that may differ from the BF16 rounding of the FP64 reference.
constexpr double kBf16MismatchBound = 1e-3;
/// Elements per slice: the unit of work and of summation order (fixed, so results do not depend
/// on the thread count).
constexpr int64_t kSliceElements = 16384;

/// Everything `ladle numerics adam` takes.
struct AdamCheckOptions {
  LayerShape shape;
  double scale = 1.0;              ///< fraction of the rank's local experts kept
  std::vector<int> steps = {1, 3};  ///< step counts reported, ascending
  AdamHyper hyper;
  uint64_t seed = 1234;
  int threads = 1;
  StateDtype main_grads_dtype = StateDtype::fp32;  ///< precision-aware path's gradients
  StateDtype exp_avg_dtype = StateDtype::fp32;
  StateDtype exp_avg_sq_dtype = StateDtype::fp32;
  Device device = Device::cpu;
  bool self_test = true;
  /// Called after each slice of the main pass with (slices done, slices in all), from the worker
  /// threads: the callee serializes (cli uses it for util::Progress). Empty: no report.
  std::function<void(int64_t, int64_t)> progress;
};

/// One path's worst tensor after one step count.
struct StepError {
  int step = 0;
  double rel_l2 = 0;          ///< worst tensor's relative L2 error of the update
  std::string worst_tensor;
  double bound = 0;
  bool within_bound = false;

  bool operator==(const StepError&) const = default;
};

/// One path's results.
struct PathReport {
  AdamPath path = AdamPath::default_mixed;
  std::vector<StepError> steps;
  double bf16_mismatch = 0;         ///< worst tensor's fraction of BF16 weights off the reference's
  std::string bf16_worst_tensor;
  bool bf16_within_bound = false;
  bool passed = false;              ///< every check within bounds

  bool operator==(const PathReport&) const = default;
};

/// Bytes of optimizer-related state per parameter on the GPU and on the host, for one path.
struct StateMemory {
  std::string path;
  double gpu_bytes_per_param = 0;
  double host_bytes_per_param = 0;

  bool operator==(const StateMemory&) const = default;
};

/// The whole component test.
struct AdamCheckReport {
  AdamCheckOptions options;
  std::string shape_text;
  int64_t tensors = 0;
  int64_t elements = 0;
  std::vector<PathReport> paths;
  uint64_t bitwise_compared = 0;    ///< rebuilt masters compared, all steps
  uint64_t bitwise_mismatches = 0;  ///< rebuilt masters that differ from the explicit arm's
  uint64_t remainder_ties = 0;      ///< precision-aware BF16 weights off RNE of their master
  bool self_test_ran = false;
  RemainderSelfTest self_test;
  std::vector<StateMemory> memory;
  std::string device_detail;        ///< "cpu", or the CUDA device used
  bool checks_passed = false;       ///< every path, the bitwise check and the self-test
  bool controls_failed = false;     ///< every negative control failed
  bool passed = false;              ///< both

  bool operator==(const AdamCheckReport&) const = default;
};

/// Parses "1,3" into ascending unique step counts (1..1000). Throws Error(usage).
std::vector<int> parse_step_list(const std::string& text);

/// Runs the component test. Throws Error(usage) for invalid options, Error(io) when
/// --device cuda cannot run.
AdamCheckReport run_adam_check(const AdamCheckOptions& options);

/// Bytes of working buffers the run uses with `threads` threads (for the memory line).
int64_t adam_check_working_bytes(const AdamCheckOptions& options);

}  // namespace ladle::numerics
