#pragma once
// The tensors one rank's optimizer updates for one MoE layer: the router, the shared expert and the
// rank's local experts (grouped-GEMM weights, one FC1 with gate and up halves and one FC2 each).

#include <cstdint>
#include <string>
#include <vector>

namespace ladle::numerics {

/// An MoE layer and how it is split over ranks. Defaults: one Qwen3.5-397B-A17B MoE layer
/// (hidden 4096, 512 experts, top-10, expert and shared-expert FFN 1024) at EP 8, ETP 1, 4,096
/// tokens per rank, the shape of the GLM-4.7-Flash seed recipe's component test.
struct LayerShape {
  int64_t hidden = 4096;
  int64_t experts = 512;
  int64_t topk = 10;        ///< recorded in the shape text; the optimizer step does not use it
  int64_t expert_ffn = 1024;
  int64_t shared_ffn = 1024;  ///< 0: no shared expert
  int64_t ep = 8;
  int64_t etp = 1;
  int64_t tokens = 4096;    ///< per rank; recorded in the shape text only
  std::string name = "Qwen3.5-397B-A17B";

  bool operator==(const LayerShape&) const = default;
};

/// Parses "key=value,key=value" over the defaults; keys: hidden, experts, topk, ffn, shared_ffn,
/// ep, etp, tokens, name. Throws Error(usage) for an unknown key (with a suggestion), a value that
/// is not a positive integer, or experts not divisible by ep or ffn by etp.
LayerShape parse_layer_shape(const std::string& spec);

/// One weight tensor of the rank's shard.
struct TensorSpec {
  std::string name;
  int64_t rows = 0;
  int64_t cols = 0;

  int64_t elements() const { return rows * cols; }
  bool operator==(const TensorSpec&) const = default;
};

/// Local experts of the rank (experts / ep).
int64_t local_experts(const LayerShape& shape);

/// Local experts kept at `scale` (0 < scale <= 1): round(local * scale), at least 1.
int64_t kept_experts(const LayerShape& shape, double scale);

/// The rank's tensors in a fixed order: router, shared expert (fc1, fc2, gate), then fc1 and fc2
/// of each kept local expert.
std::vector<TensorSpec> layer_tensors(const LayerShape& shape, double scale);

/// "one Qwen3.5-397B-A17B MoE layer: hidden 4096, 512 experts, top-10, expert FFN 1024, ...".
std::string describe_shape(const LayerShape& shape, double scale);

}  // namespace ladle::numerics
