// scenario_options.cpp: the shared scenario options, declared once, and the scenario built from
// them and the job's own arguments.
#include "ladle/cli/scenario_options.hpp"

#include <charconv>

#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/stack.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {

void add_model_option(CLI::App& command, ScenarioFlags& flags) {
  command.add_option("--model", flags.model, "model name or config.json path");
}

void add_gpu_options(CLI::App& command, ScenarioFlags& flags, GpuCounts counts) {
  command.add_option("--gpu", flags.gpu, "GPU name, e.g. h200");
  if (counts == GpuCounts::one) {
    command.add_option("--gpus", flags.gpu_count, "number of GPUs");
  } else {
    command.add_option("--gpus", flags.gpu_counts, "GPU count, or a comma-separated sweep such as 64,128,256");
  }
  command.add_option("--instance", flags.instance, "instance type (default: the first carrying the GPU)");
}

void add_cluster_options(CLI::App& command, ScenarioFlags& flags, GpuCounts counts) {
  add_gpu_options(command, flags, counts);
  command.add_option(
      "--cluster", flags.cluster,
      "an on-prem cluster file (YAML: gpu, gpus_per_node, nvlink_domain, fabric, nics, nic_gbps, "
      "host_memory_gib, usd_per_gpu_hour)");
}

void add_price_option(CLI::App& command, ScenarioFlags& flags) {
  command.add_option("--price", flags.price, "USD per GPU-hour, overriding the instance's or cluster's price");
}

void add_batch_options(CLI::App& command, ScenarioFlags& flags) {
  command.add_option("--row-tokens", flags.row_tokens, "tokens per row (default 8192, or what the job or recipe gives)");
  command.add_option("--global-batch", flags.global_batch, "rows per step (default 128, or what the job or recipe gives)");
}

void add_workload_options(CLI::App& command, ScenarioFlags& flags) {
  add_batch_options(command, flags);
  command.add_option("--image-tokens", flags.image_tokens,
                     "image tokens per row of a VL model (one image each), priced through its vision tower "
                     "(default 0: text only)");
  command.add_option("--precision", flags.precision, "bf16 or fp8 (default bf16)");
}

void add_stack_option(CLI::App& command, ScenarioFlags& flags) {
  command.add_option("--stack", flags.stack,
                     "the Megatron-Core release the job runs, e.g. 0.16 or core_v0.16.0 (default: a recipe's "
                     "stack.megatron_lm, else the newest in data/hw/stacks.yaml); a layout asking for what it lacks "
                     "is refused");
}

void add_fit_confidence_option(CLI::App& command, ScenarioFlags& flags) {
  command.add_option("--fit-confidence", flags.fit_confidence,
                     "the probability, under the memory model's calibrated error, at which a layout counts as "
                     "fitting HBM (default 0.9)");
}

void add_calibration_option(CLI::App& command, ScenarioFlags& flags) {
  command.add_option("--calibration", flags.calibration, "calibration YAML (default: the embedded one)");
}

void add_job_options(CLI::App& command, ScenarioFlags& flags) {
  command.add_option("--args", flags.args,
                     "the job's own Megatron-LM / slime / miles arguments, e.g. --args=\"--tensor-model-parallel-size "
                     "2 ...\" (plan keeps the knobs they set fixed)");
  add_script_option(command, flags, "");
  add_script_flags(command, flags.script_flags);
}

void add_script_option(CLI::App& command, ScenarioFlags& flags, std::string_view use) {
  std::string help =
      "the job's launch script (slime, miles, Megatron-LM or Megatron-Bridge), run by bash in a sandbox whose "
      "launchers record what they are given";
  if (!use.empty()) help += fmt::format("; {}", use);
  command.add_option("--script", flags.script, help);
}

void add_engine_option(CLI::App& command, ScenarioFlags& flags, std::string_view use) {
  std::string help = "slime, miles, megatron or bridge: whose defaults the job's arguments take (default: guessed from them)";
  if (!use.empty()) help += fmt::format(", {}", use);
  command.add_option("--engine", flags.engine, help);
}

std::vector<int64_t> parse_gpu_counts(const std::string& text) {
  std::vector<int64_t> out;
  for (const std::string& part : util::split(text, ',')) {
    const std::string_view item = util::trim(part);
    int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || value < 1) {
      throw_usage("--gpus: expected GPU counts such as 8 or 64,128,256, got '{}'", text);
    }
    out.push_back(value);
  }
  return out;
}

void check_workload_bounds(const ScenarioFlags& flags) {
  // The bounds of one row and one step: beyond them is no workload anyone trains.
  if (flags.row_tokens && (*flags.row_tokens < 1 || *flags.row_tokens > limits::kMaxSequenceTokens)) {
    throw_usage("--row-tokens must be 1 to {} (the limit of one row), got {}", limits::kMaxSequenceTokens,
                *flags.row_tokens);
  }
  if (flags.global_batch && (*flags.global_batch < 1 || *flags.global_batch > limits::kMaxGlobalBatchRows)) {
    throw_usage("--global-batch must be 1 to {} rows (the limit of one step), got {}", limits::kMaxGlobalBatchRows,
                *flags.global_batch);
  }
}

plan::Calibration flag_calibration(const ScenarioFlags& flags) {
  return flags.calibration.empty() ? plan::default_calibration() : plan::read_calibration_file(flags.calibration);
}

std::optional<Job> read_job(const ScenarioFlags& flags, int64_t gpus_per_node, std::ostream& err) {
  if (!flags.has_job()) return std::nullopt;
  if (!flags.args.empty() && !flags.script.empty()) throw_usage("give --args or --script, not both");
  Job job;
  job.launch = read_job_launch(flags.args, flags.script, flags.script_flags, static_cast<int>(gpus_per_node), err);
  std::optional<layout::Engine> engine;
  if (!flags.engine.empty()) engine = layout::parse_engine(flags.engine);
  job.args = layout::read_job_args(job.launch.launch, engine, job.launch.file);
  require_job_sets_something(job.args, job.launch);
  return job;
}

// The values the model's type row supplied for keys its config lacks (ModelSpec::assumed), each
// listed with the scenario's value sources.
namespace {
void add_published_sources(const ModelSpec& model, std::vector<plan::ValueSource>& sources) {
  for (const ModelSpec::AssumedValue& v : model.assumed) {
    sources.push_back({"model." + v.key, v.value, "not in the config; published: " + v.source});
  }
}
}  // namespace

ModelSpec scenario_model(const ScenarioFlags& flags, const std::optional<Job>& job,
                         std::vector<plan::ValueSource>& sources) {
  if (!flags.model.empty() || !job) {
    ModelSpec model = model::load_model(flags.model);
    add_published_sources(model, sources);
    return model;
  }
  ModelSpec model = model::load_model(model_from_job(job->args));
  sources.push_back({"model", model.name, "the job's architecture arguments"});
  add_published_sources(model, sources);
  return model;
}

plan::Scenario make_scenario(const ScenarioFlags& flags, plan::Scenario scenario, const std::optional<Job>& job) {
  plan::Scenario& s = scenario;
  s.workload.image_tokens = flags.image_tokens;
  s.workload.stack_generation = plan::choose_stack(flags.stack).generation;
  s.calibration = flag_calibration(flags);
  if (flags.image_tokens > 0) {
    s.sources.push_back({"image_tokens", std::to_string(flags.image_tokens), "--image-tokens (per row, one image)"});
  }
  if (job) {
    check_job_model(job->args, s.model);
    s.workload.flash_attention_2 = plan::selects_flash_attention_backend(job->launch.launch);
    apply_job_workload(job->args, GivenWorkload{flags.row_tokens, flags.global_batch, flags.precision}, s.workload);
  }
  s.price_model();
  return s;
}

void add_workload_sources(plan::Scenario& scenario, const ScenarioFlags& flags, const std::string& origin) {
  const auto given = [&](const std::string& name) {
    return std::ranges::any_of(scenario.sources, [&](const plan::ValueSource& v) { return v.name == name; });
  };
  if (!given("row_tokens")) {
    scenario.sources.push_back(
        {"row_tokens", std::to_string(scenario.workload.row_tokens), flags.row_tokens ? "--row-tokens" : origin});
  }
  if (!given("global_batch")) {
    scenario.sources.push_back({"global_batch", std::to_string(scenario.workload.global_batch),
                                flags.global_batch ? "--global-batch" : origin});
  }
  if (!given("precision")) {
    scenario.sources.push_back({"precision", plan::to_string(scenario.workload.precision),
                                flags.precision ? "--precision" : origin});
  }
}

}  // namespace ladle::cli
