#include "ladle/hw/memory_facts.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"

namespace ladle::hw {

namespace {

MemoryFacts parse_memory_facts() {
  const std::optional<std::string_view> text = util::find_embedded("data/hw/memory_facts.yaml");
  if (!text) throw Error(ErrorKind::internal, "data/hw/memory_facts.yaml is not embedded");
  try {
    const YAML::Node root = YAML::Load(std::string(*text));
    MemoryFacts f;
    f.cuda_context_mib = root["cuda_context_mib"].as<double>();
    f.nccl_buffsize_mib = root["nccl"]["buffsize_mib"].as<double>();
    f.nccl_channels = root["nccl"]["channels"].as<int64_t>();
    f.nccl_peers_per_channel = root["nccl"]["peers_per_channel"].as<int64_t>();
    f.workspaces_mib = root["workspaces_mib"].as<double>();
    f.tp_overlap_buffers = root["tp_overlap_buffers"].as<int64_t>();
    const YAML::Node d = root["deepep"];
    f.deepep.num_sms = d["num_sms"].as<int64_t>();
    f.deepep.nvl_peers = d["nvl_peers"].as<int64_t>();
    f.deepep.source_meta_bytes = d["source_meta_bytes"].as<int64_t>();
    f.deepep.topk_idx_bytes = d["topk_idx_bytes"].as<int64_t>();
    f.deepep.max_topk = d["max_topk"].as<int64_t>();
    f.deepep.max_scales = d["max_scales"].as<int64_t>();
    for (const auto& entry : d["recv_tokens"]) {
      f.deepep.recv_tokens[entry.first.as<int64_t>()] = {entry.second[0].as<int64_t>(), entry.second[1].as<int64_t>()};
    }
    const YAML::Node hy = root["hybridep"];
    f.hybridep.token_bytes = hy["token_bytes"].as<int64_t>();
    f.hybridep.prob_bytes = hy["prob_bytes"].as<int64_t>();
    f.hybridep.scaling_block = hy["scaling_block"].as<int64_t>();
    f.hybridep.scaling_bytes = hy["scaling_bytes"].as<int64_t>();
    f.hybridep.shared_buffer = hy["shared_buffer"].as<bool>();
    if (f.hybridep.scaling_block < 1) throw Error(ErrorKind::internal, "data/hw/memory_facts.yaml: hybridep scaling_block");
    if (f.deepep.recv_tokens.empty() || f.deepep.nvl_peers < 1 || f.deepep.num_sms < 2) {
      throw Error(ErrorKind::internal, "data/hw/memory_facts.yaml: deepep needs recv_tokens, nvl_peers and num_sms");
    }
    return f;
  } catch (const YAML::Exception& e) {
    throw Error(ErrorKind::internal, fmt::format("data/hw/memory_facts.yaml: {}", e.what()));
  }
}

}  // namespace

const MemoryFacts& memory_facts() {
  static const MemoryFacts facts = parse_memory_facts();
  return facts;
}

double deepep_buffer_bytes(const DeepEpFacts& f, int64_t group, double hidden_bytes) {
  if (group < 2) return 0;
  auto it = f.recv_tokens.lower_bound(group);
  if (it == f.recv_tokens.end()) it = std::prev(f.recv_tokens.end());
  const double nvl_recv = static_cast<double>(it->second.first);
  const double rdma_recv = static_cast<double>(it->second.second);
  const double channels = static_cast<double>(f.num_sms / 2);
  const double peers = static_cast<double>(f.nvl_peers);
  const double nvl_ranks = static_cast<double>(std::min(group, f.nvl_peers));
  const double rdma_ranks = static_cast<double>(std::max<int64_t>(group / f.nvl_peers, 1));
  const double int_bytes = 4;
  const double meta = static_cast<double>(f.source_meta_bytes);
  const double topk = static_cast<double>(f.max_topk);
  const double scales = static_cast<double>(f.max_scales);
  const double topk_idx = static_cast<double>(f.topk_idx_bytes);
  // Config::get_nvl_buffer_size_hint: per channel and NVLink rank, counters plus the received
  // tokens' hidden bytes, source meta, top-k indices and weights and the FP8 scales.
  double nvl = channels * nvl_ranks * (2 * rdma_ranks + 3) * int_bytes;
  nvl += channels * nvl_ranks * nvl_recv * (hidden_bytes + meta + topk * topk_idx + topk * 4 + scales * 4);
  // Config::get_rdma_buffer_size_hint: none within one NVLink domain; else per channel and RDMA
  // rank, send and receive halves of the same per-token record plus a 16-byte tail.
  double rdma = 0;
  if (group > f.nvl_peers) {
    rdma = channels * rdma_ranks * (peers * 2 + 2) * 2 * int_bytes;
    rdma += channels * rdma_ranks * rdma_recv * 2 * (hidden_bytes + meta + topk * topk_idx + topk * 4 + scales * 4 + 16);
  }
  return nvl + rdma;
}

double hybridep_buffer_bytes(const HybridEpFacts& f, int64_t group, int64_t domain, double tokens, double hidden,
                             double local_experts) {
  if (group < 2) return 0;
  const double per_domain = static_cast<double>(std::clamp<int64_t>(domain, 1, group));
  const double domains = std::max(1.0, std::ceil(static_cast<double>(group) / per_domain));
  const double token = static_cast<double>(f.token_bytes);
  const double prob = static_cast<double>(f.prob_bytes);
  const double scales = hidden / static_cast<double>(f.scaling_block) * static_cast<double>(f.scaling_bytes);
  // NVLCoordinator: max_num_of_tokens = tokens per rank x ranks per domain x domains ("all
  // tokens are routed to the same expert"); combine's token (uint16) and probability buffers,
  // which dispatch shares under use_shared_buffer, and dispatch's scaling factors.
  const double most = tokens * per_domain * domains;
  const double domain_probs = local_experts * per_domain;
  double bytes = (f.shared_buffer ? 1.0 : 2.0) * most * (hidden * token + domain_probs * prob) + most * scales;
  if (domains > 1) {
    // RDMACoordinator: dispatch's attention-side input (token, probabilities over the whole
    // group, scales) and the inter-domain group buffers for the other domains; combine's
    // intra-domain reduction and inter-domain group buffers (token and probabilities).
    const double others = domains - 1;
    bytes += tokens * (hidden * token + local_experts * per_domain * domains * prob + scales);
    bytes += tokens * others * (hidden * token + domain_probs * prob + scales);
    bytes += 2 * tokens * others * (hidden * token + domain_probs * prob);
  }
  return bytes;
}

}  // namespace ladle::hw
