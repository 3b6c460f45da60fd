// cmd_tune.cpp: `ladle tune`, the closed loop that makes a recipe on a real scheduler, and
// `tune status|resume|cancel DIR`. The loop itself is ladle::tune::Tuner; this file reads flags,
// builds the settings, reaches the scheduler before anything is written, and maps the outcome to
// an exit code. Ctrl-C (SIGINT) and SIGTERM cancel the running trials and leave DIR resumable.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <variant>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/cli/launch_options.hpp"
#include "ladle/cli/scenario_options.hpp"
#include "ladle/layout/job_args.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/search.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/sched/scheduler.hpp"
#include "ladle/rl/rl_plan.hpp"
#include "ladle/tune/rl_tune.hpp"
#include "ladle/tune/run_lock.hpp"
#include "ladle/tune/tune_db.hpp"
#include "ladle/tune/tuner.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/sha256.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {
namespace {

namespace fs = std::filesystem;

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) { g_interrupted.store(true); }

/// Installs the Ctrl-C / SIGTERM handler for the time a loop runs.
struct InterruptGuard {
  InterruptGuard() {
    g_interrupted.store(false);
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
  }
  ~InterruptGuard() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
  }
};

struct TuneOptions {
  /// --model, --gpu, --gpus, --instance, --engine (default: the engine of --script, else slime),
  /// --script (the user's own job: the base of every trial's job), --row-tokens, --global-batch:
  /// the shared options (scenario_options.hpp).
  ScenarioFlags scenario;
  std::string backend = "local";
  std::string out;
  std::string base;
  std::string start;
  int64_t budget = 12;
  double gpu_hours = 0;
  int64_t steps = 10;
  int64_t confirm_steps = 0;
  int64_t per_round = 4;
  double threshold = 0.03;
  std::string objective = "throughput";
  std::string partition;
  std::string account;
  std::string ray_address;
  int64_t time_limit_s = 0;
  int64_t max_running = 0;
  std::string engine_program;
  bool dry_run = false;
  // --rl (issue 34): the RL job's workload and the trial length.
  bool rl = false;
  std::optional<int64_t> prompts;
  std::optional<int64_t> samples_per_prompt;
  std::optional<int64_t> prompt_len;
  std::optional<int64_t> response_len;
  std::optional<int64_t> response_max;
  int64_t steps_per_rollout = 1;
  std::string rl_mode;
  bool kl = false;
  bool json = false;
};

struct DirOptions {
  std::string dir;
  bool json = false;
};

std::string db_path(const std::string& dir) { return (fs::path(dir) / "tune.db").string(); }

/// A private scratch folder (mkdtemp, mode 0700) removed with everything in it when the guard
/// goes: a dry run's database lives there, so no two dry runs share a file and a killed one
/// leaves nothing that a later one trips over.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "ladle-tune-dry-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw Error(ErrorKind::io, fmt::format("cannot create a scratch folder {}: {}", pattern,
                                             std::strerror(errno)));
    }
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

/// Refuses an --out folder that holds anything but a ladle run: ladle writes recipe.yaml,
/// report.md and chart.svg there and must not overwrite a user's files. A run folder is one with
/// a tuning database (tune.db), which TuneDb::create then names; so once a run starts, everything
/// in its folder is ladle's.
void require_own_out_folder(const std::string& dir) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(dir, ec);
  if (!fs::exists(st)) return;
  if (!fs::is_directory(fs::status(dir, ec))) throw_usage("--out {}: not a folder", dir);
  if (fs::exists(db_path(dir), ec)) return;
  fs::directory_iterator it(dir, ec);
  if (ec) throw_usage("--out {}: cannot list the folder: {}", dir, ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == tune::kRunLockFile) continue;  // left by a run that stopped before its database
    throw_usage(
        "--out {}: the folder holds files ladle did not write (e.g. '{}'); give a new or empty "
        "folder",
        dir, util::terminal_safe_line(name));
  }
  if (ec) throw_usage("--out {}: cannot list the folder: {}", dir, ec.message());
}

/// Removes what a run that submitted nothing wrote into its (new or empty) folder, so that the
/// same command can run again.
void remove_unsubmitted_run(const std::string& dir) {
  std::error_code ec;
  for (const char* name : {"tune.db", "tune.db-wal", "tune.db-shm", "trials", "jobs"})
    fs::remove_all(fs::path(dir) / name, ec);
}

/// The trials and the recipe keep a base recipe's workload, as plan --emit does: a --row-tokens or
/// --global-batch that differs from it is Error(usage), not dropped.
void require_base_workload(const ScenarioFlags& f, const Recipe& base, const std::string& name) {
  if (f.row_tokens && *f.row_tokens != base.workload.row_tokens) {
    throw_usage("--row-tokens {} differs from the base's {} ({}); leave it out or give another --base", *f.row_tokens,
                base.workload.row_tokens, name);
  }
  if (f.global_batch && *f.global_batch != base.workload.global_batch) {
    throw_usage("--global-batch {} differs from the base's {} ({}); leave it out or give another --base",
                *f.global_batch, base.workload.global_batch, name);
  }
}

tune::TuneSettings settings_from(const TuneOptions& o, std::ostream& err) {
  const ScenarioFlags& f = o.scenario;
  if (f.model.empty()) throw_usage("tune needs --model (e.g. glm-4.7-flash)");
  if (f.gpu.empty()) throw_usage("tune needs --gpu (e.g. h200)");
  if (f.gpu_count < 1) throw_usage("tune needs --gpus, the number of GPUs (at least 1)");
  if (o.out.empty())
    throw_usage("tune needs --out DIR, the folder for its database, trials and recipe");
  check_workload_bounds(f);
  if (o.budget < 1) throw_usage("--budget must be at least 1 trial, got {}", o.budget);
  if (o.gpu_hours < 0) throw_usage("--gpu-hours must be positive, got {}", o.gpu_hours);
  if (o.steps < 4) throw_usage("--steps must be at least 4 (warm-up is dropped), got {}", o.steps);
  if (o.per_round < 1) throw_usage("--per-round must be at least 1, got {}", o.per_round);
  if (!(o.threshold > 0 && o.threshold < 1))
    throw_usage("--threshold must be in (0, 1), got {}", o.threshold);
  if (f.engine == "bridge")
    throw_usage("--engine bridge: Megatron-Bridge launch scripts are not emitted yet");
  if (!f.script.empty() && !o.base.empty()) throw_usage("give --script or --base, not both");
  std::optional<layout::JobArgs> job;
  std::string job_text;
  if (!f.script.empty()) {
    job_text = util::read_file(f.script);
    // bash runs the job in the sandbox, as predict --script runs it (the static reader where the
    // sandbox cannot start, said on one line); a launch that sets nothing is refused. The trials'
    // jobs are written from the script's text.
    // Through the one --args/--script policy (read_job), --engine saying whose defaults it takes.
    job = read_job(f, plan::make_cluster(f.gpu, f.gpu_count, f.instance).gpus_per_node(), err)->args;
  }
  // The job's own engine unless --engine names another.
  const std::string engine = !f.engine.empty() ? f.engine : job ? layout::to_string(job->engine) : "slime";
  if (engine == "bridge") throw_usage("{}: a Megatron-Bridge job: tune does not emit Megatron-Bridge jobs yet", f.script);
  layout::parse_engine(engine);
  plan::parse_objective(o.objective);
  tune::TuneSettings s;
  s.model = f.model;
  s.gpu = f.gpu;
  s.gpus = f.gpu_count;
  s.instance = f.instance;
  s.engine = engine;
  s.objective = o.objective;
  s.scheduler.backend = o.backend;
  s.scheduler.partition = o.partition;
  s.scheduler.account = o.account;
  s.scheduler.ray_address = o.ray_address;
  s.out_dir = fs::absolute(o.out).lexically_normal().string();
  s.scheduler.state_dir = (fs::path(s.out_dir) / "jobs").string();
  s.row_tokens = f.row_tokens.value_or(8192);
  s.global_batch = f.global_batch.value_or(128);
  s.budget = o.budget;
  s.gpu_hours_limit = o.gpu_hours;
  s.steps = o.steps;
  s.per_round = o.per_round;
  s.threshold = o.threshold;
  s.trial_time_limit_s = o.time_limit_s;
  s.max_running = o.max_running > 0 ? o.max_running : (o.backend == "local" ? 1 : 0);
  s.poll_s = o.backend == "local" ? 0.1 : 0.5;
  if (!o.engine_program.empty()) s.engine_program = fs::absolute(o.engine_program).string();
  s.confirm_steps = 20;
  const plan::Cluster cluster = plan::make_cluster(f.gpu, f.gpu_count, f.instance);
  Layout start;
  bool have_start = false;
  if (!o.base.empty()) {
    const recipe::LoadedRecipe base = recipe::find_recipe(o.base);
    s.base_path = base.path.empty() ? o.base : fs::absolute(base.path).string();
    start = layout::layout_from_recipe(base.recipe);
    have_start = true;
    require_base_workload(f, base.recipe, o.base);
    s.row_tokens = base.recipe.workload.row_tokens;
    s.global_batch = base.recipe.workload.global_batch;
    if (base.recipe.result && base.recipe.result->steps_per_run >= 4)
      s.confirm_steps = base.recipe.result->steps_per_run;
  }
  if (job) {
    // The user's job: its layout is measured first, its rows and batch are the workload.
    const ModelSpec job_model = model::load_model(f.model);
    check_job_model(*job, job_model);
    // Its rows and batch are the workload, as in predict: an option that contradicts them is an error.
    plan::Workload workload{s.row_tokens, s.global_batch, plan::Precision::bf16};
    apply_job_workload(*job, GivenWorkload{f.row_tokens, f.global_batch, std::nullopt}, workload);
    s.row_tokens = workload.row_tokens;
    s.global_batch = workload.global_batch;
    if (job->fp8) s.precision = "fp8";
    start = layout::job_layout(*job, s.row_tokens, job_model);
    have_start = true;
    s.job_script = job_text;
    s.job_file = fs::path(f.script).filename().string();
  }
  if (!o.start.empty()) {
    start = layout::parse_layout_spec(o.start);
    have_start = true;
  }
  if (o.confirm_steps > 0) s.confirm_steps = o.confirm_steps;
  if (!have_start) {
    plan::PlanRequest request;
    request.model = model::load_model(f.model);
    request.cluster = cluster;
    request.workload = plan::Workload{s.row_tokens, s.global_batch, plan::Precision::bf16};
    request.calibration = plan::default_calibration();
    request.top = 1;
    start = plan::plan_layouts(request).top.front().layout;
  }
  plan::Scenario start_scenario;  // what the starting layout is checked against
  start_scenario.model = model::load_model(f.model);
  start_scenario.cluster = cluster;
  start_scenario.workload = plan::Workload{s.row_tokens, s.global_batch, plan::parse_precision(s.precision)};
  start = layout::resolve_layout(start, start_scenario.context());
  layout::require_valid_layout(start, start_scenario.model, start_scenario.context());
  s.base_layout = layout::format_layout_spec(start);
  s.run_id =
      util::sha256_hex(tune::settings_to_json(s) + std::to_string(::getpid()) +
                       std::to_string(std::chrono::system_clock::now().time_since_epoch().count()))
          .substr(0, 8);
  return s;
}

int outcome_code(tune::TuneOutcome outcome, const tune::TuneDb& db, Io& io,
                 const std::string& dir) {
  switch (outcome) {
    case tune::TuneOutcome::interrupted:
      io.err << "ladle: interrupted; the running trials were cancelled; continue with 'ladle tune "
                "resume "
             << dir << "'\n";
      return 130;
    case tune::TuneOutcome::cancelled:
      io.out << "cancelled\n";
      return kExitNo;
    case tune::TuneOutcome::finished:
      break;
  }
  io.out << tune::status_table(db);
  io.out << "wrote " << (fs::path(dir) / "recipe.yaml").string() << ", report.md, chart.svg\n";
  const auto status = db.meta("finished");
  return status && (*status == "verified" || *status == "measured") ? kExitOk : kExitNo;
}


// `ladle tune --rl`: the RL loop of tune/rl_tune.hpp, which keeps no database.
int run_tune_rl(const TuneOptions& o, Io& io) {
  const ScenarioFlags& f = o.scenario;
  if (f.model.empty()) throw_usage("tune --rl needs --model");
  if (f.gpu.empty()) throw_usage("tune --rl needs --gpu (e.g. h200)");
  if (f.gpu_count < 1) throw_usage("tune --rl needs --gpus, a GPU count");
  if (o.out.empty()) throw_usage("tune --rl needs --out, a folder for the trials' scripts and logs");
  if (!o.base.empty() || !f.script.empty() || !o.start.empty() || o.dry_run) {
    throw_usage("tune --rl takes neither --base, --script, --start nor --dry-run: the candidates are plan --rl's");
  }
  const auto need = [](const std::optional<int64_t>& v, const char* name) {
    if (!v) throw_usage("tune --rl needs {}", name);
    return *v;
  };
  tune::RlTuneSettings s;
  s.engine = f.engine.empty() ? "slime" : f.engine;
  if (s.engine != "slime" && s.engine != "miles") {
    throw_usage("--engine: an RL job runs on slime or miles, not {}", s.engine);
  }
  s.plan.model = model::load_model(f.model);
  s.plan.hardware = plan::ClusterOptions{f.gpu, f.instance, "", std::nullopt};
  s.plan.gpus = f.gpu_count;
  rl::RlWork& w = s.plan.work;
  w.rollout.prompts = need(o.prompts, "--prompts");
  w.rollout.samples_per_prompt = need(o.samples_per_prompt, "--samples-per-prompt");
  w.rollout.prompt_tokens = need(o.prompt_len, "--prompt-len");
  w.rollout.response_mean = need(o.response_len, "--response-len");
  w.rollout.response_max = need(o.response_max, "--response-max");
  w.steps_per_rollout = o.steps_per_rollout;
  w.ref_logprobs = o.kl;
  rl::check_rl_work(s.plan.model, w);
  if (!o.rl_mode.empty()) s.plan.modes = {rl::parse_mode(o.rl_mode)};
  // The job's base arguments (data/rl/job.yaml) accumulate and reduce gradients in FP32
  // (--accumulate-allreduce-grads-in-fp32): the trainer's search keeps that, as plan --rl does for a job.
  s.plan.trainer_base.grad_reduce = StateDtype::fp32;
  s.plan.trainer_fixed = {"grad_reduce"};
  s.plan.calibration = plan::default_calibration();
  s.plan.memory_margin = plan::plan_memory_margin(std::nullopt, std::nullopt, s.plan.calibration);
  s.plan.rollout_model = [](const ModelSpec& m, const GpuSpec& g, const rl::EngineLayout& e, int engines,
                            const rl::RolloutWorkload& work) { return rl::estimate_rollout(m, g, e, engines, work); };
  if (o.budget < 1) throw_usage("--budget: expected at least 1 trial, got {}", o.budget);
  if (o.steps < 3) throw_usage("--steps: tune --rl runs this many rollouts per trial, at least 3, got {}", o.steps);
  s.budget = o.budget;
  s.rollouts = o.steps;
  s.threshold = o.threshold;
  s.time_limit_s = o.time_limit_s > 0 ? o.time_limit_s : 1800;
  s.scheduler.backend = o.backend;
  s.scheduler.partition = o.partition;
  s.scheduler.account = o.account;
  s.scheduler.ray_address = o.ray_address;
  s.out_dir = fs::absolute(o.out).lexically_normal().string();
  s.scheduler.state_dir = (fs::path(s.out_dir) / "jobs").string();
  s.poll_s = o.backend == "local" ? 0.1 : 0.5;
  if (!o.engine_program.empty()) s.engine_program = fs::absolute(o.engine_program).string();
  s.run_id = util::sha256_hex(f.model + std::to_string(::getpid()) +
                              std::to_string(std::chrono::system_clock::now().time_since_epoch().count()))
                 .substr(0, 8);
  if (fs::exists(s.out_dir) && !fs::is_empty(s.out_dir)) {
    throw_usage("--out {}: tune --rl needs a new or empty folder", o.out);
  }
  auto scheduler = sched::make_scheduler(s.scheduler);
  const tune::RlTuneResult result = tune::run_rl_tune(s, *scheduler, o.json ? nullptr : &io.err);
  const std::string json = tune::rl_tune_json(result);
  util::write_file_atomic((fs::path(s.out_dir) / "rl-tune.json").string(), json);
  io.out << (o.json ? json : tune::render_rl_tune(result));
  return result.best ? kExitOk : kExitNo;
}

int run_tune(const TuneOptions& o, Io& io) {
  if (o.rl) return run_tune_rl(o, io);
  tune::TuneSettings settings = settings_from(o, io.err);
  if (o.dry_run) settings.run_id = "dryrun00";
  auto scheduler = sched::make_scheduler(settings.scheduler);
  if (o.dry_run) {
    // A fixed run id, so that the preview is the same for the same flags; the preview touches
    // neither the folder nor the scheduler (its scratch database lives in a private folder).
    const ScratchDir scratch;
    tune::TuneDb db = tune::TuneDb::create((scratch.path() / "tune.db").string(), {});
    tune::Tuner tuner(db, *scheduler, settings, nullptr);
    const auto trials = tuner.preview_first_round();
    io.out << fmt::format(
        "dry run: round 1 of run {} on {} ({} trials of {} steps); nothing submitted\n",
        settings.run_id, settings.scheduler.backend, trials.size(), settings.steps);
    for (const tune::Trial& t : trials) {
      io.out << fmt::format(
          "  trial {} {} predicted {:.1f} tokens/s/GPU (log sd {:.1f}%), expected improvement "
          "{:.2f}%\n",
          t.id, t.layout, t.predicted_tokens_per_s_per_gpu, 100 * t.predicted_sigma,
          100 * t.expected_improvement);
    }
    io.out << "\nscript of trial 1 (" << fs::relative(trials.front().script_path).string() << "):\n"
           << tuner.script_for(trials.front());
    return kExitOk;
  }
  scheduler->check_reachable();
  require_own_out_folder(o.out);
  fs::create_directories(settings.out_dir);
  const tune::RunLock lock = tune::RunLock::acquire(settings.out_dir);
  const std::string path = db_path(settings.out_dir);
  tune::TuneDb db = tune::TuneDb::create(
      path, {{"run_id", settings.run_id}, {"settings", tune::settings_to_json(settings)}});
  tune::Tuner tuner(db, *scheduler, settings, &io.err);
  InterruptGuard guard;
  tune::TuneOutcome outcome;
  try {
    outcome = tuner.run(g_interrupted);
  } catch (const Error& e) {
    if (db.submissions().empty() && e.kind() == ErrorKind::input) {
      // Nothing reached the scheduler: leave none of the run behind (the folder was new or
      // empty), so the same command can run again.
      remove_unsubmitted_run(settings.out_dir);
    }
    throw;
  }
  return outcome_code(outcome, db, io, settings.out_dir);
}

/// The run's settings, with its paths where the run's folder is now (a copied or moved folder
/// works on its own files, never on those of the folder it was copied from).
tune::TuneSettings settings_of(const tune::TuneDb& db) {
  const auto text = db.meta("settings");
  if (!text) throw_usage("{}: the database holds no run settings", db.path());
  tune::TuneSettings settings = tune::settings_from_json(*text, db.path());
  settings.out_dir = db.folder().string();
  settings.scheduler.state_dir = (db.folder() / "jobs").string();
  return settings;
}

/// The run's database, opened for writing once this process holds the run's lock.
tune::TuneDb open_locked(const std::string& dir, std::optional<tune::RunLock>& lock) {
  const std::string path = db_path(dir);
  if (!fs::exists(path)) return tune::TuneDb::open(path);  // says there is no database here
  lock = tune::RunLock::acquire(dir);
  return tune::TuneDb::open(path);
}

int run_resume(const DirOptions& o, Io& io) {
  std::optional<tune::RunLock> lock;
  tune::TuneDb db = open_locked(o.dir, lock);
  const tune::TuneSettings settings = settings_of(db);
  if (db.meta("cancelled"))
    throw_usage("{}: run {} was cancelled; start a new one", o.dir, settings.run_id);
  auto scheduler = sched::make_scheduler(settings.scheduler);
  scheduler->check_reachable();
  tune::Tuner tuner(db, *scheduler, settings, &io.err);
  InterruptGuard guard;
  return outcome_code(tuner.run(g_interrupted), db, io, settings.out_dir);
}

int run_cancel(const DirOptions& o, Io& io) {
  std::optional<tune::RunLock> lock;
  tune::TuneDb db = open_locked(o.dir, lock);
  const tune::TuneSettings settings = settings_of(db);
  auto scheduler = sched::make_scheduler(settings.scheduler);
  scheduler->check_reachable();
  tune::Tuner tuner(db, *scheduler, settings, &io.err);
  tuner.cancel_run();
  io.out << tune::status_table(db);
  return kExitOk;
}

int run_status(const DirOptions& o, Io& io) {
  const tune::TuneDb db = tune::TuneDb::open(db_path(o.dir), tune::TuneDb::Access::read_only);
  io.out << (o.json ? tune::status_json(db) : tune::status_table(db));
  return kExitOk;
}

}  // namespace

void add_tune_command(CLI::App& command, Io& io) {
  auto o = std::make_shared<TuneOptions>();
  // The flags of a tuning run, one row each.
  using Field =
      std::variant<std::string TuneOptions::*, int64_t TuneOptions::*, double TuneOptions::*>;
  struct Flag {
    const char* name;
    Field field;
    const char* help;
  };
  // What is trained on what, and the user's job: the shared options.
  ScenarioFlags& shared = o->scenario;
  add_model_option(command, shared);
  add_gpu_options(command, shared, GpuCounts::one);
  add_engine_option(command, shared,
                    "and the engine of the trials' jobs (default: the script's, else slime; Megatron-Bridge jobs are "
                    "not written yet)");
  add_script_option(command, shared,
                    "every trial's job keeps everything of it but the layout, and its layout is measured first");
  add_batch_options(command, shared);
  static const Flag kFlags[] = {
      {"--backend", &TuneOptions::backend, "local, slurm or ray (default local)"},
      {"--out", &TuneOptions::out, "folder for tune.db, the trials, recipe.yaml and report.md"},
      {"--base", &TuneOptions::base,
       "base recipe: its layout is measured first and its workload kept"},
      {"--start", &TuneOptions::start,
       "layout spec measured first (default: the base recipe's, else the plan's best)"},
      {"--budget", &TuneOptions::budget, "exploration trials at most (default 12)"},
      {"--gpu-hours", &TuneOptions::gpu_hours,
       "stop once the trials have used this many GPU-hours"},
      {"--steps", &TuneOptions::steps, "steps per exploration trial (default 10)"},
      {"--confirm-steps", &TuneOptions::confirm_steps,
       "steps of the confirmation and reference runs (default: the base recipe's, else 20)"},
      {"--per-round", &TuneOptions::per_round, "trials proposed per round (default 4)"},
      {"--threshold", &TuneOptions::threshold,
       "stop below this expected improvement (default 0.03)"},
      {"--objective", &TuneOptions::objective, "throughput or cost (default throughput)"},
      {"--partition", &TuneOptions::partition, "slurm: --partition of the trial jobs"},
      {"--account", &TuneOptions::account, "slurm: --account of the trial jobs"},
      {"--ray-address", &TuneOptions::ray_address, "ray: the dashboard's http://host:port"},
      {"--time-limit", &TuneOptions::time_limit_s,
       "seconds a trial may run before it is cancelled as timeout"},
      {"--max-running", &TuneOptions::max_running,
       "trials running at once (default: local 1, else all)"},
      {"--engine-program", &TuneOptions::engine_program,
       "a program run in place of python3/torchrun in the trial scripts (a stand-in engine)"},
  };
  for (const Flag& f : kFlags) {
    std::visit([&](auto field) { command.add_option(f.name, (*o).*field, f.help); }, f.field);
  }
  CLI::Option* rl = command.add_flag(
      "--rl", o->rl,
      "tune a slime/miles RL job: the GPU split, the engine's and the trainer's layouts, from plan --rl's "
      "candidates (docs/rl.md); --steps is then rollouts per trial");
  command.add_option("--prompts", o->prompts, "RL: prompts per rollout (--rollout-batch-size)")->needs(rl);
  command.add_option("--samples-per-prompt", o->samples_per_prompt, "RL: responses per prompt")->needs(rl);
  command.add_option("--prompt-len", o->prompt_len, "RL: mean prompt tokens")->needs(rl);
  command.add_option("--response-len", o->response_len, "RL: mean response tokens")->needs(rl);
  command.add_option("--response-max", o->response_max, "RL: the longest response (--rollout-max-response-len)")
      ->needs(rl);
  command.add_option("--steps-per-rollout", o->steps_per_rollout, "RL: optimizer steps per rollout (default 1)")
      ->needs(rl);
  command.add_option("--rl-mode", o->rl_mode, "RL: colocated, sync or async (default: all three)")->needs(rl);
  command.add_flag("--kl", o->kl, "RL: a KL term to the reference policy")->needs(rl);
  command.add_flag("--json", o->json, "RL: print the trials and the best as JSON")->needs(rl);
  command.add_flag("--dry-run", o->dry_run,
                   "print round 1 and its first script; write and submit nothing");
  command.require_subcommand(0, 1);

  auto dir = std::make_shared<DirOptions>();
  CLI::App* status =
      command.add_subcommand("status", "print a tuning run's trials and best (DIR/tune.db)");
  status->add_option("dir", dir->dir, "the run's --out folder")->required();
  add_json_flag(*status, dir->json);
  status->callback([dir, &io] { io.exit_code = run_status(*dir, io); });
  CLI::App* resume =
      command.add_subcommand("resume", "continue a tuning run after a kill or Ctrl-C");
  resume->add_option("dir", dir->dir, "the run's --out folder")->required();
  resume->callback([dir, &io] { io.exit_code = run_resume(*dir, io); });
  CLI::App* cancel =
      command.add_subcommand("cancel", "cancel a tuning run's running trials and end it");
  cancel->add_option("dir", dir->dir, "the run's --out folder")->required();
  cancel->callback([dir, &io] { io.exit_code = run_cancel(*dir, io); });

  command.callback([o, &io, &command] {
    for (const CLI::App* sub : command.get_subcommands()) {
      if (sub->parsed()) return;
    }
    io.exit_code = run_tune(*o, io);
  });
}

}  // namespace ladle::cli
