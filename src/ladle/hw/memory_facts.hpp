#pragma once
// memory_facts.hpp: the published figures the memory model adds beside the model's own tensors
// (data/hw/memory_facts.yaml): the CUDA context, NCCL's communicator buffers, cuBLAS and
// Transformer Engine workspaces, Transformer Engine's TP-overlap userbuffers and DeepEP's and
// HybridEP's buffers.

#include <cstdint>
#include <map>
#include <utility>

namespace ladle::hw {

/// DeepEP's buffer size rule (csrc/legacy/config.hpp) and the configs Megatron-LM asks it for.
struct DeepEpFacts {
  int64_t num_sms = 20;           ///< SMs of the high-throughput kernels; channels = num_sms / 2
  int64_t nvl_peers = 8;          ///< ranks one NVLink domain of DeepEP holds
  int64_t source_meta_bytes = 8;  ///< per token
  int64_t topk_idx_bytes = 8;
  int64_t max_topk = 128;
  int64_t max_scales = 128;
  /// group size -> {NVLink recv tokens, RDMA recv tokens} per channel and peer.
  std::map<int64_t, std::pair<int64_t, int64_t>> recv_tokens;
  bool operator==(const DeepEpFacts&) const = default;
};

/// HybridEP's buffer sizes (DeepEP's hybrid-ep branch, csrc/hybrid_ep/buffer/intranode.cu and
/// internode_doca.cu): per NVLink domain one token, probability and FP8-scale buffer for the
/// worst case of every token of the group routed to one rank; across domains the RDMA staging.
struct HybridEpFacts {
  int64_t token_bytes = 2;      ///< BF16 tokens (HybridEP does not dispatch FP8 under Megatron-LM)
  int64_t prob_bytes = 4;       ///< FP32 routing probabilities
  int64_t scaling_block = 128;  ///< elements per FP8 scaling factor
  int64_t scaling_bytes = 4;    ///< FP32 scaling factors
  bool shared_buffer = true;    ///< HybridEPBuffer(use_shared_buffer=True): dispatch reuses combine's
  bool operator==(const HybridEpFacts&) const = default;
};

/// The figures of data/hw/memory_facts.yaml.
struct MemoryFacts {
  double cuda_context_mib = 0;
  double nccl_buffsize_mib = 0;
  int64_t nccl_channels = 0;
  int64_t nccl_peers_per_channel = 0;
  double workspaces_mib = 0;
  int64_t tp_overlap_buffers = 0;  ///< userbuffers of the layer input shape under --tp-comm-overlap
  DeepEpFacts deepep;
  HybridEpFacts hybridep;
  bool operator==(const MemoryFacts&) const = default;
};

/// The embedded data/hw/memory_facts.yaml (parsed once). Throws Error(internal) when the
/// embedded file is missing or malformed.
const MemoryFacts& memory_facts();

/// Bytes of DeepEP's NVLink plus RDMA buffers per GPU for an expert group of `group` ranks and
/// `hidden_bytes` per token (Megatron-LM's get_buffer: the larger of the dispatch and combine
/// configs). A group size DeepEP has no config for takes the next larger one listed (the largest
/// when beyond the table).
double deepep_buffer_bytes(const DeepEpFacts& facts, int64_t group, double hidden_bytes);

/// Bytes of HybridEP's buffers per GPU for an expert group of `group` ranks of which `domain`
/// share an NVLink domain, `tokens` tokens per rank (the dispatcher's input), `hidden` elements
/// per token and `local_experts` experts per rank (Megatron-LM's init_hybrid_ep_buffer sizes it
/// from the first dispatch's input).
double hybridep_buffer_bytes(const HybridEpFacts& facts, int64_t group, int64_t domain, double tokens, double hidden,
                             double local_experts);

}  // namespace ladle::hw
