// rl_tune.cpp: the `ladle tune --rl` loop (rl_tune.hpp).
#include "ladle/tune/rl_tune.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/recipe/recipe.hpp"
#include "ladle/rl/rl_job.hpp"
#include "ladle/runlog/run_log.hpp"
#include "ladle/sched/process.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/verify/rl_score.hpp"

namespace ladle::tune {

namespace fs = std::filesystem;

namespace {

std::string describe_step(const rl::RlStep& s) {
  const rl::EngineLayout& e = s.setup.engine;
  std::string engine = fmt::format("TP{}", e.tp);
  if (e.dp_attention > 1) engine += fmt::format(" DPattn{}", e.dp_attention);
  if (e.ep > 1) engine += fmt::format(" EP{}", e.ep);
  engine += fmt::format(" mem {:g}", e.mem_fraction);
  const std::string split =
      s.setup.mode == rl::Mode::colocated
          ? fmt::format("colocated on {} GPUs", s.setup.trainer_gpus)
          : fmt::format("{}: {} rollout + {} trainer GPUs", rl::to_string(s.setup.mode),
                        s.setup.rollout_gpus, s.setup.trainer_gpus);
  return fmt::format("{}, engine {}, trainer {}", split, engine,
                     layout::layout_label(s.setup.trainer));
}

// Two candidates run the same job when their split, engine and trainer layout agree.
std::string job_key(const rl::RlStep& s) {
  const rl::EngineLayout& e = s.setup.engine;
  return fmt::format("{}|{}|{}|{}/{}/{}/{}|{}", rl::to_string(s.setup.mode), s.setup.rollout_gpus,
                     s.setup.trainer_gpus, e.gpus, e.dp_attention, e.ep, e.mem_fraction,
                     layout::format_layout_spec(s.setup.trainer));
}

double geometric_mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

void say(std::ostream* progress, const std::string& line) {
  if (progress != nullptr) *progress << line << std::endl;
}

// The RL workload block score_rl_runs checks the log against.
Recipe scoring_recipe(const RlTuneSettings& s, const rl::RlStep& step) {
  const rl::RlWork& w = s.plan.work;
  Recipe r;
  r.model = s.plan.model.name;
  RlWorkload rl;
  rl.prompts_per_rollout = w.rollout.prompts;
  rl.samples_per_prompt = w.rollout.samples_per_prompt;
  rl.steps_per_rollout = w.steps_per_rollout;
  rl.prompt_max_tokens = w.rollout.prompt_tokens;
  rl.response_max_tokens = w.rollout.response_max;
  rl.rollout_gpus = step.setup.rollout_gpus;
  rl.gpus_per_engine = step.setup.engine.gpus;
  r.workload.rl = rl;
  r.workload.row_tokens = w.longest_tokens();
  return r;
}

}  // namespace

double rl_belief_ratio(const std::vector<RlTrial>& trials, rl::Mode mode, int engine_gpus) {
  std::vector<double> same;
  for (const RlTrial& t : trials) {
    if (!t.samples_per_s || t.step.samples_per_s <= 0) continue;
    const double ratio = *t.samples_per_s / t.step.samples_per_s;
    if (t.step.setup.mode == mode && t.step.setup.engine.gpus == engine_gpus) same.push_back(ratio);
  }
  if (!same.empty()) return geometric_mean(same);
  return 1.0;
}

std::string rl_trial_script(const RlTuneSettings& s, const rl::RlStep& step) {
  rl::RlJobRequest jr;
  jr.model = &s.plan.model;
  jr.step = step;
  jr.work = s.plan.work;
  jr.engine = layout::parse_engine(s.engine);
  const plan::Cluster cluster = plan::make_cluster(s.plan.hardware, s.plan.gpus);
  jr.gpus_per_node = cluster.gpus_per_node();
  std::vector<std::string> words = rl::rl_entry_args(jr);
  std::string out = "#!/bin/bash\n# ladle tune --rl trial: " + describe_step(step) + "\n";
  out +=
      "# the entry point of the job `ladle plan --rl --emit` writes for this split, for a few "
      "rollouts;\n";
  out +=
      "# the model's arguments (MODEL_ARGS) come from the engine's model script, as in that job.\n";
  out += "set -eo pipefail\n";
  const std::string program =
      s.engine_program.empty() ? "python3" : sched::shell_quote(s.engine_program);
  std::string line = program + " " + rl::rl_entry_point(step.setup.mode);
  for (size_t i = 0; i < words.size(); ++i) {
    std::string w = words[i];
    if (i == 0) {
      line += " \"${MODEL_ARGS[@]}\"";
      continue;
    }
    if (i > 0 && words[i - 1] == "--num-rollout") w = std::to_string(s.rollouts);
    // $VARIABLE inputs of the job (data/rl/job.yaml) stay variables.
    line += " " + (w.rfind('$', 0) == 0 ? "\"" + w + "\"" : sched::shell_quote(w));
  }
  out += line + "\n";
  return out;
}

RlTuneResult run_rl_tune(const RlTuneSettings& s, sched::Scheduler& scheduler,
                         std::ostream* progress) {
  scheduler.check_reachable();
  rl::RlPlanRequest request = s.plan;
  request.top = 1 << 20;  // every fitting candidate, best predicted first
  const rl::RlPlanReport plan = rl::plan_rl(request);
  RlTuneResult result;
  std::vector<rl::RlStep> candidates;
  {
    std::vector<std::string> seen;
    for (const rl::RlStep& step : plan.top) {
      const std::string key = job_key(step);
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.push_back(key);
      candidates.push_back(step);
    }
  }
  result.candidates = static_cast<int64_t>(candidates.size());
  say(progress, fmt::format("tune --rl: {} candidate RL jobs from plan --rl ({} predicted, {} fit)",
                            candidates.size(), plan.evaluated, plan.fitting));
  std::vector<bool> tried(candidates.size(), false);
  fs::create_directories(s.out_dir);
  const plan::Cluster cluster = plan::make_cluster(s.plan.hardware, s.plan.gpus);
  while (static_cast<int64_t>(result.trials.size()) < s.budget) {
    // The untried candidate of highest expected samples/s.
    std::optional<size_t> pick;
    double expected = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (tried[i]) continue;
      const double e =
          candidates[i].samples_per_s *
          rl_belief_ratio(result.trials, candidates[i].setup.mode, candidates[i].setup.engine.gpus);
      if (!pick || e > expected) {
        pick = i;
        expected = e;
      }
    }
    if (!pick) {
      result.stop_reason = "every candidate was tried";
      break;
    }
    if (result.best && expected <= *result.trials[*result.best].samples_per_s * (1 + s.threshold)) {
      result.stop_reason = fmt::format(
          "no untried candidate is expected to beat the best measured by more than {:g}% (best "
          "expected {:.3f} "
          "samples/s)",
          100 * s.threshold, expected);
      break;
    }
    tried[*pick] = true;
    RlTrial t;
    t.id = static_cast<int64_t>(result.trials.size()) + 1;
    t.step = candidates[*pick];
    t.what = describe_step(t.step);
    t.expected_samples_per_s = expected;
    sched::JobSpec job;
    job.name = fmt::format("ladle-rl-{}-{}", s.run_id, t.id);
    job.script = rl_trial_script(s, t.step);
    job.script_path = (fs::path(s.out_dir) / fmt::format("trial-{}.sh", t.id)).string();
    job.log_path = (fs::path(s.out_dir) / fmt::format("trial-{}.log", t.id)).string();
    job.nodes = (cluster.gpus + cluster.gpus_per_node() - 1) / cluster.gpus_per_node();
    job.gpus_per_node = std::min<int64_t>(cluster.gpus, cluster.gpus_per_node());
    job.time_limit_s = s.time_limit_s;
    t.log_path = job.log_path;
    say(progress, fmt::format("trial {}: {} predicted {:.3f} samples/s, expected {:.3f}", t.id,
                              t.what, t.step.samples_per_s, expected));
    const std::string id = scheduler.submit(job);
    const auto started = std::chrono::steady_clock::now();
    sched::JobStatus status = scheduler.state(id);
    while (!sched::is_finished(status.state)) {
      if (std::chrono::steady_clock::now() - started > std::chrono::seconds(s.time_limit_s)) {
        scheduler.cancel(id);
        status.state = sched::JobState::timeout;
        break;
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(s.poll_s));
      status = scheduler.state(id);
    }
    t.state = sched::to_string(status.state);
    if (status.state == sched::JobState::succeeded) {
      try {
        const std::string text = scheduler.read_log(id, job.log_path);
        const runlog::RunLog log = runlog::read_log(text, job.log_path);
        if (!verify::is_rl_log(log))
          throw_input(SourceLocation{job.log_path, 0, 0, "perf/rollout_time"},
                      "the trial's log has no RL rollout lines");
        verify::ScoreInputs inputs;
        inputs.gpus = cluster.gpus;
        inputs.gpu_name = cluster.gpu.name;
        const verify::RlScoreReport score =
            verify::score_rl_runs({log}, scoring_recipe(s, t.step), inputs, std::nullopt);
        t.samples_per_s = score.samples_per_s;
      } catch (const Error& e) {
        t.error = e.describe();
      }
    } else {
      t.error = fmt::format("the job ended {}{}", t.state,
                            status.reason.empty() ? "" : " (" + status.reason + ")");
    }
    if (t.samples_per_s) {
      say(progress, fmt::format("trial {}: measured {:.3f} samples/s ({:.2f} x predicted)", t.id,
                                *t.samples_per_s, *t.samples_per_s / t.step.samples_per_s));
    } else {
      say(progress, fmt::format("trial {}: no measurement: {}", t.id, t.error));
    }
    result.trials.push_back(t);
    if (t.samples_per_s &&
        (!result.best || *t.samples_per_s > *result.trials[*result.best].samples_per_s)) {
      result.best = result.trials.size() - 1;
    }
  }
  if (result.stop_reason.empty())
    result.stop_reason = fmt::format("the budget of {} trials is spent", s.budget);
  return result;
}

std::string render_rl_tune(const RlTuneResult& r) {
  std::string out = fmt::format("{} candidates, {} trials; stopped: {}\n\n", r.candidates,
                                r.trials.size(), r.stop_reason);
  out += "  #  predicted  measured  (samples/s)  job\n";
  for (const RlTrial& t : r.trials) {
    out += fmt::format("{:>3}  {:>9.3f}  {:>8}  {}{}\n", t.id, t.step.samples_per_s,
                       t.samples_per_s ? fmt::format("{:.3f}", *t.samples_per_s) : std::string("-"),
                       t.what, t.samples_per_s ? "" : " (" + t.state + ")");
  }
  if (r.best) {
    const RlTrial& b = r.trials[*r.best];
    out += fmt::format("\nbest: trial {}: {}: {:.3f} samples/s measured ({:.3f} predicted)\n", b.id,
                       b.what, *b.samples_per_s, b.step.samples_per_s);
  } else {
    out += "\nno trial was measured\n";
  }
  return out;
}

std::string rl_tune_json(const RlTuneResult& r) {
  nlohmann::ordered_json j;
  j["candidates"] = r.candidates;
  j["stop_reason"] = r.stop_reason;
  j["trials"] = nlohmann::ordered_json::array();
  for (const RlTrial& t : r.trials) {
    nlohmann::ordered_json x;
    x["id"] = t.id;
    x["job"] = t.what;
    x["mode"] = rl::to_string(t.step.setup.mode);
    x["rollout_gpus"] = t.step.setup.rollout_gpus;
    x["trainer_gpus"] = t.step.setup.trainer_gpus;
    x["gpus_per_engine"] = t.step.setup.engine.gpus;
    x["trainer_layout"] = layout::format_layout_spec(t.step.setup.trainer);
    x["predicted_samples_per_s"] = t.step.samples_per_s;
    x["expected_samples_per_s"] = t.expected_samples_per_s;
    x["state"] = t.state;
    x["measured_samples_per_s"] =
        t.samples_per_s ? nlohmann::ordered_json(*t.samples_per_s) : nlohmann::ordered_json();
    if (!t.error.empty()) x["error"] = t.error;
    j["trials"].push_back(x);
  }
  if (r.best) {
    j["best"] = r.trials[*r.best].id;
    j["best_samples_per_s"] = *r.trials[*r.best].samples_per_s;
  } else {
    j["best"] = nullptr;
  }
  return j.dump(2) + "\n";
}

}  // namespace ladle::tune
