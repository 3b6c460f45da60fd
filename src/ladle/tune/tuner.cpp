#include "ladle/tune/tuner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <thread>

#include "ladle/check/rules.hpp"
#include "ladle/launch/base.hpp"
#include "ladle/launch/job_script.hpp"
#include "ladle/layout/job_args.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/model/params.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/measurements.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/launch/planned_recipe.hpp"
#include "ladle/plan/search.hpp"
#include "ladle/recipe/recipe_io.hpp"
#include "ladle/runlog/run_log.hpp"
#include "ladle/tune/belief.hpp"
#include "ladle/tune/failure.hpp"
#include "ladle/tune/log_text.hpp"
#include "ladle/tune/memory_belief.hpp"
#include "ladle/tune/proposer.hpp"
#include "ladle/tune/report.hpp"
#include "ladle/tune/trial_score.hpp"
#include "ladle/tune/trial_script.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/text.hpp"
#include "ladle/verify/config_diff.hpp"
#include "ladle/verify/convergence.hpp"
#include "ladle/verify/score.hpp"

namespace ladle::tune {

namespace fs = std::filesystem;
using nlohmann::json;

// How many candidates the planner ranks for each proposal (more than any budget needs).
constexpr int64_t kCandidates = 400;

/// Everything derived once from the settings: the scenario (model, costs, cluster, workload; its
/// calibration is the prior, ladle's embedded one), the engine, the prior belief and the base.
struct Tuner::Problem : plan::Scenario {
  layout::Engine engine = layout::Engine::slime;
  Belief belief;  ///< the prior belief: the fidelity fit's constants, covariance and spread
  launch::Base base;        ///< everything of a trial's job that is not layout (launch/base.hpp)
  std::string base_run;     ///< the base recipe's launch script ("" : the planned recipe's)
};

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string job_name_for(const std::string& run_id, int64_t trial, int64_t attempt) {
  return attempt <= 1 ? fmt::format("ladle-{}-{}", run_id, trial)
                      : fmt::format("ladle-{}-{}-a{}", run_id, trial, attempt);
}

int64_t early_records(int64_t steps) { return std::max<int64_t>(4, (steps + 1) / 2); }

std::string percent(double fraction) { return fmt::format("{:.2f}%", 100 * fraction); }

// The lines a job's input checks print before anything starts (launch/job_script.hpp: "ladle job:
// NAME is not set: ..."): a missing checkout, data path or checkpoint is the same for every layout.
std::vector<std::string> setup_errors(std::string_view log) {
  constexpr std::string_view kTag = "ladle job: ";
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < log.size()) {
    size_t end = log.find('\n', pos);
    if (end == std::string_view::npos) end = log.size();
    const std::string_view line = log.substr(pos, end - pos);
    if (line.rfind(kTag, 0) == 0) out.push_back(visible_text(line.substr(kTag.size())));
    pos = end + 1;
  }
  return out;
}

}  // namespace

std::string settings_to_json(const TuneSettings& s) {
  const json j = {
      {"run_id", s.run_id},
      {"model", s.model},
      {"gpu", s.gpu},
      {"gpus", s.gpus},
      {"instance", s.instance},
      {"engine", s.engine},
      {"objective", s.objective},
      {"backend", s.scheduler.backend},
      {"state_dir", s.scheduler.state_dir},
      {"partition", s.scheduler.partition},
      {"account", s.scheduler.account},
      {"ray_address", s.scheduler.ray_address},
      {"out_dir", s.out_dir},
      {"base_path", s.base_path},
      {"base_layout", s.base_layout},
      {"job_script", s.job_script},
      {"job_file", s.job_file},
      {"row_tokens", s.row_tokens},
      {"global_batch", s.global_batch},
      {"precision", s.precision},
      {"budget", s.budget},
      {"gpu_hours_limit", s.gpu_hours_limit},
      {"steps", s.steps},
      {"confirm_steps", s.confirm_steps},
      {"per_round", s.per_round},
      {"threshold", s.threshold},
      {"patience", s.patience},
      {"prior_weight", s.prior_weight},
      {"early_stop_fraction", s.early_stop_fraction},
      {"trial_time_limit_s", s.trial_time_limit_s},
      {"time_limit_factor", s.time_limit_factor},
      {"time_limit_floor_s", s.time_limit_floor_s},
      {"max_running", s.max_running},
      {"poll_s", s.poll_s},
      {"engine_program", s.engine_program},
  };
  return j.dump(2);
}

TuneSettings settings_from_json(const std::string& text, const std::string& path) {
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object())
    throw_input(SourceLocation{path, 0, 0, "settings"}, "the run's settings are not a JSON object");
  TuneSettings s;
  try {
    s.run_id = j.at("run_id");
    s.model = j.at("model");
    s.gpu = j.at("gpu");
    s.gpus = j.at("gpus");
    s.instance = j.at("instance");
    s.engine = j.at("engine");
    s.objective = j.at("objective");
    s.scheduler.backend = j.at("backend");
    s.scheduler.state_dir = j.at("state_dir");
    s.scheduler.partition = j.at("partition");
    s.scheduler.account = j.at("account");
    s.scheduler.ray_address = j.at("ray_address");
    s.out_dir = j.at("out_dir");
    s.base_path = j.at("base_path");
    s.base_layout = j.at("base_layout");
    // Absent from runs started before tune took --script.
    s.job_script = j.value("job_script", std::string());
    s.job_file = j.value("job_file", std::string());
    s.row_tokens = j.at("row_tokens");
    s.global_batch = j.at("global_batch");
    s.precision = j.at("precision");
    s.budget = j.at("budget");
    s.gpu_hours_limit = j.at("gpu_hours_limit");
    s.steps = j.at("steps");
    s.confirm_steps = j.at("confirm_steps");
    s.per_round = j.at("per_round");
    s.threshold = j.at("threshold");
    s.patience = j.at("patience");
    s.prior_weight = j.at("prior_weight");
    s.early_stop_fraction = j.at("early_stop_fraction");
    s.trial_time_limit_s = j.at("trial_time_limit_s");
    // Absent from runs started before the default limit existed: they get it on resume.
    s.time_limit_factor = j.value("time_limit_factor", s.time_limit_factor);
    s.time_limit_floor_s = j.value("time_limit_floor_s", s.time_limit_floor_s);
    s.max_running = j.at("max_running");
    s.poll_s = j.at("poll_s");
    s.engine_program = j.at("engine_program");
  } catch (const json::exception& e) {
    throw_input(SourceLocation{path, 0, 0, "settings"}, "the run's settings are incomplete: {}",
                e.what());
  }
  return s;
}

int64_t trial_time_limit_s(const TuneSettings& s, const Trial& t, int64_t gpus) {
  if (s.trial_time_limit_s > 0) return s.trial_time_limit_s;
  const double rate =
      t.predicted_tokens_per_s_per_gpu * static_cast<double>(std::max<int64_t>(1, gpus));
  const double tokens = static_cast<double>(s.global_batch) * static_cast<double>(s.row_tokens);
  const double step_s = rate > 0 ? tokens / rate : 0;
  const double limit = s.time_limit_factor * static_cast<double>(t.steps) * step_s;
  // A limit past a year is no limit anyone means; it also keeps the cast below in range.
  constexpr double kYear = 365.0 * 24 * 3600;
  if (!std::isfinite(limit) || limit > kYear) return static_cast<int64_t>(kYear);
  return std::max<int64_t>(s.time_limit_floor_s, static_cast<int64_t>(std::ceil(limit)));
}

std::optional<std::string> check_rejection(const Recipe& r, const std::string& path) {
  std::vector<recipe::Finding> findings;
  try {
    const recipe::LoadedRecipe loaded = recipe::read_recipe(recipe::write_recipe(r), path);
    findings = check::check_recipe(loaded).findings;
    for (recipe::Finding& f : layout::block_disagreements(loaded)) findings.push_back(std::move(f));
  } catch (const Error& e) {
    return "it does not read back: " + e.message();
  }
  if (findings.empty()) return std::nullopt;
  std::string why;
  for (const recipe::Finding& f : findings) {
    why += fmt::format("{}{}: {}{}", why.empty() ? "" : "; ", f.rule, f.message,
                       f.field.empty() ? "" : " (" + f.field + ")");
  }
  return visible_text(why);
}

Tuner::Tuner(TuneDb& db, sched::Scheduler& scheduler, TuneSettings settings, std::ostream* progress)
    : db_(db), scheduler_(scheduler), settings_(std::move(settings)), progress_(progress) {
  auto p = std::make_shared<Problem>();
  p->model = model::load_model(settings_.model);
  p->cluster = plan::make_cluster(settings_.gpu, settings_.gpus, settings_.instance);
  p->workload = plan::Workload{settings_.row_tokens, settings_.global_batch,
                               plan::parse_precision(settings_.precision)};
  p->price_model();
  p->engine = layout::parse_engine(settings_.engine);
  p->calibration = plan::default_calibration();
  p->belief = prior_belief(p->calibration, plan::embedded_measurements().runs);
  if (!settings_.job_script.empty() && settings_.base_path.empty()) {
    // The user's job is the base: everything that is not a layout knob is the job's, verbatim.
    const args::LaunchArgs launch = args::parse_launch_args(settings_.job_script, settings_.job_file);
    const layout::JobArgs job = layout::read_job_args(launch, std::nullopt, settings_.job_file);
    Workload workload;
    workload.row_tokens = settings_.row_tokens;
    workload.global_batch = settings_.global_batch;
    workload.precision = settings_.precision;
    p->base = launch::base_from_job(launch, job.engine, p->engine, settings_.job_file, workload);
    p->base_run = settings_.job_script;
  } else {
    p->base = launch::resolve_base(settings_.base_path, p->model, p->engine, settings_.row_tokens,
                                   settings_.global_batch);
    if (!settings_.base_path.empty())
      p->base_run = recipe::read_recipe_file(settings_.base_path).recipe.run;
  }
  problem_ = std::move(p);
}

void Tuner::say(const std::string& line) const {
  if (progress_) *progress_ << "tune: " << line << std::endl;
}

// The belief refitted on every measured trial (belief.hpp).
static Belief refit(const Tuner::Problem& p, const std::vector<Trial>& trials,
                    double prior_weight) {
  std::vector<plan::Measurement> ms;
  for (const Trial& t : trials) {
    if (!is_measured(t.state) || !t.measured_tokens_per_s_per_gpu) continue;
    plan::Measurement m;
    static_cast<plan::Scenario&>(m) = p;
    m.name = fmt::format("trial {}", t.id);
    m.layout = layout::resolve_layout(layout::parse_layout_spec(t.layout), p.context());
    m.measured_tokens_per_s_per_gpu = *t.measured_tokens_per_s_per_gpu;
    ms.push_back(std::move(m));
  }
  Belief belief = update_belief(p.belief, ms, prior_weight);
  if (!ms.empty()) {
    belief.calibration.source =
        fmt::format("refitted by ladle tune on {} trial{}", ms.size(), ms.size() == 1 ? "" : "s");
  }
  return belief;
}

// Each prediction's predictive spread under `belief`, same order.
static std::vector<double> sigmas_of(const Tuner::Problem& p, const Belief& belief,
                                     const std::vector<Prediction>& predictions) {
  plan::Measurement m;
  static_cast<plan::Scenario&>(m) = p;
  std::vector<double> out;
  for (const Prediction& pr : predictions) {
    m.layout = pr.layout;
    out.push_back(predictive_sigma(belief, m));
  }
  return out;
}

// Each prediction's probability of fitting in memory after `trials` (memory_belief.hpp).
static std::vector<double> fit_probabilities_of(const Tuner::Problem& p, const std::vector<Trial>& trials,
                                                const std::vector<Prediction>& predictions) {
  const double capacity = plan::hbm_capacity_gib(p.cluster.gpu);
  const MemoryBelief belief = memory_belief(trials, capacity, p.calibration.memory_log_spread);
  std::vector<double> out;
  for (const Prediction& pr : predictions) out.push_back(fit_probability(belief, pr.memory_gib, capacity));
  return out;
}

// Predicted memory a proposal must stay under: the usable HBM of the search, and below the
// smallest prediction of any layout that ran out of memory (real memory grows with the
// predicted, so a layout predicted to need more would run out too).
static double memory_limit(const Tuner::Problem& p, const std::vector<Trial>& trials) {
  double limit = plan::hbm_capacity_gib(p.cluster.gpu) * 0.95;
  for (const Trial& t : trials) {
    if (t.state == TrialState::oom && t.predicted_memory_gib > 0)
      limit = std::min(limit, t.predicted_memory_gib - 0.05);
  }
  return limit;
}

static std::vector<Prediction> ranked(const Tuner::Problem& p, const plan::Calibration& calibration,
                                      double limit_gib, const std::string& objective) {
  plan::PlanRequest request;
  request.model = p.model;
  request.cluster = p.cluster;
  request.workload = p.workload;
  request.calibration = calibration;
  request.top = kCandidates;
  // The loop keeps the base's numerics: a BF16 gradient reduce is a precision change that its
  // confirmation run cannot verify (the configuration check leaves it pending), so it is not tuned.
  request.fixed = {"grad_reduce"};
  request.objective = plan::parse_objective(objective);
  request.memory_margin =
      std::clamp(1.0 - limit_gib / plan::hbm_capacity_gib(p.cluster.gpu), 0.0, 0.99);
  return plan::plan_layouts(request).top;
}

static Prediction predict_spec(const Tuner::Problem& p, const std::string& spec,
                               const plan::Calibration& calibration) {
  const Layout l = layout::resolve_layout(layout::parse_layout_spec(spec), p.context());
  return plan::predict(p.costs, p.model, l, p.cluster, p.workload, calibration);
}

static double incumbent(const std::vector<Trial>& trials, int64_t before_round) {
  double best = 0;
  for (const Trial& t : trials) {
    if (t.kind == TrialKind::explore && t.round < before_round && is_measured(t.state) &&
        t.measured_tokens_per_s_per_gpu) {
      best = std::max(best, *t.measured_tokens_per_s_per_gpu);
    }
  }
  return best;
}

std::string Tuner::script_for(const Trial& t) const {
  const Problem& p = *problem_;
  const Prediction pred = predict_spec(p, t.layout, p.calibration);
  TrialScriptInputs in;
  in.job_name = t.job_name;
  in.layout_spec = t.layout;
  in.engine = p.engine;
  in.steps = t.steps;
  in.engine_program = settings_.engine_program;
  if (settings_.engine_program.empty()) {
    // The complete job of the planned recipe (launch/job_script.hpp) with a short run length.
    in.engine_run = launch::planned_recipe(p, pred, p.engine, p.base).run;
  } else {
    // A stand-in engine gets the entry point's arguments alone (no Ray head, no input checks).
    launch::JobRequest job;
    job.base = &p.base;
    job.model = &p.model;
    job.layout = pred.layout;
    job.engine = p.engine;
    job.gpus = p.cluster.gpus;
    job.gpus_per_node = p.cluster.gpus_per_node();
    job.precision = plan::to_string(p.workload.precision);
    const int64_t per_node = std::min<int64_t>(p.cluster.gpus, p.cluster.gpus_per_node());
    const int64_t nodes = (p.cluster.gpus + per_node - 1) / per_node;
    const std::string entry =
        p.engine == layout::Engine::megatron
            ? fmt::format("torchrun --nnodes {} --nproc-per-node {} pretrain_gpt.py", nodes,
                          per_node)
            : fmt::format("python3 {}",
                          p.engine == layout::Engine::miles ? "train.py" : "train_async.py");
    in.engine_run = entry + " \\\n  " + launch::job_args_line(job) + "\n";
  }
  return trial_script(in);
}

// A trial of `layout` with its prediction and predictive spread under `belief`.
static Trial planned_trial(const Tuner::Problem& p, const Belief& belief, const std::string& spec,
                           TrialKind kind, int64_t round, int64_t steps) {
  const Prediction pred = predict_spec(p, spec, belief.calibration);
  Trial t;
  t.round = round;
  t.kind = kind;
  t.layout = spec;
  t.steps = steps;
  t.predicted_tokens_per_s_per_gpu = pred.tokens_per_s_per_gpu;
  t.predicted_sigma = sigmas_of(p, belief, {pred}).front();
  t.predicted_memory_gib = pred.memory_gib;
  return t;
}

// The exploration trial of a proposal.
static Trial proposed_trial(const Candidate& c, int64_t round, int64_t steps) {
  Trial t;
  t.round = round;
  t.layout = c.spec;
  t.steps = steps;
  t.predicted_tokens_per_s_per_gpu = c.prediction.tokens_per_s_per_gpu;
  t.predicted_sigma = c.sigma;
  t.predicted_memory_gib = c.prediction.memory_gib;
  t.expected_improvement = c.expected_improvement;
  return t;
}

// The job name and files of a trial, from its id and attempt.
static void name_trial(Trial& t, const TuneSettings& settings) {
  t.job_name = job_name_for(settings.run_id, t.id, t.attempt);
  const fs::path dir = fs::path(settings.out_dir) / "trials" / std::to_string(t.id);
  t.script_path = (dir / "job.sh").string();
  t.log_path = (dir / "job.log").string();
}

// The fitted constants of `c` as a JSON object (a round's record).
static std::string fitted_constants_json(const plan::Calibration& c) {
  json constants = json::object();
  for (const auto& k : plan::calibration_constants(c)) {
    if (k.fitted) constants[k.name] = k.value;
  }
  return constants.dump();
}

std::vector<Trial> Tuner::preview_first_round() const {
  const Problem& p = *problem_;
  std::vector<Trial> out = {
      planned_trial(p, p.belief, settings_.base_layout, TrialKind::explore, 1, settings_.steps)};
  const int64_t count = std::min(settings_.per_round, settings_.budget) - 1;
  const std::vector<Prediction> preds =
      ranked(p, p.calibration, memory_limit(p, {}), settings_.objective);
  // Nothing is measured yet: the base layout's prediction is the bar to beat.
  for (const Candidate& c : propose(preds, sigmas_of(p, p.belief, preds), {settings_.base_layout},
                                    out.front().predicted_tokens_per_s_per_gpu, count,
                                    fit_probabilities_of(p, {}, preds))) {
    out.push_back(proposed_trial(c, 1, settings_.steps));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].id = static_cast<int64_t>(i) + 1;
    name_trial(out[i], settings_);
  }
  return out;
}

void Tuner::start() {
  if (!db_.trials().empty()) return;
  std::vector<Trial> first = preview_first_round();
  RoundRecord r0;
  r0.round = 0;
  r0.calibration_yaml =
      plan::write_calibration(problem_->calibration, {"the prior: ladle's embedded calibration"});
  r0.constants_json = fitted_constants_json(problem_->calibration);
  r0.sigma = problem_->belief.residual_sigma;
  r0.memory_limit_gib = memory_limit(*problem_, {});
  r0.decision = "continue";
  db_.add_trials(first,
                 r0);  // announced as they are submitted: a rejected first job prints one line
}

void Tuner::submit(Trial& t, bool first_of_run) {
  if (t.state == TrialState::submitting) {
    // A previous ladle may have submitted it before it died: look it up by name first.
    if (auto id = scheduler_.find(t.job_name, t.log_path)) {
      t.job_id = *id;
      t.state = TrialState::submitted;
      db_.update_trial(t);
      say(fmt::format("trial {}: found job {} ({}) on {}", t.id, t.job_name, t.job_id,
                      scheduler_.name()));
      return;
    }
  } else {
    t.state = TrialState::submitting;
    db_.update_trial(t);
  }
  sched::JobSpec job;
  job.name = t.job_name;
  job.script = script_for(t);
  job.script_path = t.script_path;
  job.log_path = t.log_path;
  job.nodes = (problem_->cluster.gpus + problem_->cluster.gpus_per_node() - 1) /
              problem_->cluster.gpus_per_node();
  job.gpus_per_node = std::min<int64_t>(problem_->cluster.gpus, problem_->cluster.gpus_per_node());
  // The scheduler's own limit backs up ladle's (refresh), which cancels first.
  job.time_limit_s = trial_time_limit_s(settings_, t, problem_->cluster.gpus) + 120;
  if (t.attempt > 1 || fs::exists(t.log_path)) {
    std::error_code ec;
    fs::remove(t.log_path, ec);  // a rerun's log starts empty (ladle wrote the old one's folder)
  }
  try {
    t.job_id = scheduler_.submit(job);
  } catch (const Error& e) {
    if (first_of_run) {
      t.state = TrialState::proposed;
      db_.update_trial(t);
      throw;
    }
    t.state = TrialState::failed;
    t.detail = "the scheduler rejected the job: " + e.message();
    db_.update_trial(t);
    say(fmt::format("trial {}: {}", t.id, t.detail));
    return;
  }
  t.state = TrialState::submitted;
  t.submitted_at = now_s();
  db_.update_trial(t);
  db_.record_submission(t.job_name, t.id, t.job_id);
  say(fmt::format(
      "trial {} (round {}, {}) {} predicted {:.1f} tokens/s/GPU: submitted {} as {} job {}", t.id,
      t.round, to_string(t.kind), layout::layout_label(layout::parse_layout_spec(t.layout)),
      t.predicted_tokens_per_s_per_gpu, t.job_name, scheduler_.name(), t.job_id));
}

void Tuner::refresh(Trial& t) {
  const sched::JobStatus status = scheduler_.state(t.job_id);
  const std::string log = scheduler_.read_log(t.job_id, t.log_path);
  if (sched::is_finished(status.state)) {
    finish_trial(t, status, log);
    return;
  }
  if (stop_early(t, log)) {
    scheduler_.cancel(t.job_id);
    db_.update_trial(t);
    say(fmt::format("trial {}: stopped early, {}", t.id, t.detail));
    return;
  }
  // The limit counts the time a trial runs, as a scheduler's own limit does, so a job waiting in
  // a busy queue is not ended as a timeout. The count starts when this process first sees the job
  // running (a resumed run starts it again, which errs on the generous side).
  if (status.state != sched::JobState::running) return;
  const double started = running_since_.try_emplace(t.id, now_s()).first->second;
  const int64_t limit = trial_time_limit_s(settings_, t, problem_->cluster.gpus);
  if (now_s() - started > static_cast<double>(limit)) {
    scheduler_.cancel(t.job_id);
    t.state = TrialState::timeout;
    t.detail =
        fmt::format("ran past the trial time limit of {} s{}; cancelled", limit,
                    settings_.trial_time_limit_s > 0
                        ? ""
                        : fmt::format(" (the default: {} x its predicted run time, at least {} s)",
                                      settings_.time_limit_factor, settings_.time_limit_floor_s));
    db_.update_trial(t);
    say(fmt::format("trial {}: timeout", t.id));
  }
}

bool Tuner::stop_early(Trial& t, const std::string& log) const {
  const double best = incumbent(db_.trials(), t.round);
  if (t.kind != TrialKind::explore || best <= 0) return false;
  const ScoreShape shape{problem_->cluster.gpus, settings_.row_tokens, settings_.global_batch};
  const int64_t n = early_records(t.steps);
  const auto partial = score_trial_log(log, t.log_path, shape, n, 2);
  if (!partial || partial->records != n ||
      partial->tokens_per_s_per_gpu >= settings_.early_stop_fraction * best) {
    return false;
  }
  t.state = TrialState::stopped_early;
  t.measured_tokens_per_s_per_gpu = partial->tokens_per_s_per_gpu;
  t.step_time_s = partial->median_step_time_s;
  t.step_time_cv_percent = partial->step_time_cv_percent;
  t.gpu_hours = partial->gpu_hours;
  t.detail = fmt::format("first {} steps: {:.1f} tokens/s/GPU < {} x the incumbent {:.1f}", n,
                         partial->tokens_per_s_per_gpu, settings_.early_stop_fraction, best);
  return true;
}

void Tuner::finish_trial(Trial& t, const sched::JobStatus& status, const std::string& log) {
  const ScoreShape shape{problem_->cluster.gpus, settings_.row_tokens, settings_.global_batch};
  const auto full = score_trial_log(log, t.log_path, shape, std::nullopt, 2);
  if (status.state == sched::JobState::succeeded && full) {
    // The early-stop rule judges the first steps alone, whether or not the cancel came in time,
    // so the trials a run makes do not depend on when ladle looked.
    if (stop_early(t, log)) {
      t.gpu_hours = full->gpu_hours;
    } else {
      t.state = TrialState::scored;
      t.measured_tokens_per_s_per_gpu = full->tokens_per_s_per_gpu;
      t.step_time_s = full->median_step_time_s;
      t.step_time_cv_percent = full->step_time_cv_percent;
      t.gpu_hours = full->gpu_hours;
      if (t.attempt == 1) t.detail.clear();  // a retry keeps why it was retried
    }
    if (const size_t skipped = log.find(sched::kLogSkippedMarker); skipped != std::string::npos) {
      // Scored on the step records of the log's first and last parts (sched::read_log_file).
      const size_t end = log.find('\n', skipped);
      t.detail += (t.detail.empty() ? "" : "; ") +
                  visible_text(log.substr(skipped, end == std::string::npos ? end : end - skipped));
    }
    db_.update_trial(t);
    say(fmt::format("trial {}: {} {:.1f} tokens/s/GPU (predicted {:.1f}), CV {:.2f}%", t.id,
                    to_string(t.state), *t.measured_tokens_per_s_per_gpu,
                    t.predicted_tokens_per_s_per_gpu, *t.step_time_cv_percent));
    return;
  }
  if (const std::vector<std::string> setup = setup_errors(log);
      !setup.empty() && status.state != sched::JobState::succeeded) {
    // Every other trial would fail the same way: the run stops here, once, before the budget is
    // spent. The trial and the running ones go back to proposed, so `tune resume` runs them once
    // the inputs are given.
    t.attempt += 1;
    t.job_name = job_name_for(settings_.run_id, t.id, t.attempt);
    t.job_id.clear();
    t.state = TrialState::proposed;
    t.detail = "the job stopped before it started: " + util::join(setup, "; ");
    db_.update_trial(t);
    interrupt_running();
    throw_input(SourceLocation{t.log_path, 0, 0, ""},
                "trial {}'s job stopped before it started, as every trial's would: {}; the run stopped with nothing "
                "else spent ('ladle tune resume {}' once it is given)",
                t.id, util::join(setup, "; "), settings_.out_dir);
  }
  FailureClass fc = classify_failure(log, status);
  if (status.state == sched::JobState::succeeded) {
    fc = {TrialState::failed,
          "finished without step records ladle can read: " + last_error_lines(log, 2)};
  }
  if (full) t.gpu_hours = full->gpu_hours;
  fc.detail = visible_text(fc.detail);  // the scheduler's message, too, is the trial's text
  if (fc.state == TrialState::flaky && t.attempt == 1) {
    t.attempt = 2;
    t.job_name = job_name_for(settings_.run_id, t.id, t.attempt);
    t.job_id.clear();
    t.state = TrialState::proposed;
    t.detail = "retried after: " + fc.detail;
    db_.update_trial(t);
    say(fmt::format("trial {}: flaky ({}); retrying once as {}", t.id, fc.detail, t.job_name));
    return;
  }
  if (fc.state == TrialState::failed && !full && status.state != sched::JobState::succeeded) {
    // Two layouts that fail the same way before their first step record share the cause (a missing
    // module, a wrong path, an engine that cannot start): the run stops once, not trial by trial.
    for (const Trial& other : db_.trials()) {
      if (other.id == t.id || other.state != TrialState::failed || other.layout == t.layout ||
          other.detail != fc.detail) {
        continue;
      }
      t.attempt += 1;
      t.job_name = job_name_for(settings_.run_id, t.id, t.attempt);
      t.job_id.clear();
      t.state = TrialState::proposed;
      t.detail = "stopped: trial " + std::to_string(other.id) + " failed the same way: " + fc.detail;
      db_.update_trial(t);
      interrupt_running();
      throw_input(SourceLocation{t.log_path, 0, 0, ""},
                  "trials {} and {} failed the same way before their first step, on two layouts: {}; a failure the "
                  "layouts share is the set-up's, so the run stopped with nothing else spent ('ladle tune resume {}' "
                  "once it is fixed)",
                  other.id, t.id, fc.detail, settings_.out_dir);
    }
  }
  t.state = fc.state;
  t.detail =
      (t.attempt > 1 && fc.state == TrialState::flaky ? "failed again on retry: " : "") + fc.detail;
  db_.update_trial(t);
  say(fmt::format("trial {}: {}: {}", t.id, to_string(t.state), t.detail));
}

bool Tuner::end_round() {
  const Problem& p = *problem_;
  std::vector<Trial> trials = db_.trials();
  int64_t round = 0;
  for (const Trial& t : trials) round = std::max(round, t.round);
  const Belief fit = refit(p, trials, settings_.prior_weight);
  const double sigma = fit.residual_sigma;
  const Trial* best = nullptr;
  int64_t used = 0;
  double gpu_hours = 0;
  std::set<std::string> tried;
  for (const Trial& t : trials) {
    if (t.kind != TrialKind::explore) continue;
    ++used;
    tried.insert(t.layout);
    if (t.gpu_hours) gpu_hours += *t.gpu_hours;
    if (is_measured(t.state) && t.measured_tokens_per_s_per_gpu &&
        (!best || *t.measured_tokens_per_s_per_gpu > *best->measured_tokens_per_s_per_gpu)) {
      best = &t;
    }
  }
  const double best_value = best ? *best->measured_tokens_per_s_per_gpu : 0;
  const double limit = memory_limit(p, trials);
  const int64_t remaining = std::max<int64_t>(0, settings_.budget - used);
  const std::vector<Prediction> preds = ranked(p, fit.calibration, limit, settings_.objective);
  // At least one candidate is ranked, so the record says what the best remaining one promised
  // even when the budget leaves no room for it.
  std::vector<Candidate> proposals =
      propose(preds, sigmas_of(p, fit, preds), tried, best_value,
              std::max<int64_t>(1, std::min(settings_.per_round, remaining)),
              fit_probabilities_of(p, trials, preds));
  const double best_ei = proposals.empty() ? 0 : proposals.front().expected_improvement;
  if (remaining == 0) proposals.clear();
  // Rounds since the best measured last improved.
  const std::vector<RoundRecord> previous = db_.rounds();
  int64_t without = 0;
  double last_best = best_value;
  for (auto it = previous.rbegin(); it != previous.rend() && it->round > 0; ++it) {
    if (it->best_tokens_per_s_per_gpu < last_best) break;
    ++without;
    last_best = it->best_tokens_per_s_per_gpu;
  }
  const double cv = best && best->step_time_cv_percent ? *best->step_time_cv_percent / 100 : 0;
  std::string decision = "continue";
  if (used >= settings_.budget) {
    decision = fmt::format("trial budget spent ({} of {})", used, settings_.budget);
  } else if (settings_.gpu_hours_limit > 0 && gpu_hours >= settings_.gpu_hours_limit) {
    decision = fmt::format("GPU-hour budget spent ({:.2f} of {:.2f})", gpu_hours,
                           settings_.gpu_hours_limit);
  } else if (proposals.empty()) {
    decision = "no untried layout is left";
  } else if (best && best_ei < settings_.threshold && best_ei < 2 * cv) {
    decision =
        fmt::format("best expected improvement {} is below {} and below 2 x the measured CV ({})",
                    percent(best_ei), percent(settings_.threshold), percent(cv));
  } else if (without >= settings_.patience) {
    decision = fmt::format("{} rounds without improvement", without);
  }
  RoundRecord record;
  record.round = round;
  record.calibration_yaml =
      plan::write_calibration(fit.calibration, {fmt::format("refitted after round {}", round)});
  record.constants_json = fitted_constants_json(fit.calibration);
  record.best_trial = best ? best->id : 0;
  record.best_tokens_per_s_per_gpu = best_value;
  record.best_expected_improvement = best_ei;
  record.sigma = sigma;
  record.memory_limit_gib = limit;
  record.decision = decision;
  say(fmt::format(
      "round {}: best {:.1f} tokens/s/GPU (trial {}), best expected improvement {}, sigma {}: {}",
      round, best_value, record.best_trial, percent(best_ei), percent(sigma), decision));
  std::vector<Trial> next;
  if (decision == "continue") {
    for (const Candidate& c : proposals)
      next.push_back(proposed_trial(c, round + 1, settings_.steps));
  } else if (best) {
    for (TrialKind kind : {TrialKind::confirm, TrialKind::reference}) {
      next.push_back(
          planned_trial(p, fit, kind == TrialKind::confirm ? best->layout : settings_.base_layout,
                        kind, round + 1, settings_.confirm_steps));
    }
  } else {
    db_.add_round(record);
    throw_input(SourceLocation{db_.path(), 0, 0, ""},
                "no trial produced a measurement ({}); see 'ladle tune status'", decision);
  }
  // Ids are assigned by add_trials; names and paths follow from them, so write them in a second
  // step of the same logical change (a trial with an empty job name is named on resume).
  db_.add_trials(next, record);
  for (Trial& t : next) {
    name_trial(t, settings_);
    db_.update_trial(t);
    say(fmt::format(
        "round {}: trial {} ({}) {} predicted {:.1f} tokens/s/GPU, expected improvement {}",
        t.round, t.id, to_string(t.kind), layout::layout_label(layout::parse_layout_spec(t.layout)),
        t.predicted_tokens_per_s_per_gpu, percent(t.expected_improvement)));
  }
  return decision == "continue";
}

void Tuner::interrupt_running() {
  for (Trial t : db_.trials()) {
    if (t.state != TrialState::submitted && t.state != TrialState::submitting) continue;
    if (t.state == TrialState::submitting) {
      if (auto id = scheduler_.find(t.job_name, t.log_path)) t.job_id = *id;
    }
    if (!t.job_id.empty()) scheduler_.cancel(t.job_id);
    t.attempt += 1;
    t.job_name = job_name_for(settings_.run_id, t.id, t.attempt);
    t.job_id.clear();
    t.state = TrialState::proposed;
    t.detail = "interrupted; runs again on resume";
    db_.update_trial(t);
    say(fmt::format("trial {}: cancelled by the interrupt; it runs again on resume", t.id));
  }
}

void Tuner::cancel_run() {
  for (Trial t : db_.trials()) {
    if (is_final(t.state)) continue;
    if (t.state == TrialState::submitting) {
      if (auto id = scheduler_.find(t.job_name, t.log_path)) t.job_id = *id;
    }
    if (!t.job_id.empty()) scheduler_.cancel(t.job_id);
    t.state = TrialState::cancelled;
    t.detail = "cancelled by ladle tune cancel";
    db_.update_trial(t);
    say(fmt::format("trial {}: cancelled", t.id));
  }
  db_.set_meta("cancelled", "1");
}

TuneOutcome Tuner::run(const std::atomic<bool>& interrupt) {
  start();
  bool submitted_any = !db_.submissions().empty();
  while (true) {
    if (db_.meta("cancelled")) return TuneOutcome::cancelled;
    if (interrupt.load()) {
      interrupt_running();
      return TuneOutcome::interrupted;
    }
    std::vector<Trial> trials = db_.trials();
    int64_t running = 0;
    for (Trial& t : trials) {
      if (t.job_name.empty()) {  // named after its id (a kill between the two writes of end_round)
        name_trial(t, settings_);
        db_.update_trial(t);
      }
      if (t.state == TrialState::submitted) {
        refresh(t);
        if (t.state == TrialState::submitted) ++running;
      }
    }
    const int64_t limit =
        settings_.max_running > 0 ? settings_.max_running : std::numeric_limits<int64_t>::max();
    for (Trial& t : trials) {
      if (interrupt.load()) break;
      if (t.state == TrialState::submitting ||
          (t.state == TrialState::proposed && running < limit)) {
        submit(t, !submitted_any);
        submitted_any = true;
        if (t.state == TrialState::submitted) ++running;
      }
    }
    trials = db_.trials();
    const bool all_final =
        std::all_of(trials.begin(), trials.end(), [](const Trial& t) { return is_final(t.state); });
    if (!all_final) {
      std::this_thread::sleep_for(std::chrono::duration<double>(settings_.poll_s));
      continue;
    }
    const bool confirming = std::any_of(
        trials.begin(), trials.end(), [](const Trial& t) { return t.kind == TrialKind::confirm; });
    if (confirming) {
      finalize();
      return TuneOutcome::finished;
    }
    end_round();
  }
}

void Tuner::finalize() {
  const Problem& p = *problem_;
  const std::vector<Trial> trials = db_.trials();
  const Trial* confirm = nullptr;
  const Trial* reference = nullptr;
  for (const Trial& t : trials) {
    if (t.kind == TrialKind::confirm) confirm = &t;
    if (t.kind == TrialKind::reference) reference = &t;
  }
  LADLE_ASSERT(confirm && reference, "finalize runs once the confirmation trials exist");
  const Belief fit = refit(p, trials, settings_.prior_weight);
  const Prediction pred = predict_spec(p, confirm->layout, fit.calibration);
  plan::Scenario fitted = p;  // the scenario under the refitted calibration
  fitted.calibration = fit.calibration;
  Recipe r = launch::planned_recipe(fitted, pred, p.engine, p.base);
  const std::string recipe_path = (fs::path(settings_.out_dir) / "recipe.yaml").string();
  r.header_comments = {
      fmt::format("Tuned by `ladle tune` (run {}) for {} on {} x {}: {} trials on {}.",
                  settings_.run_id, p.model.name, p.cluster.gpus, p.cluster.gpu.name,
                  std::count_if(trials.begin(), trials.end(),
                                [](const Trial& t) { return t.kind == TrialKind::explore; }),
                  scheduler_.name())};
  r.author.name = "ladle tune";
  const std::string confirm_log = scheduler_.read_log(confirm->job_id, confirm->log_path);
  const std::string reference_log = scheduler_.read_log(reference->job_id, reference->log_path);
  const std::string today = [] {
    const auto day = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
    const std::chrono::year_month_day ymd{day};
    return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(ymd.year()),
                       static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  }();
  r.stack = parse_stack(confirm_log, p.engine, today);
  std::string notes = fmt::format(
      "- Tuned by `ladle tune` run {} on the {} scheduler; DIR/report.md lists every trial.\n",
      settings_.run_id, scheduler_.name());
  std::optional<runlog::RunLog> candidate_run;
  std::optional<runlog::RunLog> reference_run;
  try {
    candidate_run = runlog::read_log(confirm_log, confirm->log_path);
  } catch (const Error& e) {
    notes += "- The confirmation run's log could not be read: " + e.message() + "\n";
  }
  try {
    reference_run = runlog::read_log(reference_log, reference->log_path);
  } catch (const Error& e) {
    notes += "- The reference run's log could not be read: " + e.message() + "\n";
  }
  if (confirm->state == TrialState::scored && candidate_run) {
    try {
      RecipeResult seed;
      seed.active_params.count = model::active_params(p.model);
      seed.active_params.source = p.model.source;
      r.result = seed;
      const verify::ScoreInputs inputs =
          verify::score_inputs_from_recipe(r, recipe_path, std::nullopt);
      const verify::ScoreReport report = verify::score_runs({*candidate_run}, inputs, std::nullopt);
      r.result = verify::update_result(seed, report);
      r.result->gpu_hours_note = "GPUs x (first to last timestamp of the confirmation run's log)";
    } catch (const Error& e) {
      notes += "- The confirmation run could not be scored: " + e.message() + "\n";
    }
  } else {
    notes += fmt::format("- The confirmation run ended {}: {}\n", to_string(confirm->state),
                         confirm->detail);
  }
  Correctness c;
  c.reference = fmt::format(
      "the base layout ({}) for the same rows and run length, on the same scheduler and image",
      layout::layout_label(layout::parse_layout_spec(settings_.base_layout)));
  c.rules =
      "argument classes of data/rules/numerics.yaml; convergence by Megatron-Bridge's thresholds "
      "(data/rules/convergence.yaml), strict";
  const Prediction base_pred = predict_spec(p, settings_.base_layout, p.calibration);
  const Recipe base_recipe = launch::planned_recipe(p, base_pred, p.engine, p.base);
  const std::string base_run = p.base_run.empty() ? base_recipe.run : p.base_run;
  const verify::ConfigDiff diff = verify::diff_launch_args(
      args::parse_launch_args(base_run, "base"), args::parse_launch_args(r.run, "winner"),
      verify::default_numerics_rules(), "base", "winner");
  c.configuration = diff.configuration;
  bool converged = false;
  if (candidate_run && reference_run) {
    const verify::ConvergenceReport report =
        verify::check_convergence(*reference_run, *candidate_run, settings_.confirm_steps,
                                  verify::default_convergence_thresholds());
    c.convergence = verify::update_convergence(std::nullopt, report);
    c.convergence->note =
        fmt::format("candidate arm: the confirmation run (trial {}); reference arm: trial {}",
                    confirm->id, reference->id);
    c.convergence->reference_log = fs::relative(reference->log_path, settings_.out_dir).string();
    c.convergence->candidate_log = fs::relative(confirm->log_path, settings_.out_dir).string();
    converged = report.passed;
    if (!report.passed) {
      for (const std::string& reason : report.reasons) notes += "- Convergence: " + reason + "\n";
    }
  }
  // pass only when both checks pass; a precision change waits for a component test (pending).
  c.result = !converged                     ? "fail"
             : c.configuration == "pass"    ? "pass"
             : c.configuration == "pending" ? "pending"
                                            : "fail";
  c.summary = c.result == "pass"
                  ? "passed; configuration and 20-step convergence against the base layout"
                  : fmt::format("{}: configuration {}, convergence {}", c.result, c.configuration,
                                c.convergence ? c.convergence->result : "not run");
  r.correctness = c;
  r.status = r.result ? (c.result == "pass" ? "verified" : "measured") : "planned";
  r.notes = notes;
  if (r.status == "verified") {
    // Verified means `ladle check` passes it too: a recipe the check rejects stays measured, and
    // its notes say why.
    if (const auto why = check_rejection(r, recipe_path)) {
      r.status = "measured";
      r.notes += "- Not marked verified: `ladle check` rejects it: " + *why + "\n";
      say("the winner's recipe is not marked verified: `ladle check` rejects it: " + *why);
    }
  }
  recipe::write_recipe_file(recipe_path, r);
  write_report(db_, settings_, recipe_path);
  db_.set_meta("finished", r.status);
  say(fmt::format("winner: trial {} {} -> {} (status {})", confirm->id,
                  layout::layout_label(layout::parse_layout_spec(confirm->layout)), recipe_path,
                  r.status));
}

}  // namespace ladle::tune
