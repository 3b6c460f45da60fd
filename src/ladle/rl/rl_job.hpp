#pragma once
// rl_job.hpp: the slime or miles RL job of a planned RL step (`ladle plan --rl --emit`, issue 34):
// a bash script that checks its inputs, gets the model's arguments the engine's way, starts Ray on
// every node and submits the entry point (train.py, or train_async.py one step off-policy) with
// the split (--actor-num-nodes, --actor-num-gpus-per-node, --rollout-num-gpus, --colocate), the
// engine's layout (--rollout-num-gpus-per-engine and the --sglang-* arguments), the trainer's
// layout (the knob table's arguments for the engine, as launch/job_script writes them), the
// rollout workload and the GRPO example's other arguments (data/rl/job.yaml). Every word of the
// plan or the data is written with util::shell_quote; the job's inputs as "$VARIABLE".

#include <string>
#include <vector>

#include "ladle/layout/layout.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/model_spec.hpp"
#include "ladle/rl/rl_step.hpp"

namespace ladle::rl {

struct RlJobRequest {
  const ModelSpec* model = nullptr;
  RlStep step;
  RlWork work;
  layout::Engine engine = layout::Engine::slime;  ///< slime or miles
  int64_t gpus_per_node = 8;
  std::string title;  ///< the first comment line
};

/// The entry point's arguments after `python3 ENTRY`, as words before quoting ("${MODEL_ARGS[@]}"
/// first, then the split, the engine, the trainer's layout, the workload and the base arguments).
std::vector<std::string> rl_entry_args(const RlJobRequest& request);
/// "train.py" or "train_async.py".
std::string rl_entry_point(Mode mode);
/// The job script. Throws Error(usage) for an engine other than slime or miles, or a model the
/// engine's catalog does not name (data/launch/engines.yaml models).
std::string rl_job_script(const RlJobRequest& request);

}  // namespace ladle::rl
