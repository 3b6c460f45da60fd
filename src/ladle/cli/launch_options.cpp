// launch_options.cpp: what `plan` and `predict` share for their jobs: the workload a base
// implies and each layout's launch arguments.
#include "ladle/cli/launch_options.hpp"

#include <set>

#include "ladle/launch/job_script.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/layout/rl_workload.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {

SourceLocation knob_argument(const args::LaunchArgs& launch, std::string_view knob, const std::string& file,
                             std::string_view field) {
  SourceLocation where{file, 0, 0, std::string(field)};
  const layout::Knob* row = knob.empty() ? nullptr : layout::find_knob(knob);
  if (!row) return where;
  for (const args::LaunchArg& arg : layout::training_args(launch)) {
    if (layout::find_knob_by_flag(arg.flag) != row) continue;
    // An argument a sourced file writes is placed there (ladle --script records it).
    where = SourceLocation{arg.file.empty() ? file : arg.file, arg.line, arg.col,
                           arg.spelled.empty() ? arg.flag : arg.spelled};
  }
  return where;
}

void add_script_flags(CLI::App& command, ScriptFlags& flags) {
  command.add_option("--script-arg", flags.script_args,
                     "a positional argument ($1, $2, ...) of the --script, in order (repeatable)");
  command.add_option("--env", flags.env,
                     "KEY=VALUE the cluster sets for the --script (SLURM_NNODES, MASTER_ADDR, ...; repeatable)");
  command.add_option("--launch", flags.launch,
                     "which training launch of the --script to read when it runs several (1-based)");
  command.add_option("--script-timeout", flags.timeout,
                     "seconds the --script may run in its sandbox before ladle stops it (default 30)");
}

args::ScriptOptions script_options(const ScriptFlags& flags, int gpus_per_node) {
  args::ScriptOptions o;
  o.args = flags.script_args;
  for (const std::string& kv : flags.env) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw_usage("--env: expected KEY=VALUE, got '{}'", kv);
    o.env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  if (!(flags.timeout > 0 && flags.timeout <= 3600)) {
    throw_usage("--script-timeout must be more than 0 and at most 3600 seconds, got {}", flags.timeout);
  }
  o.wall_seconds = flags.timeout;
  o.gpus_per_node = gpus_per_node;
  return o;
}

JobLaunch read_job_launch(const std::string& args_line, const std::string& script, const ScriptFlags& flags,
                          int gpus_per_node, std::ostream& err) {
  JobLaunch out;
  if (script.empty()) {
    if (!flags.script_args.empty() || !flags.env.empty()) throw_usage("--script-arg and --env go with --script");
    out.file = "--args";
    out.launch = args::parse_launch_args(args_line, out.file);
    return out;
  }
  out.file = script;
  const args::ScriptReading reading = args::read_script(script, script_options(flags, gpus_per_node));
  if (!reading.note.empty()) err << reading.note << "\n";
  for (const std::string& w : reading.warnings) err << w << "\n";
  out.ran = reading.ran;
  out.ran_bash = reading.ran_bash;
  out.launch = reading.ran_bash ? args::select_launch(reading.launch, flags.launch, script) : reading.launch;
  return out;
}

layout::Engine job_engine(const std::string& engine_option, const std::optional<layout::JobArgs>& job) {
  if (!engine_option.empty()) return layout::parse_engine(engine_option);
  return job ? job->engine : layout::Engine::megatron;
}

void require_job_sets_something(const layout::JobArgs& job, const JobLaunch& launch) {
  if (launch.file == "--args") return;  // a line of arguments says what it says
  static const std::set<std::string_view> kSizes = {"tp", "pp", "cp", "ep", "etp", "vpp", "dp"};
  for (const layout::Knob* knob : job.layout.set) {
    if (kSizes.count(knob->key)) return;
  }
  if (job.seq_length || job.global_batch) return;
  const args::Launch& l = launch.launch.launches.front();
  throw_input(SourceLocation{l.file.empty() ? launch.file : l.file, l.line, 0, "script"},
              "{} '{}' with no parallel size and no workload (no --tensor-model-parallel-size, "
              "--pipeline-model-parallel-size, ..., --seq-length or --global-batch-size): ladle would answer from "
              "its own defaults",
              launch.ran_bash ? "bash ran" : "the script launches", l.command);
}

void check_job_model(const layout::JobArgs& job, const ModelSpec& model) {
  try {
    layout::check_model_args(job, model);
  } catch (const Error& e) {
    // The argument's own file, when a sourced model file wrote it.
    for (const args::LaunchArg& arg : job.model_args) {
      if (!arg.file.empty() && arg.line == e.where().line && arg.col == e.where().col) {
        SourceLocation where = e.where();
        where.file = arg.file;
        throw Error(e.kind(), e.message(), where);
      }
    }
    throw;
  }
}

std::string model_from_job(const layout::JobArgs& job) {
  std::vector<std::string> given;
  for (const args::LaunchArg& arg : job.model_args) {
    const auto known = std::find_if(layout::known_args().begin(), layout::known_args().end(),
                                    [&](const layout::KnownArg& k) { return k.flag == arg.flag; });
    if (known != layout::known_args().end() && known->model_value && !arg.values.empty()) {
      given.push_back(arg.flag + " " + arg.values.front());
    }
  }
  if (given.size() < 2) {
    throw_usage("give --model: the job's arguments describe no architecture ladle can match (it needs at least "
                "two of --num-layers, --hidden-size, ...)");
  }
  std::vector<std::string> matches;
  for (const std::string& name : model::model_names()) {
    const std::optional<ModelSpec> spec = model::find_model(name);
    if (!spec) continue;
    try {
      layout::check_model_args(job, *spec);
      matches.push_back(name);
    } catch (const Error&) {
      // Another architecture.
    }
  }
  if (matches.size() == 1) return matches.front();
  if (matches.empty()) {
    throw_usage("give --model: no catalog model has the job's architecture ({})", util::join(given, ", "));
  }
  throw_usage("give --model: the job's architecture ({}) matches {}", util::join(given, ", "), util::join(matches, ", "));
}

std::vector<plan::ValueSource> job_sources(const args::LaunchArgs& launch, const layout::JobArgs& job,
                                           const Layout& layout, const std::string& file) {
  std::vector<plan::ValueSource> out;
  const auto at = [&](const SourceLocation& w) {
    return w.line > 0 ? fmt::format("{}:{} {}", w.file, w.line, w.field_path) : fmt::format("{} {}", w.file, w.field_path);
  };
  for (const layout::Knob* knob : job.layout.set) {
    out.push_back({std::string(knob->key), layout::knob_text(*knob, layout),
                   at(knob_argument(launch, knob->key, file, ""))});
  }
  const auto workload = [&](const char* name, const std::string& value, std::initializer_list<std::string_view> flags) {
    SourceLocation where{file, 0, 0, std::string(*flags.begin())};
    for (const args::LaunchArg& arg : layout::training_args(launch)) {
      if (std::find(flags.begin(), flags.end(), arg.flag) == flags.end()) continue;
      where = SourceLocation{arg.file.empty() ? file : arg.file, arg.line, arg.col,
                             arg.spelled.empty() ? arg.flag : arg.spelled};
    }
    out.push_back({name, value, at(where)});
  };
  // An RL job's rows and row length come from its rollout arguments when it gives no
  // --global-batch-size or --seq-length (layout/rl_workload.hpp; the workload line says how).
  const auto given = [&](std::string_view flag) {
    return std::ranges::any_of(layout::training_args(launch), [&](const args::LaunchArg& a) { return a.flag == flag; });
  };
  if (job.seq_length && (given("--seq-length") || !job.rl)) {
    workload("row_tokens", std::to_string(*job.seq_length), {"--seq-length"});
  } else if (job.seq_length) {
    workload("row_tokens", std::to_string(*job.seq_length), {"--rollout-max-prompt-len", "--rollout-max-response-len"});
  }
  if (job.global_batch && (given("--global-batch-size") || !job.rl)) {
    workload("global_batch", std::to_string(*job.global_batch), {"--global-batch-size"});
  } else if (job.global_batch) {
    workload("global_batch", std::to_string(*job.global_batch),
             {"--rollout-batch-size", "--n-samples-per-prompt", "--num-steps-per-rollout"});
  }
  const auto sets = [&](std::string_view flag) {
    return std::ranges::any_of(layout::training_args(launch), [&](const args::LaunchArg& a) { return a.flag == flag; });
  };
  if (sets("--fp4-format")) {
    // The GEMMs the recipe quantises run in FP4; the rest of the step keeps the job's 16-bit type.
    workload("precision", "fp4 GEMMs", {"--fp4-format"});
  } else if (job.fp8) {
    workload("precision", "fp8", {"--fp8-format"});
  } else if (job.fp16) {
    workload("precision", "fp16", {"--fp16"});
  } else if (sets("--bf16")) {
    workload("precision", "bf16", {"--bf16"});
  }
  return out;
}

void require_valid_job_layout(const Layout& layout, const ModelSpec& model, const layout::LayoutContext& context,
                              const args::LaunchArgs& launch, const std::string& file) {
  if (std::optional<layout::LayoutViolation> broken = layout::layout_violation(layout, model, context)) {
    throw Error(ErrorKind::input, broken->message, knob_argument(launch, broken->knob, file, "layout"));
  }
}

plan::Workload launch_workload(const launch::Base& base, const std::optional<int64_t>& row_tokens,
                               const std::optional<int64_t>& global_batch,
                               const std::optional<std::string>& precision, bool emitting) {
  plan::Workload w;
  const bool from_base = base.from_recipe;
  w.row_tokens = row_tokens.value_or(from_base ? base.workload.row_tokens : 8192);
  w.global_batch = global_batch.value_or(from_base ? base.workload.global_batch : 128);
  w.precision = plan::parse_precision(
      precision.value_or(from_base && !base.workload.precision.empty() ? base.workload.precision
                                                                       : std::string("bf16")));
  if (emitting && from_base) {
    // The emitted recipe keeps the base's workload: a different one would change what is trained.
    if (w.row_tokens != base.workload.row_tokens) {
      throw_usage(
          "--row-tokens {} differs from the base's {} ({}); leave it out or give another --base",
          w.row_tokens, base.workload.row_tokens, base.name);
    }
    if (w.global_batch != base.workload.global_batch) {
      throw_usage(
          "--global-batch {} differs from the base's {} ({}); leave it out or give another --base",
          w.global_batch, base.workload.global_batch, base.name);
    }
  }
  return w;
}

void apply_job_workload(const layout::JobArgs& job, const GivenWorkload& given, plan::Workload& workload) {
  if (job.seq_length) {
    if (given.row_tokens && *given.row_tokens != *job.seq_length) {
      throw_usage("--row-tokens {} contradicts --seq-length {} in {}", *given.row_tokens, *job.seq_length, job.file);
    }
    workload.row_tokens = *job.seq_length;
  }
  if (job.global_batch) {
    if (given.global_batch && *given.global_batch != *job.global_batch) {
      throw_usage("--global-batch {} contradicts --global-batch-size {} in {}", *given.global_batch,
                  *job.global_batch, job.file);
    }
    workload.global_batch = *job.global_batch;
  }
  if (job.fp8) {
    if (given.precision && *given.precision != "fp8") {
      throw_usage("--precision {} contradicts --fp8-format in {}", *given.precision, job.file);
    }
    workload.precision = plan::Precision::fp8;
  }
  if (job.fp16) {
    if (given.precision && *given.precision != "fp16") {
      throw_usage("--precision {} contradicts --fp16 in {}", *given.precision, job.file);
    }
    workload.precision = plan::Precision::fp16;
  }
  // An RL job's workload line (rows per step and row length from its rollout arguments).
  if (job.rl) workload.rl = layout::format_rl_workload(*job.rl);
}

std::function<std::string(const Layout&)> launch_args_for(const launch::Base& base, const plan::Scenario& scenario,
                                                          layout::Engine engine) {
  return [&base, &model = scenario.model, cluster = scenario.cluster, workload = scenario.workload,
          engine](const Layout& layout) {
    launch::JobRequest job;
    job.base = &base;
    job.model = &model;
    job.layout = layout;
    job.engine = engine;
    job.gpus = cluster.gpus;
    job.gpus_per_node = cluster.gpus_per_node();
    job.precision = plan::to_string(workload.precision);
    return launch::job_args_line(job);
  };
}

void write_emitted(const std::string& path, const Recipe& recipe) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".sh") == 0) {
    util::write_file_atomic(path, recipe.run);
    return;
  }
  recipe::write_recipe_file(path, recipe);
}

}  // namespace ladle::cli
