#pragma once
// layout.hpp: Layout, one parallel layout of a training run (how the model and the batch are split
// over GPUs, and the memory-saving knobs), as the planner, the recipe and the engines see it.

#include <cstdint>
#include <string_view>

namespace ladle {

/// Activation recomputation (Megatron-LM --recompute-granularity).
enum class RecomputeGranularity {
  none,       ///< keep every activation
  selective,  ///< recompute core attention only (Megatron's default selective modules)
  full,       ///< recompute whole layers (with `recompute_method` and `recompute_layers`)
};

/// How full recompute chooses layers (Megatron-LM --recompute-method).
enum class RecomputeMethod {
  uniform,  ///< checkpoint every `recompute_layers` layers and recompute each chunk
  block,    ///< recompute the first `recompute_layers` layers of each stage only
};

/// The MoE token dispatcher (Megatron-LM --moe-token-dispatcher-type).
enum class MoeDispatcher {
  alltoall,   ///< NCCL all-to-all of the routed token copies
  allgather,  ///< all-gather every token to every expert rank
  flex,       ///< DeepEP: one copy per destination node, forwarded over NVLink
};

/// Storage type of the Adam moments (precision-aware optimizer: --exp-avg-dtype/--exp-avg-sq-dtype).
enum class StateDtype { fp32, bf16 };

/// One parallel layout. Products: GPUs = tp * pp * cp * dp; expert data parallel
/// EDP = tp * cp * dp / (ep * etp). Zero in `dp` or `max_tokens` means "derive it" (from the GPU
/// count, and from rows_per_mb * row_tokens / cp).
struct Layout {
  int64_t tp = 1;   ///< tensor parallel
  int64_t pp = 1;   ///< pipeline parallel
  int64_t cp = 1;   ///< context parallel
  int64_t ep = 1;   ///< expert parallel
  int64_t etp = 1;  ///< expert tensor parallel
  int64_t dp = 0;   ///< data parallel (0: GPUs / (tp * pp * cp))
  bool sp = false;  ///< sequence parallel
  int64_t vpp = 1;  ///< virtual pipeline stages per pipeline rank (interleaved 1F1B when > 1)
  int64_t first = 0;  ///< decoder layers on the first pipeline stage (0: even split)
  int64_t last = 0;   ///< decoder layers on the last pipeline stage (0: even split)
  RecomputeGranularity recompute = RecomputeGranularity::none;
  RecomputeMethod recompute_method = RecomputeMethod::uniform;  ///< full only
  int64_t recompute_layers = 1;                                 ///< full only
  double offload = 0;            ///< fraction of optimizer states kept on the host, 0..1
  bool overlap = false;          ///< overlap the host optimizer's device-host copies
  bool precision_aware = false;  ///< --use-precision-aware-optimizer
  StateDtype moments = StateDtype::fp32;  ///< Adam moment dtype (bf16 needs precision_aware)
  int64_t max_tokens = 0;   ///< --max-tokens-per-gpu (0: rows_per_mb * row_tokens / cp)
  int64_t rows_per_mb = 1;  ///< rows packed into one microbatch
  MoeDispatcher dispatcher = MoeDispatcher::alltoall;

  /// GPUs the layout occupies: tp * pp * cp * dp (0 while dp is still to be derived).
  int64_t gpus() const { return tp * pp * cp * dp; }
  /// Expert data-parallel size tp * cp * dp / (ep * etp) (integer division; validity checks it).
  int64_t edp() const { return ep * etp > 0 ? tp * cp * dp / (ep * etp) : 0; }

  bool operator==(const Layout&) const = default;
};

/// "none" / "selective" / "full".
const char* to_string(RecomputeGranularity value);
/// "uniform" / "block".
const char* to_string(RecomputeMethod value);
/// "alltoall" / "allgather" / "flex".
const char* to_string(MoeDispatcher value);
/// "fp32" / "bf16".
const char* to_string(StateDtype value);

/// Parses a granularity name; throws Error(usage) listing the valid names.
RecomputeGranularity parse_recompute_granularity(std::string_view name);
/// Parses a method name; throws Error(usage) listing the valid names.
RecomputeMethod parse_recompute_method(std::string_view name);
/// Parses a dispatcher name; throws Error(usage) listing the valid names.
MoeDispatcher parse_moe_dispatcher(std::string_view name);
/// Parses a state dtype; throws Error(usage) listing the valid names.
StateDtype parse_state_dtype(std::string_view name);

}  // namespace ladle
