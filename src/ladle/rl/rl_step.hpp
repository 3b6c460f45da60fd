#pragma once
// rl_step.hpp: one RL step of a slime or miles job (issue 34): the rollout, the log-probability
// passes, the optimizer steps on the rollout, the weight update and, colocated, the trainer's
// offload and onload; its time, throughput, cost and the memory of each phase.
//
// What one step runs, as slime's train loop runs it (THUDM/slime at 624b824a, train.py and
// slime/backends/megatron_utils/actor.py train_actor):
// - the rollout: SGLang engines generate samples_per_prompt responses per prompt (rollout.hpp);
// - the reference policy's log-probabilities when a KL term is used (with_ref is
//   `kl_coef != 0 or use_kl_loss`, slime/ray/placement_group.py), a forward-only pass over the
//   rollout after the reference weights are copied in from the host (TensorBackuper.restore,
//   slime/utils/tensor_backper.py: pinned host copies of "actor" and "ref");
// - the old policy's log-probabilities, a forward-only pass, unless the loss can reuse the first
//   step's (one optimizer step per rollout, no KL, can_reuse_log_probs_in_loss in train_actor);
// - steps_per_rollout optimizer steps over the rollout's samples;
// - the weight update to the engines: colocated, through CUDA IPC on the same GPU
//   (update_weight_from_tensor.py); on separate pools, an NCCL broadcast from the trainer's ranks
//   to every engine (update_weight_from_distributed.py);
// - colocated: the trainer's tensors go to the host and back around the rollout
//   (torch_memory_saver with TMS_INIT_ENABLE_CPU_BACKUP=1, slime/ray/actor_group.py; actor.sleep and
//   wake_up), the engine's memory is released during training (rollout_manager.offload).
//
// Modes: colocated-synchronous (the phases share the GPUs and add up), disaggregated-synchronous
// (two pools, one waits for the other: the phases add up, each pool idles while the other works)
// and disaggregated-asynchronous (slime's train_async.py: the next rollout is generated while the
// trainer trains on the last, one step off-policy; the step is the slower pool's time).
//
// Training is priced by the planner (plan/predictor.hpp) on the trainer's layout, with the
// rollout's samples packed into rows of the longest sample (dynamic batching packs samples up to
// --max-tokens-per-gpu a microbatch): rows = ceil(samples x mean sample tokens / longest sample),
// rounded up to a multiple of the trainer's data-parallel size, since the step waits for the rank
// with the most rows.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/layout/layout.hpp"
#include "ladle/model/model_spec.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/prediction.hpp"
#include "ladle/rl/rollout.hpp"

namespace ladle::rl {

/// How the rollout engines and the trainer share the GPUs.
enum class Mode { colocated, sync, async };
/// "colocated" / "sync" / "async".
const char* to_string(Mode mode);
/// "colocated-synchronous", "disaggregated-synchronous", "disaggregated-asynchronous".
const char* describe(Mode mode);
/// Parses "colocated" / "sync" / "async"; throws Error(usage) naming --rl-mode.
Mode parse_mode(std::string_view text);

/// The RL workload of one step.
struct RlWork {
  RolloutWorkload rollout;        ///< prompts, samples, lengths
  int64_t steps_per_rollout = 1;  ///< optimizer steps over one rollout's samples
  bool ref_logprobs = false;      ///< a KL term: the reference policy's forward pass
  /// The old policy's forward pass: slime skips it only with one step per rollout and no KL term.
  bool old_logprobs() const { return steps_per_rollout > 1 || ref_logprobs; }
  /// Mean tokens of one sample (prompt + mean response) and of the longest one.
  int64_t sample_tokens() const { return rollout.prompt_tokens + rollout.response_mean; }
  int64_t longest_tokens() const { return rollout.prompt_tokens + rollout.response_max; }
  int64_t samples() const { return rollout.prompts * rollout.samples_per_prompt; }
};

/// The trainer's workload for `work` on `trainer_gpus` GPUs: rows of the longest sample, as many as
/// the rollout's tokens fill per optimizer step, rounded up to a multiple of `dp` (0: of
/// `trainer_gpus`, which every data-parallel size divides).
plan::Workload training_workload(const RlWork& work, int64_t trainer_gpus, int64_t dp = 0);

/// The rollout model: rollout.hpp's estimate_rollout in ladle, a stand-in in the tests.
using RolloutModel = std::function<RolloutEstimate(const ModelSpec&, const GpuSpec&, const EngineLayout&,
                                                   int, const RolloutWorkload&)>;

/// Where the step runs.
struct RlSetup {
  Mode mode = Mode::colocated;
  int64_t rollout_gpus = 0;  ///< colocated: the trainer's GPUs
  int64_t trainer_gpus = 0;
  EngineLayout engine;
  Layout trainer;  ///< resolved, valid for trainer_gpus
};

/// The memory of one phase on one pool's GPUs and its nodes' hosts, GiB.
struct PhaseMemory {
  std::string phase;  ///< "rollout" / "training"
  std::string pool;   ///< "rollout GPUs" / "trainer GPUs" / "all GPUs" (colocated)
  std::vector<Part> gpu_parts;
  double gpu_gib = 0;
  double gpu_capacity_gib = 0;
  std::vector<Part> host_parts;  ///< per node
  double host_gib = 0;
  double host_capacity_gib = 0;
  bool fits = true;
  std::string binding;  ///< "HBM 150.1 > 140.4 GiB" or "host memory 2,100 > 1,862 GiB per node" when it does not fit
};

/// The prediction of one RL step.
struct RlStep {
  RlSetup setup;
  RolloutEstimate rollout;
  Prediction train;  ///< one optimizer step of the trainer's layout
  plan::Workload train_workload;
  // Seconds of each phase in one step.
  double rollout_s = 0;
  double logprob_s = 0;    ///< reference and old-policy forward passes
  double ref_switch_s = 0; ///< copying the reference weights in and the policy's back (host link)
  double train_s = 0;      ///< steps_per_rollout optimizer steps
  double update_s = 0;     ///< weight update to the engines
  double offload_s = 0;    ///< colocated: the trainer's tensors to the host and back
  double trainer_s = 0;    ///< the trainer's busy time: logprob + ref switch + train + offload
  double step_s = 0;
  double weight_bytes = 0; ///< the weights the engines receive, in the engine's dtype
  std::string update_path; ///< "CUDA IPC on each GPU", "NVLink", "network (InfiniBand NDR)"
  // Throughput.
  double samples_per_s = 0;
  double trained_tokens_per_s_per_gpu = 0;  ///< over every GPU of the job
  double usd_per_million_tokens = 0;        ///< trained tokens
  double rollout_idle = 0;  ///< fraction of the step the rollout GPUs wait
  double trainer_idle = 0;  ///< fraction of the step the trainer GPUs wait
  std::vector<PhaseMemory> memory;
  bool fits = true;
  std::string binding;  ///< "rollout phase: host memory ..." for the first phase that does not fit
};

/// Predicts one RL step of `setup` on `cluster` (cluster.gpus: every GPU of the job). Throws
/// Error(usage) for a setup whose GPU counts do not add up, and what the rollout model throws.
RlStep predict_rl_step(const ModelSpec& model, const RlSetup& setup, const plan::Cluster& cluster,
                       const RlWork& work, const plan::Calibration& calibration, const RolloutModel& rollout_model);

/// The forward-only share of a training step's time `parts` (a Prediction's step_parts): each
/// part's forward share (a GEMM's backward is dgrad + wgrad, 2x its forward; flash attention's
/// backward `attention_backward` times, as the step was priced; a collective runs once each way; recompute, the gradient reduction and the
/// optimizer not at all), the pipeline bubble as the compute's share.
double forward_only_seconds(const std::vector<Part>& step_parts, double attention_backward);

/// One phase's memory when colocated, on each GPU and each node's host, from the trainer's
/// prediction `train` (with --colocate) and the engine's `rollout` memory: the rollout phase holds
/// the engine's weights and KV pool at its memory fraction, both processes' CUDA contexts and one
/// weight-update bucket, while the trainer's tensors wait on the host; the training phase is the
/// trainer's prediction, the engine's released.
std::vector<PhaseMemory> colocated_memory(const Prediction& train, const Layout& trainer, const EngineLayout& engine,
                                          const RolloutMemory& rollout, const plan::Cluster& cluster,
                                          bool ref_logprobs);

}  // namespace ladle::rl
