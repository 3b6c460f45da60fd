#pragma once
// rl_plan.hpp: `ladle plan --rl` (issue 34): searches the GPU split between the SGLang engines and
// the trainer (or colocation), the engine's layout and the trainer's layout together and ranks the
// RL steps they give (rl_step.hpp).
//
// The trainer's half is the planner's own search (plan/search.hpp) on the trainer's GPUs and the
// packed RL workload (rl_step.hpp's training_workload); this file searches what the planner does
// not: the split, the engine's layout (GPUs per engine = SGLang's TP; DP attention off or over
// every GPU of the engine; EP off or over every GPU of the engine, for MoE models) and its memory
// fraction, and the mode.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/rl/rl_step.hpp"

namespace ladle::rl {

/// The model's context length (`max_position_embeddings` of its config.json); nullopt when the
/// config gives none.
std::optional<int64_t> model_context_tokens(const ModelSpec& model);

/// Checks `work` against `model`: a prompt plus the longest response beyond the model's context,
/// a mean response above the longest, a count below 1. Throws Error(usage) naming the option
/// (`names`: how the caller calls each field, e.g. "--response-max").
struct RlWorkNames {
  std::string prompts = "--prompts";
  std::string samples = "--samples-per-prompt";
  std::string prompt_len = "--prompt-len";
  std::string response_len = "--response-len";
  std::string response_max = "--response-max";
  std::string steps = "--steps-per-rollout";
};
void check_rl_work(const ModelSpec& model, const RlWork& work, const RlWorkNames& names = {});

/// One RL search.
struct RlPlanRequest {
  ModelSpec model;
  plan::ClusterOptions hardware;
  int64_t gpus = 0;
  RlWork work;
  std::vector<Mode> modes = {Mode::colocated, Mode::sync, Mode::async};
  /// Fixed parts (from the user's options or script); unset: searched.
  std::optional<double> mem_fraction;
  std::optional<EngineLayout> engine;  ///< gpus, tp, dp_attention, ep (mem_fraction from mem_fraction)
  std::optional<int64_t> rollout_gpus;  ///< disaggregated: the rollout pool
  Layout trainer_base;                  ///< the trainer's fixed knobs (plan::PlanRequest::base)
  std::vector<std::string> trainer_fixed;
  plan::Calibration calibration;
  double memory_margin = 0.05;
  int64_t top = 5;
  bool by_cost = false;  ///< rank by $ per 1M trained tokens instead of samples/s
  RolloutModel rollout_model;
};

/// A split the search could not use, and why (for the report when nothing fits).
struct RlRejected {
  std::string what;    ///< "sync, 8 rollout + 8 trainer GPUs, engine TP8"
  std::string reason;  ///< "rollout phase: HBM 141.2 > 140.4 GiB per GPU"
};

struct RlPlanReport {
  std::string model;
  plan::Cluster cluster;
  RlWork work;
  std::vector<RlStep> top;   ///< best first
  int64_t evaluated = 0;     ///< RL steps predicted
  int64_t fitting = 0;
  int64_t trainer_searches = 0;  ///< planner searches of the trainer's half
  std::vector<RlRejected> rejected;  ///< the first few, closest to the top
  std::vector<std::string> notes;    ///< where searched parts came from
};

/// Runs the search. Throws Error(usage) when no split is valid (naming why), Error(no) "does not
/// fit" naming the phase and the limit that binds the closest split when none fits.
RlPlanReport plan_rl(const RlPlanRequest& request);

/// The report as text and as JSON.
std::string render_rl_plan(const RlPlanReport& report);
std::string rl_plan_json(const RlPlanReport& report);

/// slime's and miles' arguments for `step` (the cluster's GPUs per node), without the trainer's
/// layout arguments: --actor-num-nodes, --actor-num-gpus-per-node, --rollout-num-gpus,
/// --rollout-num-gpus-per-engine, --sglang-*, --colocate, the rollout workload.
std::vector<std::string> rl_job_args(const RlStep& step, const RlWork& work, int64_t gpus_per_node);

}  // namespace ladle::rl
