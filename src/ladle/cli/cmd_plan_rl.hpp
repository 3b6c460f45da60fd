#pragma once
// cmd_plan_rl.hpp: `ladle plan --rl` (issue 34), the RL half of `ladle plan`: its options, bound
// on plan's command, and the run that cmd_plan.cpp hands --rl to.

#include <cstdint>
#include <optional>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/launch_options.hpp"
#include "ladle/cli/scenario_options.hpp"

namespace ladle::cli {

/// The RL options of `ladle plan` (each needs --rl).
struct PlanRlOptions {
  bool rl = false;
  std::optional<int64_t> prompts;             ///< --prompts: prompts per rollout
  std::optional<int64_t> samples_per_prompt;  ///< --samples-per-prompt
  std::optional<int64_t> prompt_len;          ///< --prompt-len: mean prompt tokens
  std::optional<int64_t> response_len;        ///< --response-len: mean response tokens
  std::optional<int64_t> response_max;        ///< --response-max: the longest response
  std::optional<int64_t> steps_per_rollout;   ///< --steps-per-rollout
  std::string mode;                           ///< --rl-mode colocated|sync|async ("": all)
  std::optional<double> mem_fraction;         ///< --sglang-mem-fraction
  bool kl = false;                            ///< --kl: a KL term to the reference policy
};

/// Binds the RL options on plan's `command`.
void add_plan_rl_options(CLI::App& command, PlanRlOptions& options);

/// What `ladle plan` passes on to its RL run: the options the two share.
struct PlanRlCommon {
  ScenarioFlags scenario;  ///< --model (or plan's positional model), --gpu, --gpus, --args/--script, ...
  int64_t top = 5;
  std::string objective = "throughput";
  std::optional<double> margin;  ///< --margin, when given
  std::string emit;
  bool json = false;
};

/// Runs `ladle plan --rl`; returns the exit code.
int run_plan_rl(const PlanRlCommon& common, const PlanRlOptions& options, Io& io);

}  // namespace ladle::cli
