#pragma once
// scenario_options.hpp: the options that say what is trained on what (--model, --gpu, --gpus,
// --row-tokens, --stack, --args/--script, ...), declared once with one help text and one
// validation, and the plan::Scenario built from them and the job's own arguments.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/cli/launch_options.hpp"
#include "ladle/layout/job_args.hpp"
#include "ladle/plan/scenario.hpp"

namespace ladle::cli {

/// The shared options, as given (unset: not given).
struct ScenarioFlags {
  std::string model;                     ///< --model: a catalog name or a config.json path
  std::string gpu;                       ///< --gpu
  int64_t gpu_count = 0;                 ///< --gpus of a command that takes one count
  std::string gpu_counts;                ///< --gpus of a command that takes a sweep ("64,128,256")
  std::string instance;                  ///< --instance
  std::string cluster;                   ///< --cluster: an on-prem cluster file
  std::optional<double> price;           ///< --price: USD per GPU-hour
  std::optional<int64_t> row_tokens;     ///< --row-tokens
  std::optional<int64_t> global_batch;   ///< --global-batch
  int64_t image_tokens = 0;              ///< --image-tokens: image tokens per row of a VL model
  std::optional<std::string> precision;  ///< --precision
  std::string stack;                     ///< --stack: the Megatron-Core release (plan/stack.hpp)
  std::optional<double> fit_confidence;  ///< --fit-confidence
  std::string calibration;               ///< --calibration: a calibration YAML
  std::string args;                      ///< --args: the job's training arguments
  std::string script;                    ///< --script: the job's launch script
  ScriptFlags script_flags;              ///< how bash runs the script (--script-arg, --env, ...)
  std::string engine;                    ///< --engine: slime, miles, megatron or bridge

  /// The hardware options as plan::make_cluster takes them.
  plan::ClusterOptions hardware() const { return {gpu, instance, cluster, price}; }
  bool has_job() const { return !args.empty() || !script.empty(); }
};

/// --model.
void add_model_option(CLI::App& command, ScenarioFlags& flags);
/// Whether --gpus takes one count (predict) or a count or comma-separated sweep (plan).
enum class GpuCounts { one, sweep };
/// --gpu, --gpus, --instance (tune, whose runs name no on-prem cluster file).
void add_gpu_options(CLI::App& command, ScenarioFlags& flags, GpuCounts counts);
/// --gpu, --gpus, --instance, --cluster.
void add_cluster_options(CLI::App& command, ScenarioFlags& flags, GpuCounts counts);
/// --price.
void add_price_option(CLI::App& command, ScenarioFlags& flags);
/// --row-tokens, --global-batch.
void add_batch_options(CLI::App& command, ScenarioFlags& flags);
/// --row-tokens, --global-batch, --image-tokens, --precision.
void add_workload_options(CLI::App& command, ScenarioFlags& flags);
/// --stack.
void add_stack_option(CLI::App& command, ScenarioFlags& flags);
/// --fit-confidence.
void add_fit_confidence_option(CLI::App& command, ScenarioFlags& flags);
/// --calibration.
void add_calibration_option(CLI::App& command, ScenarioFlags& flags);
/// --args, --script and how bash runs it (--script-arg, --env, --launch, --script-timeout).
void add_job_options(CLI::App& command, ScenarioFlags& flags);
/// --script alone, run with the sandbox's default options (tune, whose trials rerun the script's
/// text); `use` says what the command does with the job.
void add_script_option(CLI::App& command, ScenarioFlags& flags, std::string_view use);
/// --engine; `use` says what else the command takes the engine for, and its default there ("": nothing).
void add_engine_option(CLI::App& command, ScenarioFlags& flags,
                       std::string_view use = "and the job of --emit and the args of --json (default megatron)");

/// The GPU counts of --gpus: one, or a comma-separated sweep; Error(usage) for anything else.
std::vector<int64_t> parse_gpu_counts(const std::string& text);

/// Error(usage) for a --row-tokens or --global-batch beyond what one row or one step can hold.
void check_workload_bounds(const ScenarioFlags& flags);

/// The calibration of --calibration, else the embedded one.
plan::Calibration flag_calibration(const ScenarioFlags& flags);

/// The user's job: its launch (--args as text, --script as bash runs it) and its arguments read
/// for its engine.
struct Job {
  JobLaunch launch;
  layout::JobArgs args;
};

/// The one --args/--script policy of every command that takes a job: both given is Error(usage);
/// --engine (else the job's own arguments) says whose defaults they take; a --script that sets no
/// parallel size and no workload is Error(input). nullopt when neither is given.
std::optional<Job> read_job(const ScenarioFlags& flags, int64_t gpus_per_node, std::ostream& err);

/// The model of the scenario: --model, else the catalog model the job's architecture arguments
/// describe (said in `sources`).
ModelSpec scenario_model(const ScenarioFlags& flags, const std::optional<Job>& job,
                         std::vector<plan::ValueSource>& sources);

/// Completes `scenario` (its model, cluster, workload (the flags' or a base's) and sources set by
/// the caller): --image-tokens, --stack's release and --calibration; a job's own workload written
/// over it (apply_job_workload: an option that contradicts the job is Error(usage)) after checking
/// its architecture arguments against the model; the model priced. The sources gain the image
/// tokens' line.
plan::Scenario make_scenario(const ScenarioFlags& flags, plan::Scenario scenario, const std::optional<Job>& job);

/// Adds a `sources:` line for each of row_tokens, global_batch and precision that no line gives
/// yet: the option when given, else `origin` ("ladle's default", "the base recipe NAME").
void add_workload_sources(plan::Scenario& scenario, const ScenarioFlags& flags, const std::string& origin);

}  // namespace ladle::cli
