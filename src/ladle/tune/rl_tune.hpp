#pragma once
// rl_tune.hpp: `ladle tune --rl` (issue 34): tunes the GPU split, the engine's layout and the
// trainer's layout of a slime or miles RL job on a scheduler. The candidates are `ladle plan
// --rl`'s (rl/rl_plan.hpp), every one the search predicts; each trial runs the entry point of the
// job `plan --rl --emit` writes for it (rl/rl_job.hpp rl_entry_args: the split, both layouts and
// the workload) for a few rollouts and is scored from its log by verify::score_rl_runs (samples/s).
//
// The belief is a ratio measured / predicted samples/s per (mode, GPUs per engine): the geometric
// mean of the measured ratios of that group, and 1 (the prediction itself) for a group nothing has
// measured yet, so that a group the prediction ranks high is tried before it is written off. The
// next trial is the untried candidate of highest predicted x ratio. The loop stops after `budget`
// trials, or when no untried candidate is expected to beat the best measured one by more than
// `threshold`. Unlike the training loop (tuner.hpp) it keeps no database: a killed RL tune
// starts again.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ladle/rl/rl_plan.hpp"
#include "ladle/sched/scheduler.hpp"

namespace ladle::tune {

struct RlTuneSettings {
  rl::RlPlanRequest plan;        ///< the search (its top is raised to every candidate)
  std::string engine = "slime";  ///< slime | miles
  sched::SchedulerOptions scheduler;
  std::string out_dir;   ///< trial scripts and logs
  std::string run_id;    ///< jobs are named ladle-rl-<run_id>-<trial>
  int64_t budget = 12;   ///< trials at most
  int64_t rollouts = 6;  ///< --num-rollout of a trial
  double threshold = 0.01;
  int64_t time_limit_s = 1800;  ///< per trial
  double poll_s = 0.2;
  std::string engine_program;  ///< runs in place of python3 (tests, dry runs)
};

struct RlTrial {
  int64_t id = 0;
  rl::RlStep step;  ///< the prediction
  std::string
      what;  ///< "async: 4 rollout + 4 trainer GPUs, engine TP4 DPattn4 mem 0.5, trainer ..."
  double expected_samples_per_s = 0;    ///< predicted x the belief's ratio when proposed
  std::string state;                    ///< succeeded | failed | ...
  std::optional<double> samples_per_s;  ///< measured
  std::string error;                    ///< why it has no measurement
  std::string log_path;
};

struct RlTuneResult {
  std::vector<RlTrial> trials;
  std::optional<size_t> best;  ///< index into trials of the best measured
  int64_t candidates = 0;
  std::string stop_reason;
};

/// The belief's ratio for a candidate of `mode` with `engine_gpus` GPUs per engine, from the
/// measured trials (see above): 1 when none of that group was measured.
double rl_belief_ratio(const std::vector<RlTrial>& trials, rl::Mode mode, int engine_gpus);

/// The trial script of `step`: the entry point (train.py / train_async.py) with rl_entry_args,
/// "${MODEL_ARGS[@]}" left out, --num-rollout set to `rollouts`, python3 replaced by
/// `engine_program` when given.
std::string rl_trial_script(const RlTuneSettings& settings, const rl::RlStep& step);

/// Runs the loop. Throws what plan_rl throws, and Error(usage) when the scheduler cannot be
/// reached.
RlTuneResult run_rl_tune(const RlTuneSettings& settings, sched::Scheduler& scheduler,
                         std::ostream* progress);

/// The result as text and as JSON.
std::string render_rl_tune(const RlTuneResult& result);
std::string rl_tune_json(const RlTuneResult& result);

}  // namespace ladle::tune
