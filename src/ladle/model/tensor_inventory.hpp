#pragma once
// tensor_inventory.hpp: every weight tensor of a model, with the facts the planner needs to place
// it on GPUs. Names follow the Hugging Face checkpoint of each model_type; shapes are the
// checkpoint's ([out, in] for a Linear weight).

#include <cstdint>
#include <string>
#include <vector>

#include "ladle/model/model_spec.hpp"

namespace ladle::model {

/// Where in the model a tensor sits.
enum class TensorSection {
  embedding,   ///< the input embedding table
  layer,       ///< a decoder layer (TensorInfo::layer gives which)
  final_norm,  ///< the norm before the output head
  head,        ///< the output projection (lm_head)
  mtp,         ///< a multi-token-prediction layer, including its own projections and norms
};

/// What a tensor does.
enum class TensorRole {
  attention,      ///< q/k/v/o projections, MLA's q_a/q_b/kv_a/kv_b, their biases, sinks
  indexer,        ///< DeepSeek Sparse Attention indexer (wq_b, wk, k_norm, weights_proj)
  dense_mlp,      ///< the dense SwiGLU MLP
  expert,         ///< a routed expert
  shared_expert,  ///< the always-on shared expert(s)
  router,         ///< the router (gate) weight and bias
  correction_bias,  ///< the router's e_score_correction_bias (noaux_tc load balancing; a buffer)
  norm,           ///< RMSNorm/LayerNorm weights
  embedding,      ///< embedding table (also MTP copies)
  head,           ///< output head (also MTP copies)
  mtp_projection, ///< MTP's eh_proj joining the embedding and the hidden state
  hyper_connection, ///< hyper-connection mixing weights, biases and scales (DeepSeek-V4's hc_*)
  latent_projection,  ///< the projections into and out of latent experts (Kimi-K3's routed_expert_{down,up}_proj)
  attention_residual, ///< block attention residuals' scoring projections (Kimi-K3's *_res_proj)
};

/// How Megatron-style parallelism splits a tensor across GPUs.
enum class TensorSplit {
  tp_column,   ///< split along the output dimension by tensor parallelism (ColumnParallelLinear)
  tp_row,      ///< split along the input dimension by tensor parallelism (RowParallelLinear)
  ep,          ///< whole experts spread over expert-parallel ranks
  replicated,  ///< every TP rank holds the whole tensor (norms, routers, MLA's down-projections)
  vocab,       ///< split along the vocabulary by tensor parallelism (embedding, output head)
};

/// One weight tensor. Routed experts are one entry per layer and projection with
/// `copies` = number of experts, named with "{e}" in place of the expert index.
struct TensorInfo {
  std::string name;            ///< e.g. "model.layers.3.mlp.experts.{e}.gate_proj.weight"
  std::vector<int64_t> shape;  ///< one copy's shape
  int64_t copies = 1;          ///< identical-shape copies (routed experts: num_experts)
  int64_t active_copies = 1;   ///< copies one token multiplies through (experts: top-k)
  TensorSection section = TensorSection::layer;
  int layer = -1;  ///< decoder layer 0..L-1; MTP layer k is L + k; -1 outside layers
  TensorRole role = TensorRole::attention;
  TensorSplit split = TensorSplit::replicated;
  /// For split == ep: how expert tensor parallelism splits each expert (tp_column or tp_row).
  TensorSplit expert_split = TensorSplit::replicated;

  /// Elements of one copy.
  int64_t numel() const;
  /// Elements of all copies: numel() * copies.
  int64_t total_numel() const;
  /// Routed expert (split == ep).
  bool is_expert() const { return split == TensorSplit::ep; }
  /// A weight matrix (rank >= 2): what the N convention counts; biases, norms, sinks are rank 1.
  bool is_matrix() const { return shape.size() >= 2; }

  bool operator==(const TensorInfo&) const = default;
};

/// Every weight of `spec` in checkpoint order: embedding, layers 0..L-1, final norm, head, then
/// the MTP layers. Throws nothing for a ModelSpec that parse_config produced.
std::vector<TensorInfo> tensor_inventory(const ModelSpec& spec);

/// "embedding", "layer", "final_norm", "head", "mtp".
const char* to_string(TensorSection section);
/// "attention", "indexer", "dense_mlp", "expert", "shared_expert", "router", "correction_bias", ...
const char* to_string(TensorRole role);
/// "tp_column", "tp_row", "ep", "replicated", "vocab".
const char* to_string(TensorSplit split);

}  // namespace ladle::model
