// memory_model.cpp: per-GPU memory of each pipeline stage (see predictor.hpp for the model).
#include <algorithm>
#include <cmath>

#include <yaml-cpp/yaml.h>

#include <string>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/plan/cost_colocate.hpp"
#include "ladle/plan/cost_fp8_amax_history.hpp"
#include "ladle/plan/cost_grad_accum_fusion.hpp"
#include "ladle/plan/cost_compressed_attention.hpp"
#include "ladle/plan/cost_linear_attention.hpp"
#include "ladle/plan/cost_lora.hpp"
#include "ladle/plan/cost_mamba.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/memory_activations.hpp"
#include "ladle/plan/memory_buffers.hpp"
#include "ladle/hw/memory_facts.hpp"
#include "ladle/plan/memory_gradients.hpp"
#include "ladle/plan/memory_inputs.hpp"
#include "ladle/plan/memory_optimizer.hpp"
#include "ladle/plan/memory_schedule.hpp"
#include "ladle/plan/memory_weights.hpp"
#include "ladle/util/embedded.hpp"

namespace ladle::plan {

using namespace mem;  // the memory terms (memory_*.hpp)

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

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
  require_runs_precision(l, cluster.gpu);
  MemoryEstimate out;
  const hw::MemoryFacts& facts = hw::memory_facts();
  const Storage st = storage_of(l);
  const double tp = static_cast<double>(l.tp);
  const double sp_div = l.sp ? tp : 1.0;
  const double expert_div = static_cast<double>(l.ep * l.etp);
  const LoraKinds lora = lora_kinds(c, l);  // LoRA adapters (cost_lora.hpp): none at rank 0
  const MemoryInputs in = memory_inputs(c, l);  // the state terms' inputs (memory_inputs.hpp)
  const double imbalance = routed_imbalance(l, cal);  // memory_activations.hpp
  const double tokens = static_cast<double>(l.rows_per_mb * c.row_tokens) / static_cast<double>(l.cp);
  const double h = static_cast<double>(c.hidden);
  const int64_t pp = l.pp;
  const bool torch_selective = st.torch && l.recompute == RecomputeGranularity::selective;

  double kind_bytes[16] = {};
  double kind_full[16] = {};  // without checkpointing: what one layer's forward or recompute holds
  double largest_layer = 0;
  for (size_t k = 0; k < c.kinds.size() && k < 16; ++k) {
    kind_full[k] = layer_activation_bytes(c, c.kinds[k], l, st, imbalance) * tokens;
    kind_bytes[k] = kind_full[k];
    // torchtitan's op-level rule is written for its dense GQA layers; MoE and MLA layers under it
    // keep Megatron-LM's count (more than the rule would keep).
    if (torch_selective && !c.kinds[k].moe && !c.mla) kind_bytes[k] = torch_selective_bytes(c, l) * tokens;
    largest_layer = std::max(largest_layer, kind_full[k]);
  }
  const double layer_input = kBf16 * h / sp_div * tokens;
  // An MTP layer under full recompute keeps its two inputs: the hidden state and the embedding.
  double mtp_bytes = c.num_mtp_layers > 0 ? layer_activation_bytes(c, c.mtp, l, st, imbalance) * tokens : 0.0;
  if (l.recompute == RecomputeGranularity::full && c.num_mtp_layers > 0) mtp_bytes = 2 * layer_input;
  const BufferInputs buffers{.c = c, .l = l, .cluster = cluster, .facts = facts, .st = st, .tokens = tokens};
  const double nccl_bytes = nccl_buffer_bytes(buffers);

  // Interleaved 1F1B: the decoder layers of each virtual stage (v * pp + r on rank r), so each
  // rank's chunks hold the layer kinds Megatron-LM places there (DeepSeek-V3's dense first layers
  // sit on the first chunks of ranks 0 and 1, not all on rank 0).
  // DualPipe (DeepSeek-V3 report, section 3.2.1 and Table 2; deepseek-ai/DualPipe): rank r
  // holds the model's stages r and pp - 1 - r as its two chunks, so the embedding and the output
  // head (and MTP) sit on ranks 0 and pp - 1 both, and every stage's parameters are kept twice.
  const bool dualpipe = l.schedule == PipelineSchedule::dualpipe && pp > 1;
  std::vector<int64_t> chunk_begin;
  std::vector<int64_t> chunk_layers;
  if (dualpipe) {
    if (stages.size() == static_cast<size_t>(pp)) chunk_layers = stages;
  } else if (l.vpp > 1 && pp > 1) {
    chunk_layers = layout::virtual_stage_layers(l, c.num_layers);
    if (chunk_layers.size() != static_cast<size_t>(pp * l.vpp)) chunk_layers.clear();
  }
  int64_t at_layer = 0;
  for (int64_t layers : chunk_layers) {
    chunk_begin.push_back(at_layer);
    at_layer += layers;
  }
  const bool by_chunk = !chunk_layers.empty() && l.vpp <= 64;
  // The model stage (virtual stage under interleaving) that chunk j of pipeline rank s runs.
  const auto chunk_stage = [&](int64_t j, int64_t s) -> size_t {
    if (dualpipe) return static_cast<size_t>(j == 0 ? s : pp - 1 - s);
    return static_cast<size_t>(j * pp + s);
  };

  if (stage_memory) stage_memory->assign(static_cast<size_t>(pp), {});
  int64_t begin = 0;
  for (int64_t s = 0; s < pp; ++s) {
    const int64_t end = begin + stages[static_cast<size_t>(s)];
    // The decoder layers this rank holds: under DualPipe its two stages'.
    const int64_t n = dualpipe && by_chunk
                          ? stages[static_cast<size_t>(s)] + stages[static_cast<size_t>(pp - 1 - s)]
                          : stages[static_cast<size_t>(s)];
    const bool first = s == 0 || (dualpipe && s == pp - 1);
    const bool last = s == pp - 1 || (dualpipe && s == 0);
    double dense = 0;
    double expert = 0;
    LoraParams adapters;  // this rank's LoRA adapters
    double acts_one_mb = 0;
    double fp8_gemms = 0;  // Transformer Engine GEMMs under FP8 delayed scaling (cost_fp8_amax_history.hpp)
    // Per chunk of this rank (one chunk, the whole stage, without interleaving): its layers and
    // one microbatch's activations in them.
    StageChunks chunks;  // memory_schedule.hpp
    chunks.count = !by_chunk ? 1 : dualpipe ? 2 : std::min<int64_t>(l.vpp, 64);
    chunks.by_chunk = by_chunk;
    chunks.dualpipe = dualpipe;
    chunks.layers_here = n;
    chunks.rank = s;
    chunks.microbatches = microbatches;
    const int64_t chunks_here = chunks.count;
    std::array<double, 64>& chunk_acts = chunks.acts;
    std::array<double, 64>& chunk_n = chunks.layers;
    for (int64_t j = 0; j < chunks_here; ++j) {
      const size_t v = chunk_stage(j, s);
      const int64_t from = by_chunk ? chunk_begin[v] : begin;
      const int64_t to = by_chunk ? chunk_begin[v] + chunk_layers[v] : end;
      chunk_n[static_cast<size_t>(j)] = static_cast<double>(to - from);
      if (l.lora_rank > 0) {
        const LoraParams here = lora_params(c, lora, from, to, 0);
        adapters.dense += here.dense;
        adapters.expert += here.expert;
      }
      for (size_t k = 0; k < c.kinds.size(); ++k) {
        const double count = c.count(k, from, to);
        if (count == 0) continue;
        const LayerKind& kind = c.kinds[k];
        dense += count * (kind.tp_params / tp + kind.replicated_params);
        expert += count * kind.expert_params / expert_div;
        chunk_acts[static_cast<size_t>(j)] += count * kind_bytes[k];
        fp8_gemms += count * fp8_layer_gemms(kind, c, l);
      }
      acts_one_mb += chunk_acts[static_cast<size_t>(j)];
    }
    if (first) dense += c.embedding_params / tp + c.vision_params / tp;  // a VL workload's vision tower
    const double head = last ? c.head_params / tp : 0.0;
    if (last) {
      dense += head + c.final_norm_params;
      const double mtp_n = static_cast<double>(c.num_mtp_layers);
      dense += mtp_n * (c.mtp.tp_params / tp + c.mtp.replicated_params);
      expert += mtp_n * c.mtp.expert_params / expert_div;
      adapters.dense += mtp_n * lora.mtp.dense_params;
      adapters.expert += mtp_n * lora.mtp.expert_params;
    }
    acts_one_mb = checkpointed_activations(l, chunks, acts_one_mb, layer_input);  // full recompute
    // Layer-level CPU offloading (--cpu-offloading-num-layers N, pp 1 only): Transformer Engine's
    // offload handler (transformer_engine/pytorch/cpu_offload.py, get_cpu_offload_context, which
    // transformer_block.py calls with N and the model's layers) copies the activations of the
    // first N layers to pinned host memory as each layer's forward ends and brings them back one
    // layer ahead of the backward, so the GPU keeps the layers from N on and the one in flight.
    double offloaded_acts = 0;
    if (l.cpu_offload_layers > 0 && pp == 1) {
      const int64_t kept_from = std::clamp<int64_t>(l.cpu_offload_layers - 1, 0, n);
      double kept = 0;
      for (size_t k = 0; k < c.kinds.size(); ++k) kept += c.count(k, kept_from, n) * kind_bytes[k];
      offloaded_acts = std::max(0.0, acts_one_mb - kept);
      acts_one_mb = kept;
    }
    // The vision tower's activations for the microbatch's images (cost_vision), split by TP and CP.
    if (first) acts_one_mb += static_cast<double>(l.rows_per_mb) * c.vision_activation_bytes_per_row / (tp * static_cast<double>(l.cp));
    // Microbatches in flight on the rank (memory_schedule.hpp).
    const HeldActivations in_flight = held_activations(l, chunks, acts_one_mb);
    const double acts_held = in_flight.acts;
    const double layers_held = in_flight.layers;

    std::array<double, kMemoryParts> part{};
    auto at = [&part](MemoryPart p) -> double& { return part[static_cast<size_t>(p)]; };
    const StageParams held{.dense = dense,
                           .expert = expert,
                           .head = head,
                           .embedding = first ? c.embedding_params / tp : 0.0,
                           .layers = n,
                           .adapters = adapters};
    at(MemoryPart::weights) = weights_bytes(l, in, held);
    at(MemoryPart::gradients) = gradients_bytes(l, in, held);
    at(MemoryPart::optimizer_states) = optimizer_state_bytes(l, in, held);
    double acts = acts_held;
    // The backward's working set: what one recompute unit holds again (memory_schedule.hpp).
    double working = recompute_unit_bytes(l, chunks, largest_layer);
    if (last) {
      acts += static_cast<double>(c.num_mtp_layers) * mtp_bytes;
      at(MemoryPart::logits) = logits_bytes(c, l, st, tokens);  // memory_activations.hpp
      // The loss's tensors are freed before the first layer's backward recomputes: the working
      // set counts only what a layer needs beyond them.
      working = std::max(0.0, working - at(MemoryPart::logits));
    }
    // Without gradient-accumulation fusion a 16-bit weight gradient waits in backward for the hook
    // that adds it into the main gradient (cost_grad_accum_fusion.hpp); LoRA's frozen base computes
    // none.
    if (!st.torch) {
      working += unfused_grad_accum_bytes(l.grad_accum_fusion || l.lora_rank > 0, largest_weight_shard(c, l, last),
                                          kBf16);
    }
    at(MemoryPart::activations) = acts;
    at(MemoryPart::working_set) = working;
    at(MemoryPart::dispatch_buffers) = dispatch_buffer_bytes(buffers);
    at(MemoryPart::tp_overlap_buffers) = tp_overlap_buffer_bytes(buffers);
    at(MemoryPart::cuda_graphs) = cuda_graph_bytes(l, layer_input, static_cast<double>(n), layers_held);
    at(MemoryPart::workspaces) = workspace_bytes(buffers, fp8_gemms);
    // Allocator slack with expandable segments: a fraction of what is allocated and freed within
    // each step (activations, logits, the working set, graph buffers).
    at(MemoryPart::allocator_slack) =
        cal.allocator_slack * (acts + working + at(MemoryPart::logits) + at(MemoryPart::cuda_graphs));
    at(MemoryPart::nccl_buffers) = nccl_bytes;
    at(MemoryPart::cuda_context) = cuda_context_bytes(buffers);
    double total = 0;
    double allocator = 0;
    for (size_t i = 0; i < kMemoryParts; ++i) {
      total += part[i];
      if (counted_by_allocator(static_cast<MemoryPart>(i), l)) allocator += part[i];
    }
    if (stage_memory) (*stage_memory)[static_cast<size_t>(s)] = part;
    if (total > out.worst_bytes) {
      out.worst_bytes = total;
      out.worst = part;
      out.worst_stage = s;
    }
    out.allocator_bytes = std::max(out.allocator_bytes, allocator);
    // Host: the offloaded optimizer fraction (memory_optimizer.hpp); the offloaded activations sit in
    // pinned host memory beside it.
    const double host =
        (offloaded_state_bytes(l, in, held) + offloaded_acts) * static_cast<double>(cluster.gpus_per_node());
    out.host_bytes_per_node = std::max(out.host_bytes_per_node, host);
    begin = end;
  }
  return out;
}

bool counted_by_allocator(MemoryPart part, const Layout& layout) {
  switch (part) {
    case MemoryPart::nccl_buffers:
    case MemoryPart::cuda_context:
    case MemoryPart::tp_overlap_buffers: return false;
    case MemoryPart::dispatch_buffers: return layout.dispatcher != MoeDispatcher::flex;
    default: return true;
  }
}

}  // namespace ladle::plan
