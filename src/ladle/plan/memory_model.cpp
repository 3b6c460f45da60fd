// memory_model.cpp: per-GPU memory of each pipeline stage (see predictor.hpp for the model).
#include <algorithm>
#include <cmath>

#include <yaml-cpp/yaml.h>

#include <string>

#include "ladle/plan/predictor.hpp"
#include "ladle/util/embedded.hpp"

namespace ladle::plan {

namespace {

constexpr double kBf16 = 2;
constexpr double kFp32 = 4;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double dtype_bytes(StateDtype dtype) {
  switch (dtype) {
    case StateDtype::fp32: return 4;
    case StateDtype::bf16:
    case StateDtype::fp16: return 2;
    case StateDtype::fp8: return 1;
  }
  return 4;
}

// Activation bytes one layer of `kind` keeps per token of the microbatch (per CP rank), term by
// term as Megatron-LM's layers save them for backward (megatron/core/transformer/*; the counts
// follow Korthikanti et al. 2022, arXiv 2205.05198, section 4, without dropout masks: every
// recipe ladle writes trains without dropout).
double layer_activation_bytes(const ModelCosts& c, const LayerKind& kind, const Layout& l, double imbalance) {
  const double tp = static_cast<double>(l.tp);
  const double sp_div = l.sp ? tp : 1.0;
  const double h = static_cast<double>(c.hidden);
  const double heads = static_cast<double>(c.heads);
  double elements = 2 * h / sp_div;  // the two norms' inputs (the residual stream)
  if (c.mla) {
    // multi_latent_attention.py: the down-projections are replicated linears that run on the
    // s/TP tokens of the sequence-parallel region, so their input, outputs and the latent norms'
    // outputs are all s/TP under SP; the up-projections' inputs are gathered again in backward.
    elements += h / sp_div;                                                                   // down-projection input
    elements += static_cast<double>(c.q_lora_rank + c.kv_lora_rank + c.rope_dim) / sp_div;  // down outputs
    elements += static_cast<double>(c.q_lora_rank + c.kv_lora_rank) / sp_div;               // normed latents
    elements += heads * static_cast<double>(c.qk_head_dim) / tp;                            // q
    elements += heads * static_cast<double>(c.qk_head_dim + c.v_head_dim) / tp;             // k, v
    elements += heads * static_cast<double>(c.v_head_dim) / tp;                             // attention output
  } else {
    const double d = static_cast<double>(c.head_dim);
    const double kv = static_cast<double>(c.kv_heads);
    elements += h / sp_div;                          // qkv input
    elements += (heads + 2 * kv) * d / tp;           // q, k, v (flash attention's inputs)
    if (c.qk_norm) elements += (heads + kv) * d / tp;  // q/k-norm inputs (Qwen3's per-head RMSNorm)
    elements += heads * d / tp;                      // attention output (the projection's input)
  }
  if (kind.indexer) elements += static_cast<double>(c.index_heads * c.index_head_dim + c.index_head_dim);
  double bytes = elements * kBf16;
  if (!kind.moe) {
    // Dense SwiGLU MLP: fc1 input, fc1 output (gate and up, 2 x ffn) and the activation's output.
    bytes += kBf16 * (h / sp_div + 3 * static_cast<double>(c.ffn) / tp);
    return bytes;
  }
  const double etp = static_cast<double>(l.etp);
  bytes += kBf16 * h / sp_div + kFp32 * static_cast<double>(c.experts) / sp_div;  // router input, logits
  // Routed copies held per GPU for each token of the microbatch: top-k spread over the TP ranks'
  // shares, each ETP rank seeing its experts' tokens; the busiest rank holds `imbalance` times
  // the mean (1.0 under --moe-router-force-load-balancing).
  const double copies = static_cast<double>(c.top_k) * etp / tp * imbalance;
  // moe/experts.py TEGroupedMLP.forward: per copy the backward keeps fc1's input (h), fc1's
  // output (2 x ffn, gate and up) and the activation's output (ffn); the router probabilities are
  // applied inside the activation (bias_swiglu / weighted_squared_relu), so no second h-sized
  // tensor per copy.
  bytes += copies * kBf16 * (h + 3 * static_cast<double>(c.moe_ffn) / etp);
  if (c.shared_ffn > 0) bytes += kBf16 * (h / sp_div + 3 * static_cast<double>(c.shared_ffn) / tp);
  return bytes;
}

}  // namespace

double hbm_capacity_gib(const GpuSpec& gpu) {
  struct DriverCapacity {
    std::string name;
    double marketed_gb = 0;
    double driver_mib = 0;
  };
  // data/hw/hbm_capacity.yaml: what nvidia-smi reports, per GPU (parsed once).
  static const std::vector<DriverCapacity> table = [] {
    std::vector<DriverCapacity> out;
    const std::optional<std::string_view> text = util::find_embedded("data/hw/hbm_capacity.yaml");
    if (!text) return out;
    const YAML::Node root = YAML::Load(std::string(*text));
    for (const YAML::Node& g : root["gpus"]) {
      out.push_back({g["name"].as<std::string>(), g["marketed_gb"].as<double>(), g["driver_mib"].as<double>()});
    }
    return out;
  }();
  for (const DriverCapacity& d : table) {
    if (d.name == gpu.name && d.marketed_gb == gpu.hbm_gb) return d.driver_mib / 1024.0;
  }
  return gpu.hbm_gb * 1e9 / kGiB;
}

MemoryEstimate estimate_memory(const ModelCosts& c, const Layout& l, const std::vector<int64_t>& stages,
                               int64_t microbatches, const Cluster& cluster, const Calibration& cal,
                               std::vector<std::array<double, kMemoryParts>>* stage_memory) {
  MemoryEstimate out;
  const double tp = static_cast<double>(l.tp);
  const double sp_div = l.sp ? tp : 1.0;
  const double expert_div = static_cast<double>(l.ep * l.etp);
  // Optimizer states are sharded over the data-parallel ranks by the distributed optimizer or
  // FSDP (dense over DP x CP, experts over EDP), and held whole on every rank otherwise.
  const bool fsdp = l.fsdp != Fsdp::none;
  const bool shard_states = l.dist_opt || fsdp;
  const double dense_shards = shard_states ? static_cast<double>(l.dp * l.cp) : 1.0;
  const double expert_shards = shard_states ? static_cast<double>(std::max<int64_t>(1, l.edp())) : 1.0;
  // Master weights and the two Adam moments in the dtypes the knobs give (--main-params-dtype,
  // --exp-avg-dtype, --exp-avg-sq-dtype; theoretical_memory_usage.py counts 12 bytes for FP32).
  const double state_bytes = dtype_bytes(l.main_params) + dtype_bytes(l.moments) + dtype_bytes(l.moments_sq);
  // The gradient buffer: FP32 unless --grad-reduce-in-bf16 (distributed/param_and_grad_buffer.py
  // allocates it in the reduce dtype; Megatron-Bridge's grad_reduce_in_fp32=False does the same).
  const double grad_bytes = dtype_bytes(l.grad_reduce);
  // FSDP shards weights and gradients too: Megatron-FSDP by its sharding strategy, PyTorch FSDP2
  // (torchtitan, NeMo AutoModel) fully, keeping FP32 sharded parameters it casts to BF16 per layer.
  const bool shard_grads = fsdp && (l.fsdp == Fsdp::torch || l.fsdp_sharding == FsdpSharding::optim_grads ||
                                    l.fsdp_sharding == FsdpSharding::optim_grads_params);
  const bool shard_weights =
      fsdp && (l.fsdp == Fsdp::torch || l.fsdp_sharding == FsdpSharding::optim_grads_params);
  // Weights: BF16, or FP8 with --fp8-param-gather; other FP8 recipes keep an FP8 copy and its
  // transpose beside the BF16 weights (Transformer Engine's cached FP8 weights).
  const bool fp8 = l.fp8 != Fp8Format::none;
  const double weight_bytes = l.fp8_param_gather ? 1.0 : kBf16;
  const double fp8_weight_copies = fp8 && !l.fp8_param_gather ? 2.0 : 0.0;
  const double imbalance = l.force_balance ? 1.0 : cal.moe_memory_imbalance;
  const double tokens = static_cast<double>(l.rows_per_mb * c.row_tokens) / static_cast<double>(l.cp);
  const double h = static_cast<double>(c.hidden);
  const int64_t pp = l.pp;
  const double vpp = static_cast<double>(l.vpp);

  double kind_bytes[16] = {};
  double largest_layer = 0;
  for (size_t k = 0; k < c.kinds.size() && k < 16; ++k) {
    kind_bytes[k] = layer_activation_bytes(c, c.kinds[k], l, imbalance) * tokens;
    largest_layer = std::max(largest_layer, kind_bytes[k]);
  }
  const double layer_input = kBf16 * h / sp_div * tokens;
  // An MTP layer under full recompute keeps its two inputs: the hidden state and the embedding.
  double mtp_bytes = c.num_mtp_layers > 0 ? layer_activation_bytes(c, c.mtp, l, imbalance) * tokens : 0.0;
  if (l.recompute == RecomputeGranularity::full && c.num_mtp_layers > 0) mtp_bytes = 2 * layer_input;

  if (stage_memory) stage_memory->assign(static_cast<size_t>(pp), {});
  int64_t begin = 0;
  for (int64_t s = 0; s < pp; ++s) {
    const int64_t n = stages[static_cast<size_t>(s)];
    const int64_t end = begin + n;
    const bool first = s == 0;
    const bool last = s == pp - 1;
    double dense = 0;
    double expert = 0;
    double acts_one_mb = 0;
    for (size_t k = 0; k < c.kinds.size(); ++k) {
      const double count = c.count(k, begin, end);
      if (count == 0) continue;
      const LayerKind& kind = c.kinds[k];
      dense += count * (kind.tp_params / tp + kind.replicated_params);
      expert += count * kind.expert_params / expert_div;
      acts_one_mb += count * kind_bytes[k];
    }
    if (first) dense += c.embedding_params / tp;
    if (last) {
      dense += c.head_params / tp + c.final_norm_params;
      const double mtp_n = static_cast<double>(c.num_mtp_layers);
      dense += mtp_n * (c.mtp.tp_params / tp + c.mtp.replicated_params);
      expert += mtp_n * c.mtp.expert_params / expert_div;
    }
    if (l.recompute == RecomputeGranularity::full) {
      const double chunk_layers = static_cast<double>(n) / vpp;
      const double r = static_cast<double>(l.recompute_layers);
      if (l.recompute_method == RecomputeMethod::uniform) {
        acts_one_mb = std::ceil(chunk_layers / r) * vpp * layer_input;
      } else {
        const double kept_fraction = std::max(0.0, chunk_layers - r) / std::max(1.0, chunk_layers);
        acts_one_mb = acts_one_mb * kept_fraction + std::min(r, chunk_layers) * vpp * layer_input;
      }
    }
    // Microbatches in flight on stage s (in whole-stage units). 1F1B: pipeline rank s keeps pp - s.
    // Interleaved 1F1B (pipeline_parallel/schedules.py, warm-up of
    // forward_backward_pipelining_with_interleaving): rank s runs 2 (pp - s - 1) + (v - 1) G + 1
    // model chunks forward before its first backward (G = microbatch group size, pp by default),
    // each chunk holding 1/v of the stage's layers.
    double in_flight = static_cast<double>(std::min<int64_t>(microbatches, pp - s));
    if (l.vpp > 1) {
      // --overlap-moe-expert-parallel-comm runs one more chunk forward to overlap with.
      const double chunks = 2.0 * static_cast<double>(pp - s - 1) + (vpp - 1) * static_cast<double>(pp) + 1 +
                            (l.a2a_overlap ? 1.0 : 0.0);
      in_flight = std::min(chunks, static_cast<double>(microbatches) * vpp) / vpp;
    }
    if (pp == 1) in_flight = 1;

    std::array<double, kMemoryParts> part{};
    const double params = dense + expert;
    const double shard = dense / dense_shards + expert / expert_shards;
    // FSDP gathers one layer's weights (and the prefetched next one) and holds one layer's
    // unsharded gradients before its reduce-scatter.
    const double layer_params = n > 0 ? params / static_cast<double>(n) : 0.0;
    const double fp8_copies = fp8_weight_copies * (dense - (first ? c.embedding_params / tp : 0.0) -
                                                   (last ? c.head_params / tp : 0.0)) +
                              fp8_weight_copies * expert;
    if (shard_weights) {
      const double master = l.fsdp == Fsdp::torch ? kFp32 : weight_bytes;
      part[static_cast<size_t>(MemoryPart::weights)] =
          master * shard + 2 * weight_bytes * layer_params + fp8_copies / std::max(1.0, dense_shards);
    } else {
      part[static_cast<size_t>(MemoryPart::weights)] = weight_bytes * params + fp8_copies;
    }
    part[static_cast<size_t>(MemoryPart::gradients)] =
        shard_grads ? (l.fsdp == Fsdp::torch ? kFp32 : grad_bytes) * shard + grad_bytes * layer_params
                    : grad_bytes * params;
    // FSDP2 keeps the FP32 master in the sharded parameter itself: only the moments remain.
    const double states = l.fsdp == Fsdp::torch ? dtype_bytes(l.moments) + dtype_bytes(l.moments_sq) : state_bytes;
    part[static_cast<size_t>(MemoryPart::optimizer_states)] = (1.0 - l.offload) * shard * states;
    double acts = acts_one_mb * in_flight;
    double working = l.recompute == RecomputeGranularity::full
                         ? largest_layer * static_cast<double>(l.recompute_layers)
                         : largest_layer;
    if (last) {
      acts += static_cast<double>(c.num_mtp_layers) * mtp_bytes;
      // Logits: BF16 for the head and each MTP head, plus the FP32 copy the unfused loss works on
      // (tensor_parallel/cross_entropy.py); Transformer Engine's fused loss (--cross-entropy-loss-fusion
      // --cross-entropy-fusion-impl te) computes in place and keeps none.
      const bool te_loss = l.ce_fusion && l.ce_impl == CrossEntropyImpl::te;
      part[static_cast<size_t>(MemoryPart::logits)] =
          tokens * static_cast<double>(c.vocab) / tp *
          (kBf16 * static_cast<double>(1 + c.num_mtp_layers) + (te_loss ? 0.0 : kFp32));
    }
    part[static_cast<size_t>(MemoryPart::activations)] = acts;
    part[static_cast<size_t>(MemoryPart::working_set)] = working;
    if (c.experts > 0) {
      part[static_cast<size_t>(MemoryPart::dispatch_buffers)] =
          l.dispatcher == MoeDispatcher::flex
              ? cal.deepep_buffer_gib * kGiB
              : 2 * kBf16 * h * tokens / tp * static_cast<double>(c.top_k) * static_cast<double>(l.etp);
    }
    part[static_cast<size_t>(MemoryPart::framework)] = cal.framework_memory_gib * kGiB;
    part[static_cast<size_t>(MemoryPart::fragmentation)] =
        cal.fragmentation * (acts + working + part[static_cast<size_t>(MemoryPart::logits)]);
    double total = 0;
    for (double v : part) total += v;
    if (stage_memory) (*stage_memory)[static_cast<size_t>(s)] = part;
    if (total > out.worst_bytes) {
      out.worst_bytes = total;
      out.worst = part;
      out.worst_stage = s;
    }
    // Host: FP32 master and moments of the offloaded fraction, plus its FP32 gradient copy.
    const double host = l.offload * shard * (state_bytes + kFp32) * static_cast<double>(cluster.gpus_per_node());
    out.host_bytes_per_node = std::max(out.host_bytes_per_node, host);
    begin = end;
  }
  return out;
}

}  // namespace ladle::plan
