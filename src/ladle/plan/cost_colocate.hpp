#pragma once
// cost_colocate.hpp: what slime's and miles' --colocate (the SGLang engines on the training
// GPUs) costs the memory model.
//
// How the two share a GPU (THUDM/slime at 624b824a): --colocate sets --offload-train and
// --offload-rollout unless told otherwise (slime/utils/arguments.py, after parsing). Each rollout
// then runs generate, offloads the engines (rollout_manager.offload: SGLang's torch_memory_saver
// releases its weights and KV cache), trains, offloads the trainer (actor.sleep: destroys its
// process groups and pauses every tensor under torch_memory_saver), onloads the engines' weights,
// pushes the new weights in buckets of --update-weight-buffer-size bytes (default 512 MiB) and
// onloads the KV cache (train.py, the train loop).
//
// Training phase (what estimate_memory prices): the paused engine's process keeps its CUDA
// context on the GPU, beside the trainer's.
// Rollout and weight-update phase: the engine takes --sglang-mem-fraction-static of the GPU's
// memory for its weights and KV cache (SGLang ServerArgs.mem_fraction_static; slime sets no
// default of its own, it passes --sglang-* through to SGLang's ServerArgs:
// slime/backends/sglang_utils/arguments.py), the trainer's paused process its CUDA context, and
// the update its bucket.

#include <optional>
#include <string>

#include "ladle/layout/layout.hpp"
#include "ladle/hw/memory_facts.hpp"
#include "ladle/plan/prediction.hpp"

namespace ladle::plan {

/// Bytes a colocated, offloaded SGLang engine keeps on each training GPU during training: its
/// process's CUDA context (0 without --colocate).
double colocated_engine_bytes(const Layout& layout, const hw::MemoryFacts& facts);

/// Bytes on each GPU while the colocated engines generate and take the new weights:
/// sglang_mem_fraction x `hbm_bytes` (the engine's weights and KV cache), both processes' CUDA
/// contexts and one weight-update bucket. 0 without --colocate or without a given fraction
/// (SGLang then sizes its pool from the memory it finds free).
double colocated_rollout_bytes(const Layout& layout, double hbm_bytes, const hw::MemoryFacts& facts);

/// The rollout phase of a colocated job whose training phase `p` predicts (issue 30): on each GPU,
/// colocated_rollout_bytes; on each node's host, what the paused trainer copies there
/// (torch_memory_saver with CPU backup, THUDM/slime slime/ray/actor_group.py at 624b824a: its
/// weights, gradient buffers and optimizer states) beside the offloaded optimizer states. `line`
/// says it in one line for predict's report.
struct ColocatedFit {
  double gpu_gib = 0;  ///< 0 when SGLang sizes its pool itself (no --sglang-mem-fraction-static)
  double capacity_gib = 0;
  double host_gib = 0;  ///< per node
  double host_capacity_gib = 0;
  bool fits = true;
  std::string line;
};
/// nullopt without --colocate.
std::optional<ColocatedFit> colocated_rollout_fit(const Prediction& p, const Layout& layout, const hw::MemoryFacts& facts,
                                                  int64_t gpus_per_node);

}  // namespace ladle::plan
