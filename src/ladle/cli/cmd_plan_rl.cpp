// cmd_plan_rl.cpp: `ladle plan --rl` (issue 34): the GPU split between SGLang engines and the
// trainer, both layouts and the mode of a slime or miles RL job, from options or from the job's
// own script; --emit writes the job.
#include "ladle/cli/cmd_plan_rl.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <nlohmann/json.hpp>
#include <ostream>

#include "ladle/cli/exit_code.hpp"
#include "ladle/layout/job_args.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/report_json.hpp"
#include "ladle/rl/rl_job.hpp"
#include "ladle/rl/rl_plan.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {

namespace {

const args::LaunchArg* find_arg(const args::LaunchArgs& launch, std::string_view flag) {
  const args::LaunchArg* found = nullptr;
  for (const args::LaunchArg& a : launch.args) {
    if (a.flag == flag) found = &a;  // the last one wins, as argparse takes it
  }
  return found;
}

SourceLocation where(const args::LaunchArg& a, const std::string& file) {
  return SourceLocation{file, a.line, a.col, a.flag};
}

// An integer argument of the job (nullopt: not given); Error(input) at the argument when it is not one.
std::optional<int64_t> job_int(const args::LaunchArgs& launch, std::string_view flag, const std::string& file) {
  const args::LaunchArg* a = find_arg(launch, flag);
  if (a == nullptr) return std::nullopt;
  const std::string text = a->values.empty() ? std::string() : a->values.front();
  int64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (a->values.size() != 1 || ec != std::errc() || p != text.data() + text.size() || v < 0) {
    throw_input(where(*a, file), "expected a non-negative integer, got '{}'", util::join(a->values, " "));
  }
  return v;
}

std::optional<double> job_real(const args::LaunchArgs& launch, std::string_view flag, const std::string& file) {
  const args::LaunchArg* a = find_arg(launch, flag);
  if (a == nullptr) return std::nullopt;
  try {
    size_t used = 0;
    const double v = a->values.size() == 1 ? std::stod(a->values.front(), &used) : -1;
    if (a->values.size() == 1 && used == a->values.front().size()) return v;
  } catch (const std::exception&) {
  }
  throw_input(where(*a, file), "expected a number, got '{}'", util::join(a->values, " "));
}

// The value of an option, else the job's, else an error naming both.
int64_t pick(const std::optional<int64_t>& option, const std::optional<int64_t>& job, const char* option_name,
             const char* job_flag, std::vector<std::string>& notes) {
  if (option) {
    notes.push_back(fmt::format("{} {}: given", option_name + 2, *option));
    return *option;
  }
  if (job && *job > 0) {
    notes.push_back(fmt::format("{} {}: the job's {}", option_name + 2, *job, job_flag));
    return *job;
  }
  if (job_flag[0] == '\0') throw_usage("plan --rl needs {}", option_name);
  throw_usage("plan --rl needs {} (or the job's {})", option_name, job_flag);
}

}  // namespace

void add_plan_rl_options(CLI::App& command, PlanRlOptions& o) {
  CLI::Option* rl = command.add_flag(
      "--rl", o.rl,
      "plan a slime/miles RL job: the GPU split between SGLang engines and the trainer (or colocation), both "
      "layouts and the mode (docs/rl.md)");
  const auto needs_rl = [&](CLI::Option* opt) { opt->needs(rl); };
  needs_rl(command.add_option("--prompts", o.prompts, "RL: prompts per rollout (slime's --rollout-batch-size)"));
  needs_rl(command.add_option("--samples-per-prompt", o.samples_per_prompt,
                              "RL: responses per prompt (--n-samples-per-prompt)"));
  needs_rl(command.add_option("--prompt-len", o.prompt_len, "RL: mean prompt tokens"));
  needs_rl(command.add_option("--response-len", o.response_len, "RL: mean response tokens"));
  needs_rl(command.add_option("--response-max", o.response_max,
                              "RL: the longest response (--rollout-max-response-len); bounds a synchronous rollout"));
  needs_rl(command.add_option("--steps-per-rollout", o.steps_per_rollout,
                              "RL: optimizer steps per rollout (--num-steps-per-rollout)"));
  needs_rl(command.add_option("--rl-mode", o.mode,
                              "RL: colocated, sync or async (default: search all three)"));
  needs_rl(command.add_option("--sglang-mem-fraction", o.mem_fraction,
                              "RL: SGLang's --mem-fraction-static (default: searched, or the job's)"));
  needs_rl(command.add_flag("--kl", o.kl,
                            "RL: a KL term to the reference policy (its log-probability pass; default: the job's "
                            "--use-kl-loss/--kl-coef, else none)"));
}

int run_plan_rl(const PlanRlCommon& common, const PlanRlOptions& o, Io& io) {
  const ScenarioFlags& c = common.scenario;
  if (c.gpu.empty() && c.cluster.empty()) throw_usage("plan --rl needs --gpu (e.g. h200) or --cluster FILE");
  if (c.gpu_counts.empty()) throw_usage("plan --rl needs --gpus, a GPU count");
  int64_t gpus = 0;
  {
    const std::string& text = c.gpu_counts;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), gpus);
    if (ec != std::errc() || p != text.data() + text.size() || gpus < 1) {
      throw_usage("--gpus: plan --rl takes one GPU count such as 8 or 64, got '{}'", text);
    }
  }
  if (!c.args.empty() && !c.script.empty()) throw_usage("give --args or --script, not both");
  if (o.mem_fraction && !(*o.mem_fraction > 0 && *o.mem_fraction < 1)) {
    throw_usage("--sglang-mem-fraction: expected a fraction in (0, 1), got {}", *o.mem_fraction);
  }
  rl::RlPlanRequest r;
  r.hardware = c.hardware();
  r.gpus = gpus;
  const plan::Cluster cluster = plan::make_cluster(r.hardware, gpus);
  std::vector<std::string> notes;
  std::string model_name = c.model;
  // The job through the one --args/--script policy every command reads it by (read_job).
  const std::optional<Job> read_job_result = read_job(c, cluster.gpus_per_node(), io.err);
  std::optional<JobLaunch> job;
  std::optional<layout::JobArgs> read;
  if (read_job_result) {
    job = read_job_result->launch;
    read = read_job_result->args;
    if (model_name.empty()) {
      model_name = model_from_job(*read);
      notes.push_back(fmt::format("model {}: the job's architecture arguments", model_name));
    }
  }
  if (model_name.empty()) throw_usage("plan --rl needs a model: ladle plan MODEL --gpu G --gpus N --rl ...");
  r.model = model::load_model(model_name);
  if (read) check_job_model(*read, r.model);

  // The workload: each figure from an option, else the job's argument.
  const layout::RlArgs none;
  const layout::RlArgs& ja = read ? read->rl_args : none;
  const auto job_value = [&](int64_t v) { return read && v > 0 ? std::optional<int64_t>(v) : std::nullopt; };
  rl::RlWork& w = r.work;
  w.rollout.prompts = pick(o.prompts, job_value(ja.rollout_batch), "--prompts", "--rollout-batch-size", notes);
  w.rollout.samples_per_prompt =
      pick(o.samples_per_prompt, job_value(ja.samples_per_prompt), "--samples-per-prompt", "--n-samples-per-prompt", notes);
  w.rollout.response_max =
      pick(o.response_max, job_value(ja.max_response_len), "--response-max", "--rollout-max-response-len", notes);
  w.rollout.prompt_tokens = pick(o.prompt_len, job_value(ja.max_prompt_len), "--prompt-len",
                                 "--rollout-max-prompt-len (the longest prompt, taken as the mean)", notes);
  // A job gives the longest response only; the mean is the user's to say.
  w.rollout.response_mean = pick(o.response_len, std::nullopt, "--response-len", "", notes);
  std::optional<int64_t> job_steps = job_value(ja.steps_per_rollout);
  if (!job_steps && read && read->rl && read->rl->steps_per_rollout > 0) job_steps = read->rl->steps_per_rollout;
  w.steps_per_rollout = o.steps_per_rollout || job_steps
                            ? pick(o.steps_per_rollout, job_steps, "--steps-per-rollout", "--num-steps-per-rollout", notes)
                            : 1;
  if (!o.steps_per_rollout && !job_steps) notes.push_back("steps-per-rollout 1: slime's default (neither --steps-per-rollout nor the job gives it)");
  w.ref_logprobs = o.kl;
  if (!o.kl && job) {
    const args::LaunchArg* kl_loss = find_arg(job->launch, "--use-kl-loss");
    const std::optional<double> kl_coef = job_real(job->launch, "--kl-coef", job->file);
    w.ref_logprobs = kl_loss != nullptr || (kl_coef && *kl_coef != 0);
    notes.push_back(w.ref_logprobs ? "KL term: the job's --use-kl-loss/--kl-coef" : "no KL term: the job sets none");
  } else {
    notes.push_back(o.kl ? "KL term: --kl" : "no KL term: --kl not given");
  }
  rl::check_rl_work(r.model, w);

  // The modes, the engine and the split the job fixes.
  if (!o.mode.empty()) {
    r.modes = {rl::parse_mode(o.mode)};
  }
  if (job) {
    const args::LaunchArgs& launch = job->launch;
    if (!o.mem_fraction) r.mem_fraction = job_real(launch, "--sglang-mem-fraction-static", job->file);
    const std::optional<int64_t> per_engine = job_int(launch, "--rollout-num-gpus-per-engine", job->file);
    if (per_engine) {
      rl::EngineLayout e;
      e.gpus = e.tp = static_cast<int>(*per_engine);
      const bool dp_attention = find_arg(launch, "--sglang-enable-dp-attention") != nullptr;
      e.dp_attention = static_cast<int>(job_int(launch, "--sglang-dp-size", job->file).value_or(dp_attention ? e.gpus : 1));
      e.ep = static_cast<int>(job_int(launch, "--sglang-ep-size", job->file).value_or(1));
      r.engine = e;
      // A layout SGLang rejects is refused at the job's argument that sets it.
      try {
        (void)rl::kv_bytes_per_sequence(r.model, e, 1);
      } catch (const Error& err) {
        if (err.kind() != ErrorKind::usage) throw;
        // The rollout model names the engine's field ("engine.ep: ...") where it names none apart.
        const std::string field = err.where().field_path.empty() ? err.message() : err.where().field_path;
        const char* flag = field.rfind("engine.ep", 0) == 0             ? "--sglang-ep-size"
                           : field.rfind("engine.dp_attention", 0) == 0 ? "--sglang-dp-size"
                                                                        : "--rollout-num-gpus-per-engine";
        const args::LaunchArg* a = find_arg(launch, flag);
        if (a == nullptr) a = find_arg(launch, "--rollout-num-gpus-per-engine");
        throw_input(where(*a, job->file), "SGLang rejects this engine layout: {}", err.message());
      }
    }
    if (o.mode.empty()) {
      const bool colocated = find_arg(launch, "--colocate") != nullptr;
      const bool async = util::join(launch.commands, " ").find("train_async.py") != std::string::npos;
      r.modes = {colocated ? rl::Mode::colocated : async ? rl::Mode::async : rl::Mode::sync};
      notes.push_back(fmt::format("mode {}: the job's {}", rl::to_string(r.modes.front()),
                                  colocated ? "--colocate" : async ? "train_async.py" : "train.py without --colocate"));
    }
    const std::optional<int64_t> rollout_gpus = job_int(launch, "--rollout-num-gpus", job->file);
    if (rollout_gpus && r.modes.front() != rl::Mode::colocated) r.rollout_gpus = rollout_gpus;
    // The trainer's knobs the job sets stay; the others are searched.
    r.trainer_base = layout::job_layout(*read, w.longest_tokens(), r.model);
    for (const layout::Knob* knob : read->layout.set) r.trainer_fixed.emplace_back(knob->key);
    r.trainer_fixed.emplace_back("grad_reduce");
  } else {
    // The job ladle writes carries data/rl/job.yaml's --accumulate-allreduce-grads-in-fp32, so the
    // trainer keeps FP32 gradient reduction (a BF16 one would contradict it), as tune --rl does.
    r.trainer_base.grad_reduce = StateDtype::fp32;
    r.trainer_fixed.emplace_back("grad_reduce");
  }
  if (o.mem_fraction) r.mem_fraction = o.mem_fraction;
  r.calibration = flag_calibration(c);
  // The same memory rule as plan's: --margin when given, else the margin at --fit-confidence.
  r.memory_margin = plan::plan_memory_margin(common.margin, c.fit_confidence, r.calibration);
  r.top = common.top;
  r.by_cost = plan::parse_objective(common.objective) == plan::Objective::cost;
  r.rollout_model = [](const ModelSpec& m, const GpuSpec& g, const rl::EngineLayout& e, int engines,
                       const rl::RolloutWorkload& work) { return rl::estimate_rollout(m, g, e, engines, work); };

  rl::RlPlanReport report;
  try {
    report = rl::plan_rl(r);
  } catch (const Error& e) {
    if (!common.json || e.kind() != ErrorKind::no) throw;
    io.out << plan::no_fit_json(r.model.name, cluster.gpu.name, gpus, e.message()).dump(2) << "\n";
    return kExitNo;
  }
  report.notes.insert(report.notes.begin(), notes.begin(), notes.end());

  std::string script;
  if (!common.emit.empty()) {
    rl::RlJobRequest jr;
    jr.model = &r.model;
    jr.step = report.top.front();
    jr.work = w;
    jr.engine = c.engine.empty() ? (read ? read->engine : layout::Engine::slime) : layout::parse_engine(c.engine);
    jr.gpus_per_node = cluster.gpus_per_node();
    jr.title = fmt::format("{} RL on {} x {}, planned by ladle", r.model.name, gpus, cluster.gpu.name);
    script = rl::rl_job_script(jr);
  }
  io.out << (common.json ? rl::rl_plan_json(report) : util::terminal_safe(rl::render_rl_plan(report)));
  if (!script.empty()) {
    util::write_file_atomic(common.emit, script);
    if (!common.json) io.out << fmt::format("\nwrote {} (the best split's job)\n", common.emit);
  }
  return kExitOk;
}

}  // namespace ladle::cli
