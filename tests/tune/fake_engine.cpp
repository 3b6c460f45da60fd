// fake_engine: a stand-in for `python3 train.py` (slime, miles) and `torchrun ... pretrain_gpt.py`
// (Megatron-LM) in the tune tests, where no GPU exists. It reads the engine arguments of a trial
// script, computes the step time and memory of the layout from a hidden performance function,
// and prints the log lines of the real engine (slime's `step N: {...}` / `perf N: {...}` dicts or
// Megatron-LM's `iteration N/ M |` lines), sleeping a scaled-down step time between steps.
//
// The hidden function is ladle's own predictor under a calibration that differs from the
// embedded one by the fixed factors of kHiddenFactors, with memory kHiddenMemoryFactor times the
// prediction: the loop must find the layouts that are fastest under constants it does not know.
// It runs out of memory above kHiddenCapGib, and every layout whose hash falls in 1 of
// FAKE_ENGINE_FLAKE_EVERY (default 5) fails its first run with an NCCL watchdog timeout.
//
// Environment: FAKE_ENGINE_STATE (folder for flake marks and the run ledger; required),
// FAKE_ENGINE_TIME_SCALE (real seconds per simulated second, default 0.002), FAKE_ENGINE_MODEL
// (default glm-4.7-flash), FAKE_ENGINE_GPU (default h200), FAKE_ENGINE_HANG=1 (hang after the
// first step), FAKE_ENGINE_HOLD_TRIALS=ID,ID,... with FAKE_ENGINE_HOLD_AFTER=N (those trials' jobs,
// named ladle-<run>-<ID>, wait FAKE_ENGINE_HOLD_S real seconds, default 60, after their first N
// steps: a cancel that ladle sends on those steps then always lands before the run ends, however
// loaded the machine), LADLE_TUNE_JOB (the job name, written to the ledger).
//
// `fake_engine --hidden GPUS` prints the hidden optimum on GPUS GPUs and the hidden constants as
// JSON.
//
// RL mode (issue 34): launched with slime's/miles' RL arguments (--rollout-num-gpus-per-engine,
// --rollout-num-gpus, --colocate, train_async.py, the trainer's layout), it prints slime's
// per-rollout lines (the rollout manager's `perf N: {...}` with perf/rollout_time, the trainer's
// `rollout N: {...}`, `step N: {...}` and `perf N: {...}` with perf/step_time, as
// tests/data/runlog/make_rl_fixtures.py writes them) for --num-rollout rollouts. The hidden
// function is ladle's RL step (rl/rl_step.hpp) under the hidden calibration above, with the rollout
// model's time multiplied by kHiddenEngineFactor(GPUs per engine) (a sweet spot at 2 GPUs per
// engine the rollout model does not know) and responses of FAKE_ENGINE_RESPONSE_MEAN tokens on
// average (default: half of --rollout-max-response-len). RL runs never run out of memory or flake.
// `fake_engine --hidden-rl GPUS PROMPTS SAMPLES PROMPT_LEN RESPONSE_MAX STEPS` prints the hidden
// best RL job on GPUS GPUs (plan --rl's search under the hidden function) as JSON.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "ladle/args/launch_args.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/search.hpp"
#include "ladle/rl/rl_plan.hpp"
#include "ladle/rl/rl_step.hpp"
#include "ladle/util/error.hpp"

namespace {

struct Factor {
  const char* constant;
  double factor;
};
// The hidden truth: fitted constants of data/calibration.yaml times these factors (or divided by
// them where the product would leave the range), each inside the constant's physical range
// (hidden_calibration refuses one outside: a fit kept within the range could never reach it).
constexpr Factor kHiddenFactors[] = {
    {"gemm_efficiency", 0.85},      {"attention_efficiency", 0.9},  {"moe_layer_sync_s", 0.5},
    {"moe_layer_sync_flex_s", 2.5}, {"cpu_adam_params_per_s", 0.6},
};
constexpr double kHiddenMemoryFactor = 1.07;
constexpr double kHiddenCapGib = 137.0;

ladle::plan::Calibration hidden_calibration() {
  ladle::plan::Calibration c = ladle::plan::default_calibration();
  for (const Factor& f : kHiddenFactors) {
    for (const auto& k : ladle::plan::calibration_constants(c)) {
      if (k.name != f.constant) continue;
      // A prior fitted near a bound takes the inverse factor, so that the hidden value stays
      // the same distance (in log) from the prior and inside the range.
      double value = k.value * f.factor;
      if (value < k.min || value > k.max) value = k.value / f.factor;
      if (value < k.min || value > k.max) {
        throw ladle::Error(ladle::ErrorKind::internal,
                           fmt::format("hidden {} = {} lies outside its range [{}, {}]", k.name,
                                       value, k.min, k.max));
      }
      ladle::plan::set_calibration_constant(c, k.name, value);
    }
  }
  return c;
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t hash_text(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

double unit_noise(uint64_t seed) {  // in [-1, 1)
  return static_cast<double>(splitmix(seed) >> 11) / 4503599627370496.0 - 1.0;
}

std::string timestamp(double simulated_s) {
  // 2026-10-01 00:00:00 UTC plus the simulated seconds.
  const auto base = std::chrono::sys_days{std::chrono::year{2026} / 10 / 1};
  const auto t = base + std::chrono::milliseconds(static_cast<int64_t>(simulated_s * 1000));
  const auto day = std::chrono::floor<std::chrono::days>(t);
  const std::chrono::year_month_day ymd{day};
  const std::chrono::hh_mm_ss hms{std::chrono::floor<std::chrono::seconds>(t - day)};
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                     hms.hours().count(), hms.minutes().count(), hms.seconds().count());
}

int hidden_report(int64_t gpus) {
  ladle::plan::PlanRequest request;
  request.model = ladle::model::load_model(env_or("FAKE_ENGINE_MODEL", "glm-4.7-flash"));
  request.cluster = ladle::plan::make_cluster(env_or("FAKE_ENGINE_GPU", "h200"), gpus);
  request.calibration = hidden_calibration();
  request.top = 1;
  const double capacity = ladle::plan::hbm_capacity_gib(request.cluster.gpu);
  request.memory_margin = 1.0 - kHiddenCapGib / kHiddenMemoryFactor / capacity;
  const ladle::plan::PlanReport report = ladle::plan::plan_layouts(request);
  nlohmann::json constants = nlohmann::json::object();
  for (const auto& k : ladle::plan::calibration_constants(request.calibration)) {
    if (k.fitted) constants[k.name] = k.value;
  }
  const nlohmann::json out = {
      {"optimum_tokens_per_s_per_gpu", report.top.front().tokens_per_s_per_gpu},
      {"optimum_layout", ladle::layout::format_layout_spec(report.top.front().layout)},
      {"constants", constants},
      {"memory_factor", kHiddenMemoryFactor},
      {"memory_cap_gib", kHiddenCapGib},
  };
  std::cout << out.dump(2) << "\n";
  return 0;
}


// The hidden rollout slowdown by GPUs per engine: 1 + 0.3 (log2 g - 1)^2, least at 2.
double hidden_engine_factor(int gpus_per_engine) {
  const double d = std::log2(static_cast<double>(gpus_per_engine)) - 1.0;
  return 1.0 + 0.3 * d * d;
}

ladle::rl::RolloutModel hidden_rollout_model() {
  return [](const ladle::ModelSpec& m, const ladle::GpuSpec& g, const ladle::rl::EngineLayout& e, int engines,
            const ladle::rl::RolloutWorkload& w) {
    ladle::rl::RolloutEstimate r = ladle::rl::estimate_rollout(m, g, e, engines, w);
    const double f = hidden_engine_factor(e.gpus);
    r.seconds *= f;
    r.seconds_lo *= f;
    r.seconds_hi *= f;
    return r;
  };
}

int64_t hidden_response_mean(int64_t response_max) {
  return std::stoll(env_or("FAKE_ENGINE_RESPONSE_MEAN", std::to_string(response_max / 2)));
}

int hidden_rl_report(char** argv) {
  ladle::rl::RlPlanRequest r;
  r.model = ladle::model::load_model(env_or("FAKE_ENGINE_MODEL", "glm-4.7-flash"));
  r.hardware.gpu = env_or("FAKE_ENGINE_GPU", "h200");
  r.gpus = std::stoll(argv[2]);
  r.work.rollout.prompts = std::stoll(argv[3]);
  r.work.rollout.samples_per_prompt = std::stoll(argv[4]);
  r.work.rollout.prompt_tokens = std::stoll(argv[5]);
  r.work.rollout.response_max = std::stoll(argv[6]);
  r.work.rollout.response_mean = hidden_response_mean(r.work.rollout.response_max);
  r.work.steps_per_rollout = std::stoll(argv[7]);
  r.calibration = hidden_calibration();
  r.rollout_model = hidden_rollout_model();
  r.top = 1;
  const ladle::rl::RlPlanReport report = ladle::rl::plan_rl(r);
  const ladle::rl::RlStep& best = report.top.front();
  const nlohmann::json out = {
      {"optimum_samples_per_s", best.samples_per_s},
      {"mode", ladle::rl::to_string(best.setup.mode)},
      {"rollout_gpus", best.setup.rollout_gpus},
      {"trainer_gpus", best.setup.trainer_gpus},
      {"gpus_per_engine", best.setup.engine.gpus},
      {"trainer_layout", ladle::layout::format_layout_spec(best.setup.trainer)},
  };
  std::cout << out.dump(2) << "\n";
  return 0;
}

// RL mode: one slime RL run of the job's split, both layouts and workload.
int rl_main(const std::vector<std::string>& args, const std::string& script) {
  const auto value = [&](const std::string& flag, int64_t fallback) {
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == flag) return static_cast<int64_t>(std::stoll(args[i + 1]));
    }
    return fallback;
  };
  const auto has = [&](const std::string& flag) { return std::find(args.begin(), args.end(), flag) != args.end(); };
  double mem_fraction = 0.8;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--sglang-mem-fraction-static") mem_fraction = std::stod(args[i + 1]);
  }
  ladle::rl::RlWork w;
  w.rollout.prompts = value("--rollout-batch-size", 32);
  w.rollout.samples_per_prompt = value("--n-samples-per-prompt", 8);
  w.rollout.prompt_tokens = value("--rollout-max-prompt-len", 1024);
  w.rollout.response_max = value("--rollout-max-response-len", 8192);
  w.rollout.response_mean = hidden_response_mean(w.rollout.response_max);
  w.steps_per_rollout = value("--num-steps-per-rollout", 1);
  w.ref_logprobs = has("--use-kl-loss");
  const int64_t rollouts = value("--num-rollout", 6);
  ladle::rl::RlSetup setup;
  const bool async = std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a.find("train_async.py") != std::string::npos;
  });
  setup.mode = has("--colocate") ? ladle::rl::Mode::colocated : async ? ladle::rl::Mode::async : ladle::rl::Mode::sync;
  setup.trainer_gpus = value("--actor-num-nodes", 1) * value("--actor-num-gpus-per-node", 8);
  setup.rollout_gpus = setup.mode == ladle::rl::Mode::colocated ? setup.trainer_gpus : value("--rollout-num-gpus", 0);
  setup.engine.gpus = setup.engine.tp = static_cast<int>(value("--rollout-num-gpus-per-engine", 1));
  setup.engine.dp_attention =
      static_cast<int>(value("--sglang-dp-size", has("--sglang-enable-dp-attention") ? setup.engine.gpus : 1));
  setup.engine.ep = static_cast<int>(value("--sglang-ep-size", 1));
  setup.engine.mem_fraction = mem_fraction;
  const ladle::ModelSpec model = ladle::model::load_model(env_or("FAKE_ENGINE_MODEL", "glm-4.7-flash"));
  const std::string gpu = env_or("FAKE_ENGINE_GPU", "h200");
  const int64_t total =
      setup.mode == ladle::rl::Mode::colocated ? setup.trainer_gpus : setup.trainer_gpus + setup.rollout_gpus;
  const ladle::plan::Cluster trainer_cluster = ladle::plan::make_cluster(gpu, setup.trainer_gpus);
  const ladle::plan::Workload train_work = ladle::rl::training_workload(w, setup.trainer_gpus);
  const ladle::args::LaunchArgs launch = ladle::args::parse_launch_args(script, "argv");
  ladle::Layout layout = ladle::layout::read_layout_args(launch.args, ladle::layout::Engine::slime).layout;
  layout = ladle::layout::resolve_layout(
      layout, ladle::plan::checking_context(model, trainer_cluster, train_work));
  setup.trainer = layout;
  const std::string spec = ladle::layout::format_layout_spec(layout);
  const std::string state_dir = env_or("FAKE_ENGINE_STATE", "");
  if (state_dir.empty()) {
    std::cerr << "fake_engine: FAKE_ENGINE_STATE is not set\n";
    return 2;
  }
  std::filesystem::create_directories(state_dir);
  {
    std::ofstream ledger(state_dir + "/ledger", std::ios::app);
    ledger << env_or("LADLE_TUNE_JOB", "-") << " " << rollouts << " rl " << ladle::rl::to_string(setup.mode) << " "
           << setup.rollout_gpus << " " << setup.engine.gpus << " " << spec << "\n";
  }
  const ladle::rl::RlStep truth =
      ladle::rl::predict_rl_step(model, setup, ladle::plan::make_cluster(gpu, total), w, hidden_calibration(),
                                 hidden_rollout_model());
  const double scale = std::stod(env_or("FAKE_ENGINE_TIME_SCALE", "0.002"));
  const uint64_t seed = hash_text(spec + ladle::rl::to_string(setup.mode) + std::to_string(setup.rollout_gpus) +
                                  std::to_string(setup.engine.gpus));
  const std::string manager = "(RolloutManager pid=1874, ip=10.0.3.17) ";
  const std::string trainer = "(MegatronTrainRayActor pid=2291, ip=10.0.3.17) ";
  const int64_t samples = w.samples();
  double clock = 60;  // simulated start-up seconds
  std::cout << fmt::format("[{}] train.py:12 - starting: {} rollouts on {} GPUs", timestamp(0), rollouts, total)
            << std::endl;
  for (int64_t r = 0; r < rollouts; ++r) {
    const double noise = 1 + 0.01 * unit_noise(seed ^ static_cast<uint64_t>(r));
    double step = truth.step_s * noise;
    if (r == 0) step *= 1.4;  // start-up inside the first step: CUDA graphs, the first weight load
    const double gen = truth.rollout_s * noise;
    const double logp = truth.logprob_s * noise;
    const double train = truth.train_s * noise;
    const double update = r == 0 ? 0.0 : truth.update_s * noise;
    const double wait = std::max(0.0, step - logp - train);
    std::this_thread::sleep_for(std::chrono::duration<double>(step * scale));
    const double response = static_cast<double>(w.rollout.response_mean) * (1 + 0.02 * unit_noise(seed + 3 * r));
    const double total_len = static_cast<double>(w.rollout.prompt_tokens) + response;
    std::cout << fmt::format(
                     "{}[{}] rollout_metrics.py:268 - perf {}: {{'rollout/response_len/mean': {}, "
                     "'rollout/response_len/max': {}, 'rollout/truncated_ratio': 0.03125, 'perf/rollout_time': {}, "
                     "'perf/tokens_per_gpu_per_sec': {}, 'perf/longest_sample_tokens_per_sec': {}}}",
                     manager, timestamp(clock + wait), r, response, w.rollout.response_max, gen,
                     static_cast<double>(samples) * response / gen / static_cast<double>(setup.rollout_gpus),
                     static_cast<double>(w.rollout.response_max) / gen)
              << std::endl;
    std::cout << fmt::format(
                     "{}[{}] actor.py:382 - rollout {}: {{'rollout/response_lengths': {}, 'rollout/rewards': 0.0, "
                     "'rollout/truncated': 0.03125, 'rollout/total_lengths': {}, 'rollout/advantages': 0.0}}",
                     trainer, timestamp(clock + wait), r, response, total_len)
              << std::endl;
    for (int64_t k = 0; k < w.steps_per_rollout; ++k) {
      const int64_t id = r * w.steps_per_rollout + k;
      std::cout << fmt::format(
                       "{}[{}] model.py:918 - step {}: {{'train/loss': {:.4f}, 'train/pg_loss': 0.0018, "
                       "'train/grad_norm': 0.62, 'train/lr-pg_0': 1e-06, 'train/global_batch_size': {}, "
                       "'train/step': {}}}",
                       trainer, timestamp(clock + wait + logp + train * static_cast<double>(k + 1) /
                                                                  static_cast<double>(w.steps_per_rollout)),
                       id, 0.0021 - 0.0001 * static_cast<double>(id), samples / w.steps_per_rollout, id)
                << std::endl;
    }
    clock += step;
    std::cout << fmt::format(
                     "{}[{}] train_metric_utils.py:401 - perf {}: {{'perf/update_weights_time': {}, "
                     "'perf/train_wait_time': {}, 'perf/log_probs_time': {}, 'perf/actor_train_time': {}, "
                     "'perf/train_time': {}, 'perf/step_time': {}, 'perf/wait_time_ratio': {}}}",
                     trainer, timestamp(clock), r, update, wait, logp, train, logp + train, step, wait / step)
              << std::endl;
  }
  std::cout << fmt::format("[{}] train.py:60 - training finished", timestamp(clock)) << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 3 && std::string(argv[1]) == "--hidden") return hidden_report(std::stoll(argv[2]));
    if (argc == 8 && std::string(argv[1]) == "--hidden-rl") return hidden_rl_report(argv);
    std::vector<std::string> args(argv + 1, argv + argc);
    // torchrun's own arguments come before the training script.
    int64_t nodes = 1;
    int64_t per_node = 8;
    int64_t steps = 10;
    int64_t row_tokens = 8192;
    int64_t global_batch = 128;
    bool megatron = false;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      const bool has_value = i + 1 < args.size();
      if (a.find("pretrain_gpt.py") != std::string::npos) megatron = true;
      if (!has_value) continue;
      if (a == "--actor-num-nodes" || a == "--nnodes") nodes = std::stoll(args[i + 1]);
      if (a == "--actor-num-gpus-per-node" || a == "--nproc-per-node")
        per_node = std::stoll(args[i + 1]);
      if (a == "--num-rollout" || a == "--train-iters") steps = std::stoll(args[i + 1]);
      if (a == "--seq-length") row_tokens = std::stoll(args[i + 1]);
      if (a == "--global-batch-size") global_batch = std::stoll(args[i + 1]);
    }
    std::string script = megatron ? "python3 pretrain_gpt.py" : "python3 train.py";
    for (const std::string& a : args) {
      std::string quoted = "'";
      for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      script += " " + quoted + "'";
    }
    if (std::find(args.begin(), args.end(), "--rollout-num-gpus-per-engine") != args.end()) {
      return rl_main(args, script);
    }
    const ladle::ModelSpec model =
        ladle::model::load_model(env_or("FAKE_ENGINE_MODEL", "glm-4.7-flash"));
    const ladle::plan::Cluster cluster =
        ladle::plan::make_cluster(env_or("FAKE_ENGINE_GPU", "h200"), nodes * per_node);
    const ladle::plan::Workload workload{row_tokens, global_batch, ladle::plan::Precision::bf16};
    const ladle::layout::LayoutContext context{cluster.gpus, cluster.gpus_per_node(), row_tokens,
                                               global_batch};
    const ladle::args::LaunchArgs launch = ladle::args::parse_launch_args(script, "argv");
    ladle::Layout layout =
        ladle::layout::read_layout_args(
            launch.args, megatron ? ladle::layout::Engine::megatron : ladle::layout::Engine::slime)
            .layout;
    // slime packs rows by --max-tokens-per-gpu (dynamic batching): rows per microbatch follow from
    // it.
    if (!megatron && layout.max_tokens > 0)
      layout.rows_per_mb = std::max<int64_t>(1, layout.max_tokens * layout.cp / row_tokens);
    layout = ladle::layout::resolve_layout(layout, context);
    const std::string spec = ladle::layout::format_layout_spec(layout);
    const std::string state_dir = env_or("FAKE_ENGINE_STATE", "");
    if (state_dir.empty()) {
      std::cerr << "fake_engine: FAKE_ENGINE_STATE is not set\n";
      return 2;
    }
    std::filesystem::create_directories(state_dir);
    {
      std::ofstream ledger(state_dir + "/ledger", std::ios::app);
      ledger << env_or("LADLE_TUNE_JOB", "-") << " " << steps << " " << spec << "\n";
    }
    const double scale = std::stod(env_or("FAKE_ENGINE_TIME_SCALE", "0.002"));
    std::cout << fmt::format("[{}] train.py:18 - starting: {} rollouts on {} GPUs", timestamp(0),
                             steps, cluster.gpus)
              << std::endl;
    if (auto violation = ladle::layout::find_layout_violation(layout, model, context)) {
      std::cout << "AssertionError: " << *violation << std::endl;
      return 1;
    }
    const ladle::plan::ModelCosts costs = ladle::plan::model_costs(model, row_tokens);
    const ladle::Prediction truth =
        ladle::plan::predict(costs, model, layout, cluster, workload, hidden_calibration());
    const double memory = truth.memory_gib * kHiddenMemoryFactor;
    double clock = 95;  // simulated start-up seconds
    std::this_thread::sleep_for(std::chrono::duration<double>(clock * scale));
    if (memory > kHiddenCapGib) {
      std::cout << fmt::format(
                       "[{}] model.py:390 - torch.OutOfMemoryError: CUDA out of memory. Tried to "
                       "allocate 2.00 GiB. "
                       "GPU 0 has a total capacity of {:.2f} GiB of which 1.21 GiB is free. "
                       "Including non-PyTorch "
                       "memory, this process has {:.2f} GiB memory in use.",
                       timestamp(clock), kHiddenCapGib + 0.8, kHiddenCapGib - 0.4)
                << std::endl;
      return 1;
    }
    const int64_t flake_every = std::stoll(env_or("FAKE_ENGINE_FLAKE_EVERY", "5"));
    const uint64_t layout_hash = hash_text(spec);
    const std::string flake_mark = state_dir + "/flaked-" + std::to_string(layout_hash);
    const bool flake = flake_every > 0 && layout_hash % static_cast<uint64_t>(flake_every) == 0 &&
                       !std::filesystem::exists(flake_mark);
    const bool hang = env_or("FAKE_ENGINE_HANG", "") == "1";
    const std::string job = env_or("LADLE_TUNE_JOB", "-");
    // ladle-<run>-<trial>, or ladle-<run>-<trial>-a<attempt> for a retry.
    std::string trial = job.substr(job.rfind('-') + 1);
    if (!trial.empty() && trial[0] == 'a') {
      const std::string head = job.substr(0, job.rfind('-'));
      trial = head.substr(head.rfind('-') + 1);
    }
    const std::string held = "," + env_or("FAKE_ENGINE_HOLD_TRIALS", "") + ",";
    const int64_t hold_after = held.find("," + trial + ",") != std::string::npos
                                   ? std::stoll(env_or("FAKE_ENGINE_HOLD_AFTER", "0"))
                                   : 0;
    for (int64_t step = 0; step < steps; ++step) {
      double t =
          truth.step_time_s * (1 + 0.01 * unit_noise(layout_hash ^ static_cast<uint64_t>(step)));
      if (step == 0) t *= 1.6;  // warm-up: kernel autotuning, allocator growth
      if (step == 1) t *= 1.15;
      std::this_thread::sleep_for(std::chrono::duration<double>(t * scale));
      clock += t;
      const double loss = 1.2 * std::exp(-0.03 * static_cast<double>(step)) +
                          0.02 * std::sin(0.7 * step) +
                          1e-4 * unit_noise(layout_hash + 7 * static_cast<uint64_t>(step));
      const double grad_norm = 3.0 * std::exp(-0.1 * static_cast<double>(step)) + 0.5;
      if (megatron) {
        std::cout << fmt::format(
                         " [{}] iteration {:>8}/{:>8} | consumed samples: {:>12} | elapsed time "
                         "per iteration (ms): "
                         "{:.1f} | learning rate: 1.000000E-05 | global batch size: {:>5} | lm "
                         "loss: {:.6E} | "
                         "loss scale: 1.0 | grad norm: {:.3f} | number of skipped iterations:   0 "
                         "| number of nan "
                         "iterations:   0 |",
                         timestamp(clock), step + 1, steps, (step + 1) * global_batch, t * 1000,
                         global_batch, loss, grad_norm)
                  << std::endl;
      } else {
        std::cout
            << fmt::format(
                   "[{}] model.py:642 - step {}: {{'train/loss': {:.6f}, 'train/grad_norm': "
                   "{:.4f}, "
                   "'train/lr-pg_0': 1e-05, 'train/global_batch_size': {}, 'train/step': {}}}",
                   timestamp(clock), step, loss, grad_norm, global_batch, step)
            << std::endl;
        std::cout << fmt::format(
                         "[{}] train_metric_utils.py:68 - perf {}: {{'perf/train_wait_time': 0.0, "
                         "'perf/train_time': {:.6f}, 'perf/step_time': {:.6f}, "
                         "'perf/wait_time_ratio': 0.0}}",
                         timestamp(clock), step, t, t)
                  << std::endl;
      }
      if (hang) {
        std::this_thread::sleep_for(std::chrono::hours(1));
      }
      if (hold_after > 0 && step + 1 == hold_after) {
        std::this_thread::sleep_for(
            std::chrono::duration<double>(std::stod(env_or("FAKE_ENGINE_HOLD_S", "60"))));
      }
      if (flake && step == 2) {
        std::ofstream(flake_mark) << spec << "\n";
        std::cout << fmt::format(
                         "[rank3]:[E ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective "
                         "operation "
                         "timeout: WorkNCCL(SeqNum=412, OpType=ALLTOALL_BASE, NumelIn=8388608, "
                         "NumelOut=8388608, "
                         "Timeout(ms)=600000) ran for 600034 milliseconds before timing out.")
                  << std::endl;
        return 1;
      }
    }
    std::cout << fmt::format("[{}] train.py:60 - training finished", timestamp(clock)) << std::endl;
    return 0;
  } catch (const ladle::Error& e) {
    std::cerr << "fake_engine: " << e.describe() << "\n";
    return 2;
  }
}
