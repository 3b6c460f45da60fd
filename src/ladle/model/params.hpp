#pragma once
// params.hpp: parameter counts under every named convention, summed from tensor_inventory().

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/model/model_spec.hpp"

namespace ladle::model {

/// The conventions under which a model's size is quoted. Each is a sum over tensor_inventory().
enum class ParamConvention {
  /// The recipes' N for MFU (6 N per token): every weight MATRIX a token multiplies through,
  /// plus the output head: attention (MLA: q_a, q_b, kv_a incl. rope, kv_b, o), the indexer's
  /// matrices on the layers owning one, dense MLPs, top-k routed + shared experts, the router
  /// weight. Leaves out the input embedding, norms, biases, the router's correction bias and the
  /// MTP layers. GLM-4.7-Flash: 3,579,314,176; GLM-5.2: 40,297,758,720.
  n,
  /// Active per token, every tensor a token touches (N plus embedding, norms, biases), no MTP.
  active,
  /// Every tensor of the model without the MTP layers: the usual "model size"
  /// (Llama-3.1-8B: 8,030,261,248; GLM-5.2: 743,377,000,704, the "744B").
  total,
  /// total less the input embedding table (as Megatron-LM reports "non-embedding" parameters).
  total_without_embedding,
  /// Every tensor the BF16 checkpoint stores: total + MTP layers (with their stored embedding and
  /// head copies where the format keeps them) + router correction biases.
  /// GLM-4.7-Flash: 31,221,488,576; GLM-5.1: 753,864,139,008.
  checkpoint,
  /// checkpoint less the router correction biases (GLM-5.2: 753,329,921,024).
  checkpoint_without_correction_bias,
  /// Parameters in the MTP layers alone (with their stored copies).
  mtp,
  /// The input embedding table alone.
  embedding,
};

/// Parameter counts of a model; `get` picks one by convention.
struct ParamCounts {
  int64_t n = 0;
  int64_t active = 0;
  int64_t total = 0;
  int64_t total_without_embedding = 0;
  int64_t checkpoint = 0;
  int64_t checkpoint_without_correction_bias = 0;
  int64_t mtp = 0;
  int64_t embedding = 0;
  // Breakdown of `total` by role (no MTP).
  int64_t attention = 0;      ///< attention projections, biases, sinks, q/k norms of MLA/Qwen3
  int64_t indexer = 0;        ///< DSA indexers
  int64_t dense_mlp = 0;      ///< dense MLPs
  int64_t routed_experts = 0; ///< all routed experts
  int64_t shared_experts = 0;
  int64_t router = 0;         ///< router weights, biases and correction biases
  int64_t norms = 0;          ///< layer norms and the final norm
  int64_t head = 0;           ///< output head (0 when tied to the embedding)
  int64_t hyper_connections = 0;  ///< hyper-connection mixing parameters (deepseek_v4)
  int64_t latent_projections = 0;   ///< projections into and out of latent experts (kimi_k3)
  int64_t attention_residuals = 0;  ///< block attention residuals' scoring projections (kimi_k3)
  /// A vision encoder and projector the config describes (ModelSpec::vision_params); in no
  /// convention above, since ladle plans the language model.
  int64_t vision = 0;

  int64_t get(ParamConvention convention) const;
  bool operator==(const ParamCounts&) const = default;
};

/// Counts of `spec` under every convention (sums of tensor_inventory(spec)).
ParamCounts count_params(const ModelSpec& spec);

/// The recipes' N: count_params(spec).n.
int64_t active_params(const ModelSpec& spec);

/// Every convention, in the order of the enum.
std::vector<ParamConvention> param_conventions();
/// "n", "active", "total", "total_without_embedding", "checkpoint", ...
const char* to_string(ParamConvention convention);
/// One line describing the convention, for `ladle model` output.
const char* describe(ParamConvention convention);
/// Parses a convention name (as to_string gives; '-' accepted for '_'); throws Error(usage)
/// listing the valid names.
ParamConvention parse_param_convention(std::string_view name);

}  // namespace ladle::model
