#pragma once
// predictor.hpp: the memory model and the time model of one layout, and the Prediction built from
// them. The estimate_* functions allocate nothing and name nothing, so the search can call them
// millions of times; predict() names every part for reports.
//
// Memory (per GPU, each pipeline stage, worst one reported): BF16 (or FP8) weights and FP8 copies;
// gradient buffers in the reduce dtype (FP32, BF16 with --grad-reduce-in-bf16); master weights
// and Adam moments in their dtypes, sharded by the distributed optimizer or FSDP (dense over
// DP x CP, experts over EDP; FSDP shards weights and gradients too), the offloaded fraction on the
// host; activations per microbatch from each layer's tensors (MLA or
// GQA attention, dense MLP, routed and shared experts, with TP / SP / CP / ETP splits and
// full recompute keeping only layer inputs), times the microbatches in flight on the stage (1F1B:
// pp - stage; interleaved: Megatron-LM's 1 + (pp-1)/(pp*vpp) penalty); logits and the MTP layer
// on the last stage; one layer's working set; MoE dispatch buffers (DeepEP's by its size rule);
// TP-overlap userbuffers; CUDA-graph static buffers; cuBLAS / TE workspaces; allocator slack;
// NCCL's communicator buffers and the CUDA context (memory_model.cpp cites each term's source;
// data/hw/memory_facts.yaml holds the figures). Selective recompute (core attention) saves nothing with flash attention, which already
// keeps no score matrix.
//
// Time (per step): each GEMM as roofline-additive compute + HBM traffic + a kernel's fixed cost;
// grouped expert GEMMs get slower per FLOP as tokens per expert shrink (the weights' traffic stays);
// flash attention at its own efficiency (backward 2.5x forward); memory-bound elementwise work; TP
// all-gather/reduce-scatter (SP) or all-reduce over NVLink; the MoE all-to-all (or all-gather, or
// DeepEP's one copy per node) split into NVLink and network parts; CP key/value exchange beyond
// what attention hides; pipeline point-to-point; the 1F1B / interleaved bubble from the slowest
// stage; DP gradient reduce-scatter and parameter all-gather; the optimizer step on the GPU
// (HBM-bound) and on the host (Adam throughput per node, device-host copies, overlapped or not).

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "ladle/layout/layout.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/prediction.hpp"

namespace ladle::plan {

/// Memory parts, in report order.
enum class MemoryPart {
  weights, gradients, optimizer_states, activations, logits, working_set, dispatch_buffers,
  tp_overlap_buffers, cuda_graphs, workspaces, allocator_slack, nccl_buffers, cuda_context, count
};
/// Step-time parts, in report order.
enum class TimePart {
  dense_gemm, expert_gemm, attention, elementwise, recompute, tp_comm, ep_comm, cp_comm, pp_p2p,
  host_launches, activation_offload, pipeline_bubble, dp_comm, optimizer_gpu, optimizer_cpu, host_copies, step_host, count
};

/// The forward pass's share of a part of a chunk's time, as the time model prices them: a GEMM's
/// backward is dgrad + wgrad (2x its forward), flash attention's 2.5x, the memory-bound work's 2x;
/// a collective or transfer runs once each way; recompute, the bubble, DP communication, the
/// optimizer and host copies have no forward share (0). `attention_backward` is the flash
/// backward's time over its forward as the step was priced (Rates::attention_backward: 2.5, less
/// where a GPU runs the softmax's exponentials faster).
double forward_share(TimePart part, double attention_backward);
inline constexpr size_t kMemoryParts = static_cast<size_t>(MemoryPart::count);
inline constexpr size_t kTimeParts = static_cast<size_t>(TimePart::count);

/// "weights", "gradients", ... (the names reports and recipes use).
const char* to_string(MemoryPart part);
/// "dense GEMM", "expert GEMM", ...
const char* to_string(TimePart part);

/// The memory of the worst stage, bytes.
struct MemoryEstimate {
  std::array<double, kMemoryParts> worst{};  ///< parts of the worst stage
  double worst_bytes = 0;
  int64_t worst_stage = 0;
  /// The largest stage's share that PyTorch's caching allocator holds (what max reserved
  /// measures): everything but the CUDA context, NCCL's buffers, TE's userbuffers and DeepEP's.
  double allocator_bytes = 0;
  double host_bytes_per_node = 0;  ///< offloaded optimizer states of one node
};

/// The step time by part, seconds.
struct TimeEstimate {
  std::array<double, kTimeParts> parts{};
  double step_s = 0;
  double optimizer_shard_params = 0;  ///< parameters whose optimizer states one GPU updates (worst stage)
  double attention_backward = 0;      ///< flash backward time over forward as priced (Rates)
};

/// Device-host bytes/s one way per GPU, for activation offload, the offloaded optimizer and RL's
/// weight copies alike: the GPU's own link where it is not PCIe (NVLink-C2C on a Grace system,
/// collectives.yaml host_links), else the calibration's PCIe figure.
double device_host_bytes_per_s(const GpuSpec& gpu, const Calibration& cal);

/// Re-prices the optimizer parts of `time` for `offload` (fraction on the host), `overlap` and the
/// moment dtype: what estimate_time would give for the same layout with those optimizer knobs.
void apply_offload(TimeEstimate& time, double offload, bool overlap, StateDtype moments, const Cluster& cluster,
                   const Calibration& calibration);

/// Memory of `layout` (resolved and valid, stages from layout::stage_layers).
/// `stage_memory` (optional, size pp) receives every stage's parts.
MemoryEstimate estimate_memory(const ModelCosts& costs, const Layout& layout,
                               const std::vector<int64_t>& stages, int64_t microbatches,
                               const Cluster& cluster, const Calibration& calibration,
                               std::vector<std::array<double, kMemoryParts>>* stage_memory = nullptr);

/// Whether PyTorch's caching allocator holds `part` (torch.cuda.max_memory_reserved sees it) for
/// `layout`: false for the CUDA context, NCCL's buffers, TE's TP-overlap userbuffers and the flex
/// dispatcher's DeepEP buffers, which are allocated beside it.
bool counted_by_allocator(MemoryPart part, const Layout& layout);

/// Step time of `layout` (resolved and valid).
TimeEstimate estimate_time(const ModelCosts& costs, const Layout& layout, const std::vector<int64_t>& stages,
                           int64_t microbatches, const Cluster& cluster, const Workload& workload,
                           const Calibration& calibration);

/// The context every command checks a layout of `model` against on `cluster` for `workload`
/// (layout::checking_context: the GPU count and NVLink domain, the rows, the model's layers and the
/// precisions the GPU runs). The one place predict, plan, check, calibrate and tune get it from.
layout::LayoutContext checking_context(const ModelSpec& model, const Cluster& cluster, const Workload& workload);

/// The full, named prediction. `layout` must be resolved; throws Error(input) naming the failed
/// rule when it is not valid for the model and cluster.
Prediction predict(const ModelCosts& costs, const ModelSpec& model, const Layout& layout,
                   const Cluster& cluster, const Workload& workload, const Calibration& calibration);

/// The fit-confidence plan and predict use unless told: a layout fits when the probability that it
/// runs out of memory stays under it (issue 32).
inline constexpr double kDefaultFitConfidence = 0.9;

/// The peak that `gib` (a predicted memory) stays under with probability `confidence`, GiB, for a
/// log-normal error of spread `log_spread`: gib x exp(z_confidence x log_spread).
double memory_quantile_gib(double gib, double log_spread, double confidence);

/// Whether `p` fits at `confidence` (in (0, 1)): the layout is refused only when the calibrated
/// distribution makes running out of memory (HBM or host) at least that likely, so that a run
/// predicted a little over its capacity, inside the model's error, is not refused; every run of the
/// training set that ran fits at kDefaultFitConfidence but the named ones (memory_model_test).
bool fits_at(const Prediction& p, double confidence);

/// HBM to spare on the worst stage at `confidence`, GiB: capacity less the peak the stage stays
/// under with that probability (negative: over by that much).
double memory_margin_gib(const Prediction& p, double confidence);

/// The fraction of HBM plan keeps free so that a layout it counts as fitting fits with probability
/// at least `confidence` (--fit-confidence) under the calibrated log-normal memory error:
/// 1 - exp(-z_confidence x memory_log_spread) (0.114 at 0.9 with a spread of 0.094).
double fit_confidence_margin(double confidence, double memory_log_spread);

/// predict's --fit-confidence, or kDefaultFitConfidence; Error(usage) outside (0, 1).
double verdict_confidence(std::optional<double> confidence);

/// Plan's HBM margin: `margin` (--margin, a fixed fraction) when given, else the margin of
/// `confidence` (--fit-confidence, default kDefaultFitConfidence) under the calibration's spread.
/// Throws Error(usage) for both given, a confidence outside (0, 1) or a margin outside [0, 1).
double plan_memory_margin(std::optional<double> margin, std::optional<double> confidence,
                          const Calibration& calibration);

/// Usable HBM per GPU, GiB, as the driver reports it (data/hw/hbm_capacity.yaml: H200 143,771 MiB
/// = 140.4 GiB; H100 81,559 MiB = 79.6 GiB); the marketed decimal GB in GiB for a GPU not listed.
double hbm_capacity_gib(const GpuSpec& gpu);

/// Half-width (log space) of a layout's 80% throughput interval: the calibration's residual
/// half-width (leave-one-source-out) combined with the spread the fitted constants' covariance
/// gives this layout (delta method on the step time); the residual half-width alone when the
/// calibration carries no covariance.
double interval_log_halfwidth(const ModelCosts& costs, const Layout& layout, const std::vector<int64_t>& stages,
                              int64_t microbatches, const Cluster& cluster, const Workload& workload,
                              const Calibration& calibration);

}  // namespace ladle::plan
