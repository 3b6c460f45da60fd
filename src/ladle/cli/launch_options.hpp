#pragma once
// launch_options.hpp: what `plan` and `predict` share for their jobs.

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ladle/args/launch_args.hpp"
#include "ladle/args/script_reader.hpp"
#include "ladle/launch/base.hpp"
#include "ladle/launch/engines.hpp"
#include "ladle/layout/job_args.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/plan/report_render.hpp"
#include "ladle/plan/scenario.hpp"
#include "ladle/recipe/recipe.hpp"
#include "ladle/util/error.hpp"

namespace ladle::cli {

/// How `--script` runs the job's script (predict, plan, diff): --script-arg, --env, --launch,
/// --script-timeout.
struct ScriptFlags {
  std::vector<std::string> script_args;  ///< $1..$N
  std::vector<std::string> env;          ///< KEY=VALUE
  std::optional<size_t> launch;          ///< 1-based: which launch of several
  double timeout = 30;                   ///< seconds
};

/// Binds the ScriptFlags options on `command`.
void add_script_flags(CLI::App& command, ScriptFlags& flags);

/// The options as the sandbox takes them; throws Error(usage) for an --env without '='.
args::ScriptOptions script_options(const ScriptFlags& flags, int gpus_per_node);

/// The user's job: --args read as text (the static reader), or --script run by bash in the sandbox
/// (where it cannot start: read as text, with one line on `err`). `file` names it in errors.
struct JobLaunch {
  args::LaunchArgs launch;  ///< the launch read (one: --launch picks among several)
  std::string file;           ///< "--args" or the script
  std::vector<std::string> ran;  ///< what bash ran (empty for --args or the static reader)
  bool ran_bash = false;
};
JobLaunch read_job_launch(const std::string& args_line, const std::string& script, const ScriptFlags& flags,
                          int gpus_per_node, std::ostream& err);

/// The engine a job runs under: --engine when given (`engine_option`, Error(usage) for an unknown
/// name), else the engine the job's --args/--script read as, else Megatron-LM. One rule for plan
/// and predict.
layout::Engine job_engine(const std::string& engine_option, const std::optional<layout::JobArgs>& job);

/// Throws Error(input) when the launch of a --script (run by bash, or read as text where the
/// sandbox cannot start) sets no parallel size and no workload: ladle would answer from its own
/// defaults. The line names what bash ran.
void require_job_sets_something(const layout::JobArgs& job, const JobLaunch& launch);

/// layout::check_model_args, its error placed at the file that wrote the argument (a sourced
/// model file): one line naming the argument, the model and both figures.
void check_job_model(const layout::JobArgs& job, const ModelSpec& model);

/// The catalog model the job's architecture arguments describe (--num-layers, --hidden-size, ...,
/// at least two of them), for a --script without --model; throws Error(usage) when none or
/// several match, naming the arguments.
std::string model_from_job(const layout::JobArgs& job);

/// Where each knob the job's arguments set and each workload value they set came from: rows of
/// (name, value, "FILE:LINE FLAG"). The caller adds the values that came from elsewhere.
std::vector<plan::ValueSource> job_sources(const args::LaunchArgs& launch, const layout::JobArgs& job,
                                     const Layout& layout, const std::string& file);

/// Where the job's arguments set `knob` (a layout/knobs.hpp key): the last training argument that
/// sets it, named as the script wrote it (a Megatron-Bridge override by its own key); else `file`
/// alone, with `field`.
SourceLocation knob_argument(const args::LaunchArgs& launch, std::string_view knob, const std::string& file,
                             std::string_view field);

/// Throws Error(input) for a layout the job's arguments give that breaks a rule, at the argument
/// that set the knob the rule names (`file` alone, field "layout", when none did).
void require_valid_job_layout(const Layout& layout, const ModelSpec& model, const layout::LayoutContext& context,
                              const args::LaunchArgs& launch, const std::string& file);

/// The workload of a plan: the options given, else the base recipe's (ladle's 8192 x 128 BF16
/// without one). With `emitting`, throws Error(usage) for a row length or batch that differs from
/// the base recipe's: the emitted recipe keeps the base's workload.
plan::Workload launch_workload(const launch::Base& base, const std::optional<int64_t>& row_tokens,
                               const std::optional<int64_t>& global_batch,
                               const std::optional<std::string>& precision, bool emitting);

/// The workload options the user gave, held against the job's own arguments.
struct GivenWorkload {
  std::optional<int64_t> row_tokens;     ///< --row-tokens
  std::optional<int64_t> global_batch;   ///< --global-batch
  std::optional<std::string> precision;  ///< --precision
};

/// The workload a job's own arguments give (--seq-length, --global-batch-size, --fp8-format,
/// --fp16, an RL job's rollout arguments), written over `workload`. One policy for predict and
/// plan: an option that contradicts the job is Error(usage) naming both, never overridden.
void apply_job_workload(const layout::JobArgs& job, const GivenWorkload& given, plan::Workload& workload);

/// The launch arguments of a layout for `engine` in `scenario` (its model, GPUs and precision), as
/// one shell line (`args` of the JSON reports). `base` and `scenario` must outlive the function.
std::function<std::string(const Layout&)> launch_args_for(const launch::Base& base, const plan::Scenario& scenario,
                                                          layout::Engine engine);

/// Writes a planned recipe to `path` atomically, or only its job script when `path` ends in ".sh".
void write_emitted(const std::string& path, const Recipe& recipe);

}  // namespace ladle::cli
