#pragma once
// calibrate_memory.hpp: what a published or logged peak memory measures, the prediction that
// compares with it, and the fit of the memory model's one free constant (the allocator slack) to
// the measured peaks.

#include <optional>
#include <span>
#include <string_view>

#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/prediction.hpp"

namespace ladle::plan {

/// What a measured peak counts.
enum class PeakMemoryKind {
  max_reserved,   ///< torch.cuda.max_memory_reserved: the allocator's segments, slack included
  max_allocated,  ///< torch.cuda.max_memory_allocated: live tensors, no slack
  device_used,    ///< nvidia-smi's used memory: everything, CUDA context and NCCL included
};

/// "max reserved" / "max allocated" / "device used".
const char* to_string(PeakMemoryKind kind);
/// The kind named `name`, or nullopt (the caller names peak_memory_kind_names() in its error).
std::optional<PeakMemoryKind> parse_peak_memory_kind(std::string_view name);
/// "max reserved, max allocated or device used": the names for an error message.
const char* peak_memory_kind_names();

/// The predicted figure a peak of `kind` measures, GiB: the allocator's share of the worst stage
/// (max reserved), that less the allocator slack (max allocated), or the whole (device used).
double predicted_peak_gib(const Prediction& prediction, PeakMemoryKind kind);

/// The predicted figure the measured peak of `m` compares with under `calibration`, GiB.
double predicted_peak_gib(const Measurement& m, const Calibration& calibration);

/// Phi(z), the standard normal's CDF.
double normal_cdf(double z);
/// log Phi(z), the standard normal's log CDF, finite however far into the lower tail z lies (the
/// censored terms of a likelihood: a run that ran, a run that ran out of memory).
double log_normal_cdf(double z);

/// The allocator slack fitted to measured peaks.
struct MemoryFit {
  double allocator_slack = 0;  ///< fitted value (fraction of each step's transient memory)
  double low = 0;              ///< 95% interval from the residuals
  double high = 0;
  double min = 0;              ///< physical range (the fit's bounds)
  double max = 0;
  int64_t runs = 0;            ///< measured peaks the fit used
  int64_t censored_runs = 0;   ///< runs without a peak that ran (each bounds its peak by the GPU's memory)
  double sigma = 0;            ///< fitted spread of log(predicted / measured peak)
  double median_abs_error = 0; ///< |predicted / measured - 1| at the fitted value, median
};

/// Fits `allocator_slack` by maximum likelihood (NLopt BOBYQA within the constant's range from
/// calibration_constants, with the residual spread): the runs of `measurements` with a measured
/// max-reserved peak, whose log(predicted / measured) is normal, and the runs without a published
/// peak, which ran and so needed no more than their GPU's memory (a censored measurement: the
/// likelihood that the residual is under the run's headroom). Runs with unmodelled settings are
/// left out of both. nullopt when no run without them has a max-reserved peak.
std::optional<MemoryFit> fit_allocator_slack(std::span<const Measurement> measurements,
                                             const Calibration& calibration);

}  // namespace ladle::plan
