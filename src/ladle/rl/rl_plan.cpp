#include "ladle/rl/rl_plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ladle/layout/layout_spec.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/search.hpp"
#include "ladle/rl/rollout_json.hpp"
#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"

namespace ladle::rl {

namespace {

// SGLang's --mem-fraction-static values the search tries when the job gives none: the fraction of
// the GPU the engine's weights and KV pool take (SGLang ServerArgs.mem_fraction_static). The
// search keeps the fastest that fits; a job that gives one keeps it.
constexpr double kMemFractions[] = {0.5, 0.6, 0.7, 0.8, 0.85, 0.9};
// Rejected splits kept for the report.
constexpr size_t kMaxRejected = 5;

std::string engine_label(const EngineLayout& e) {
  std::string out = fmt::format("TP{}", e.tp);
  if (e.dp_attention > 1) out += fmt::format(" DPattn{}", e.dp_attention);
  if (e.ep > 1) out += fmt::format(" EP{}", e.ep);
  return out;
}

std::string split_label(Mode mode, int64_t rollout, int64_t trainer) {
  if (mode == Mode::colocated) return fmt::format("colocated on {} GPUs", trainer);
  return fmt::format("{}: {} rollout + {} trainer GPUs", to_string(mode), rollout, trainer);
}

// Engine layouts for a pool of `pool` GPUs: GPUs per engine a power of two dividing the pool (at
// most four nodes), TP over all of them, DP attention and EP off or over every GPU of the engine.
std::vector<EngineLayout> engine_layouts(const ModelSpec& model, int64_t pool, int64_t per_node,
                                         const std::optional<EngineLayout>& fixed) {
  if (fixed) return {*fixed};
  std::vector<EngineLayout> out;
  for (int g = 1; g <= pool && g <= 4 * per_node; g *= 2) {
    if (pool % g != 0) continue;
    for (int dp : {1, g}) {
      for (int ep : {1, g}) {
        if (ep > 1 && model.num_experts == 0) continue;
        if ((dp > 1 || ep > 1) && g == 1) continue;
        EngineLayout e;
        e.gpus = g;
        e.tp = g;
        e.dp_attention = dp;
        e.ep = ep;
        out.push_back(e);
      }
    }
  }
  return out;
}

// Trainer GPU counts of a disaggregated split of `gpus`: fewer than a node (a power of two), or
// whole nodes (slime places the actor as --actor-num-nodes x --actor-num-gpus-per-node).
std::vector<int64_t> trainer_counts(int64_t gpus, int64_t per_node) {
  std::vector<int64_t> out;
  for (int64_t t = 1; t < per_node && t < gpus; t *= 2) out.push_back(t);
  for (int64_t t = per_node; t < gpus; t += per_node) out.push_back(t);
  return out;
}

bool better(const RlStep& a, const RlStep& b, bool by_cost) {
  if (by_cost) return a.usd_per_million_tokens < b.usd_per_million_tokens;
  return a.samples_per_s > b.samples_per_s;
}

// A list of {part, gib}: part names are prose ("KV cache"), not keys.
nlohmann::ordered_json parts_json(const std::vector<Part>& parts) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const Part& p : parts) j.push_back({{"part", p.name}, {"gib", p.value}});
  return j;
}

}  // namespace

std::optional<int64_t> model_context_tokens(const ModelSpec& model) {
  // The catalog's configs are embedded ("embedded:data/models/x.json" or the embedded path itself);
  // a user's config.json is read from its path.
  std::string text;
  constexpr std::string_view kEmbedded = "embedded:";
  const std::string path =
      model.source.rfind(kEmbedded, 0) == 0 ? model.source.substr(kEmbedded.size()) : model.source;
  if (const auto bytes = util::find_embedded(path)) {
    text = std::string(*bytes);
  } else {
    text = util::read_file(path, limits::FileKind::any);
  }
  const nlohmann::json config = nlohmann::json::parse(text, nullptr, false);
  if (config.is_discarded() || !config.is_object()) return std::nullopt;
  // A VL model's text config carries the language model's context.
  for (const nlohmann::json* c : {&config, config.contains("text_config") ? &config["text_config"] : nullptr}) {
    if (c && c->is_object() && c->contains("max_position_embeddings") &&
        (*c)["max_position_embeddings"].is_number_integer()) {
      return (*c)["max_position_embeddings"].get<int64_t>();
    }
  }
  return std::nullopt;
}

void check_rl_work(const ModelSpec& model, const RlWork& w, const RlWorkNames& n) {
  const auto positive = [](const std::string& name, int64_t value) {
    if (value < 1) throw_usage("{}: expected a positive count, got {}", name, value);
  };
  positive(n.prompts, w.rollout.prompts);
  positive(n.samples, w.rollout.samples_per_prompt);
  positive(n.prompt_len, w.rollout.prompt_tokens);
  positive(n.response_len, w.rollout.response_mean);
  positive(n.response_max, w.rollout.response_max);
  positive(n.steps, w.steps_per_rollout);
  if (w.rollout.response_mean > w.rollout.response_max) {
    throw_usage("{}: the mean response ({} tokens) is longer than the longest ({} tokens, {})", n.response_len,
                w.rollout.response_mean, w.rollout.response_max, n.response_max);
  }
  if (w.samples() % w.steps_per_rollout != 0) {
    throw_usage("{}: {} optimizer steps do not divide the rollout's {} samples ({} x {})", n.steps,
                w.steps_per_rollout, w.samples(), w.rollout.prompts, w.rollout.samples_per_prompt);
  }
  if (w.samples() > limits::kMaxGlobalBatchRows) {
    throw_usage("{}: {} samples per rollout is beyond ladle's limit of {}", n.prompts, w.samples(),
                limits::kMaxGlobalBatchRows);
  }
  const std::optional<int64_t> context = model_context_tokens(model);
  if (context && w.longest_tokens() > *context) {
    throw_usage("{}: a prompt of {} plus a response of {} tokens is beyond {}'s context of {} tokens "
                "(max_position_embeddings)",
                n.response_max, w.rollout.prompt_tokens, w.rollout.response_max, model.name, *context);
  }
  if (w.longest_tokens() > limits::kMaxSequenceTokens) {
    throw_usage("{}: a sample of {} tokens is beyond ladle's limit of {}", n.response_max, w.longest_tokens(),
                limits::kMaxSequenceTokens);
  }
}

RlPlanReport plan_rl(const RlPlanRequest& r) {
  LADLE_ASSERT(static_cast<bool>(r.rollout_model), "plan_rl needs a rollout model");
  RlPlanReport report;
  report.model = r.model.name;
  report.cluster = plan::make_cluster(r.hardware, r.gpus);
  report.work = r.work;
  const plan::Cluster& cluster = report.cluster;
  const int64_t per_node = cluster.gpus_per_node();
  std::vector<double> fractions;
  if (r.mem_fraction) {
    fractions = {*r.mem_fraction};
    report.notes.push_back(fmt::format("SGLang memory fraction {:g}: fixed (--sglang-mem-fraction, else the job's --sglang-mem-fraction-static)", *r.mem_fraction));
  } else {
    fractions.assign(std::begin(kMemFractions), std::end(kMemFractions));
    report.notes.push_back("SGLang memory fraction: searched over 0.5 to 0.9");
  }
  report.notes.push_back(r.engine ? "engine layout: fixed by the job's --rollout-num-gpus-per-engine and --sglang-* arguments" : "engine layout: searched (GPUs per engine, DP attention, EP)");
  report.notes.push_back("trainer layout: the planner's search on the trainer's GPUs");

  // The trainer's best layout per (GPU count, colocated?), from the planner's own search.
  std::map<std::pair<int64_t, bool>, std::optional<Layout>> trainers;
  std::string trainer_failure;
  const auto trainer_for = [&](int64_t gpus, bool colocated, double fraction) -> std::optional<Layout> {
    const auto key = std::make_pair(gpus, colocated);
    if (auto it = trainers.find(key); it != trainers.end()) return it->second;
    plan::PlanRequest pr;
    pr.model = r.model;
    pr.cluster = plan::make_cluster(r.hardware, gpus);
    pr.workload = training_workload(r.work, gpus);
    pr.calibration = r.calibration;
    pr.top = 1;
    pr.memory_margin = r.memory_margin;
    pr.base = r.trainer_base;
    pr.fixed = r.trainer_fixed;
    // Colocated, the paused engine's CUDA context stays beside the trainer (cost_colocate.hpp).
    pr.base.colocate = colocated;
    if (colocated) pr.base.sglang_mem_fraction = fraction;
    std::optional<Layout> out;
    try {
      ++report.trainer_searches;
      const plan::PlanReport pl = plan::plan_layouts(pr);
      if (!pl.top.empty()) out = pl.top.front().layout;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::no && e.kind() != ErrorKind::usage) throw;
      if (trainer_failure.empty()) trainer_failure = fmt::format("trainer on {} GPUs: {}", gpus, e.message());
      if (report.rejected.size() < kMaxRejected) {
        report.rejected.push_back({fmt::format("trainer on {} GPUs", gpus), e.message()});
      }
    }
    trainers[key] = out;
    return out;
  };

  std::vector<RlStep> fitting;
  std::optional<RlRejected> closest;  // a split that ran but did not fit
  std::string rollout_failure;
  const auto consider = [&](Mode mode, int64_t rollout, int64_t trainer, const EngineLayout& engine,
                            const Layout& trainer_layout) {
    RlSetup setup{mode, rollout, trainer, engine, trainer_layout};
    ++report.evaluated;
    try {
      RlStep s = predict_rl_step(r.model, setup, cluster, r.work, r.calibration, r.rollout_model);
      if (!s.fits) {
        if (!closest) {
          closest = RlRejected{fmt::format("{}, engine {}, memory fraction {:g}", split_label(mode, rollout, trainer),
                                           engine_label(engine), engine.mem_fraction),
                               s.binding};
        }
        return;
      }
      ++report.fitting;
      fitting.push_back(std::move(s));
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::no && e.kind() != ErrorKind::usage) throw;
      if (rollout_failure.empty()) {
        rollout_failure = fmt::format("engine {} on {} GPUs: {}", engine_label(engine), rollout, e.message());
      }
    }
  };

  for (Mode mode : r.modes) {
    if (mode == Mode::colocated) {
      for (const EngineLayout& base_engine : engine_layouts(r.model, r.gpus, per_node, r.engine)) {
        for (double f : fractions) {
          EngineLayout e = base_engine;
          e.mem_fraction = f;
          const std::optional<Layout> t = trainer_for(r.gpus, true, f);
          if (t) consider(mode, r.gpus, r.gpus, e, *t);
        }
      }
      continue;
    }
    std::vector<int64_t> counts;
    if (r.rollout_gpus) {
      if (*r.rollout_gpus < r.gpus) counts.push_back(r.gpus - *r.rollout_gpus);
    } else {
      counts = trainer_counts(r.gpus, per_node);
    }
    for (int64_t t : counts) {
      const std::optional<Layout> layout = trainer_for(t, false, 0);
      if (!layout) continue;
      const int64_t pool = r.gpus - t;
      for (const EngineLayout& base_engine : engine_layouts(r.model, pool, per_node, r.engine)) {
        for (double f : fractions) {
          EngineLayout e = base_engine;
          e.mem_fraction = f;
          consider(mode, pool, t, e, *layout);
        }
      }
    }
  }
  if (fitting.empty()) {
    if (closest) {
      throw_no("does not fit: {} ({}); no split of {} x {} fits both phases", closest->reason, closest->what, r.gpus,
               cluster.gpu.name);
    }
    if (!rollout_failure.empty()) throw_usage("no valid RL split: {}", rollout_failure);
    if (!trainer_failure.empty()) throw_no("does not fit: no trainer layout fits ({})", trainer_failure);
    throw_usage("no valid RL split of {} GPUs for the modes asked", r.gpus);
  }
  std::stable_sort(fitting.begin(), fitting.end(),
                   [&](const RlStep& a, const RlStep& b) { return better(a, b, r.by_cost); });
  // One row per split and engine layout: the best memory fraction of each.
  std::vector<RlStep> top;
  for (RlStep& s : fitting) {
    const bool seen = std::any_of(top.begin(), top.end(), [&](const RlStep& t) {
      EngineLayout a = t.setup.engine, b = s.setup.engine;
      a.mem_fraction = b.mem_fraction = 0;
      return t.setup.mode == s.setup.mode && t.setup.rollout_gpus == s.setup.rollout_gpus &&
             t.setup.trainer_gpus == s.setup.trainer_gpus && a == b;
    });
    if (seen) continue;
    top.push_back(std::move(s));
    if (static_cast<int64_t>(top.size()) >= r.top) break;
  }
  report.top = std::move(top);
  if (closest) report.rejected.insert(report.rejected.begin(), *closest);
  if (report.rejected.size() > kMaxRejected) report.rejected.resize(kMaxRejected);
  return report;
}

std::string render_rl_plan(const RlPlanReport& rep) {
  const RlWork& w = rep.work;
  std::string out;
  out += fmt::format("{} RL on {} x {} ({}, {:.2f} USD per GPU-hour)\n", rep.model, rep.cluster.gpus,
                     rep.cluster.gpu.name, rep.cluster.instance.name, rep.cluster.instance.usd_per_gpu_hour());
  out += fmt::format(
      "workload: {} prompts x {} samples per rollout, prompt {} + response {} tokens (longest {}), {} optimizer "
      "step{} per rollout, {}\n",
      w.rollout.prompts, w.rollout.samples_per_prompt, w.rollout.prompt_tokens, w.rollout.response_mean,
      w.rollout.response_max, w.steps_per_rollout, w.steps_per_rollout == 1 ? "" : "s",
      w.ref_logprobs ? "KL to the reference policy" : "no KL term");
  for (const std::string& n : rep.notes) out += "  " + n + "\n";
  out += fmt::format("searched: {} RL steps predicted ({} fit), {} trainer searches\n\n", rep.evaluated, rep.fitting,
                     rep.trainer_searches);
  out += fmt::format("{:>3}  {:<37} {:<28} {:>9} {:>11} {:>9}  {}\n", "#", "split", "engine", "samples/s",
                     "tok/s/GPU", "$/1M tok", "trainer");
  int rank = 1;
  for (const RlStep& s : rep.top) {
    out += fmt::format("{:>3}  {:<37} {:<28} {:>9.2f} {:>11.0f} {:>9.3f}  {}\n", rank++,
                       split_label(s.setup.mode, s.setup.rollout_gpus, s.setup.trainer_gpus),
                       fmt::format("{}x {} mem {:.2f}", s.setup.rollout_gpus / s.setup.engine.gpus,
                                   engine_label(s.setup.engine), s.setup.engine.mem_fraction),
                       s.samples_per_s, s.trained_tokens_per_s_per_gpu, s.usd_per_million_tokens,
                       layout::layout_label(s.setup.trainer));
  }
  if (!rep.top.empty()) {
    const RlStep& b = rep.top.front();
    out += fmt::format("\nbest: {} ({})\n", split_label(b.setup.mode, b.setup.rollout_gpus, b.setup.trainer_gpus),
                       describe(b.setup.mode));
    out += fmt::format(
        "  step {:.1f} s: rollout {:.1f} s (80%: {:.1f}-{:.1f}, {} bound), log-prob passes {:.1f} s, train {:.1f} s, "
        "weight update {:.2f} s ({:.1f} GiB over {})",
        b.step_s, b.rollout_s, b.rollout.seconds_lo, b.rollout.seconds_hi,
        b.rollout.bound.empty() ? "?" : b.rollout.bound, b.logprob_s, b.train_s, b.update_s,
        b.weight_bytes / (1024.0 * 1024 * 1024), b.update_path);
    if (b.ref_switch_s > 0) out += fmt::format(", reference weights in and out {:.2f} s", b.ref_switch_s);
    if (b.offload_s > 0) out += fmt::format(", trainer offload and onload {:.2f} s", b.offload_s);
    out += "\n";
    out += fmt::format("  idle: rollout GPUs {:.0f}%, trainer GPUs {:.0f}% of the step\n", 100 * b.rollout_idle,
                       100 * b.trainer_idle);
    out += fmt::format("  trainer: {} step {:.2f} s on {} rows of {} tokens, {:.0f} tokens/s per trainer GPU\n",
                       layout::layout_label(b.setup.trainer), b.train.step_time_s, b.train_workload.global_batch,
                       b.train_workload.row_tokens, b.train.tokens_per_s_per_gpu);
    for (const PhaseMemory& m : b.memory) {
      std::string parts;
      for (const Part& p : m.gpu_parts) {
        if (p.value < 0.05) continue;
        parts += fmt::format("{}{} {:.1f}", parts.empty() ? "" : ", ", p.name, p.value);
      }
      out += fmt::format("  {} phase on {}: {:.1f} of {:.1f} GiB per GPU ({}); host {:.0f} of {:.0f} GiB per node\n",
                         m.phase, m.pool, m.gpu_gib, m.gpu_capacity_gib, parts, m.host_gib, m.host_capacity_gib);
    }
  }
  if (!rep.rejected.empty()) {
    out += "\nrejected (first):\n";
    for (const RlRejected& x : rep.rejected) out += fmt::format("  {}: {}\n", x.what, x.reason);
  }
  return out;
}

std::string rl_plan_json(const RlPlanReport& rep) {
  nlohmann::ordered_json j;
  j["model"] = rep.model;
  j["gpu"] = rep.cluster.gpu.name;
  j["gpus"] = rep.cluster.gpus;
  j["instance"] = rep.cluster.instance.name;
  j["usd_per_gpu_hour"] = rep.cluster.instance.usd_per_gpu_hour();
  const RlWork& w = rep.work;
  nlohmann::ordered_json workload = to_json(w.rollout);
  workload["steps_per_rollout"] = w.steps_per_rollout;
  workload["ref_logprobs"] = w.ref_logprobs;
  j["workload"] = workload;
  j["notes"] = rep.notes;
  j["evaluated"] = rep.evaluated;
  j["fitting"] = rep.fitting;
  nlohmann::ordered_json top = nlohmann::ordered_json::array();
  for (const RlStep& s : rep.top) {
    nlohmann::ordered_json t;
    t["mode"] = to_string(s.setup.mode);
    t["rollout_gpus"] = s.setup.rollout_gpus;
    t["trainer_gpus"] = s.setup.trainer_gpus;
    t["engine"] = {{"gpus", s.setup.engine.gpus},
                   {"tp", s.setup.engine.tp},
                   {"dp_attention", s.setup.engine.dp_attention},
                   {"ep", s.setup.engine.ep},
                   {"mem_fraction", s.setup.engine.mem_fraction},
                   {"engines", s.setup.rollout_gpus / s.setup.engine.gpus}};
    t["trainer"] = layout::format_layout_spec(s.setup.trainer);
    t["samples_per_s"] = s.samples_per_s;
    t["trained_tokens_per_s_per_gpu"] = s.trained_tokens_per_s_per_gpu;
    t["usd_per_million_tokens"] = s.usd_per_million_tokens;
    t["step_s"] = s.step_s;
    t["phases_s"] = {{"rollout", s.rollout_s},         {"rollout_lo", s.rollout.seconds_lo},
                     {"rollout_hi", s.rollout.seconds_hi}, {"logprob", s.logprob_s},
                     {"ref_switch", s.ref_switch_s},   {"train", s.train_s},
                     {"weight_update", s.update_s},    {"offload", s.offload_s}};
    t["weight_update"] = {{"bytes", s.weight_bytes}, {"path", s.update_path}};
    t["idle"] = {{"rollout", s.rollout_idle}, {"trainer", s.trainer_idle}};
    t["train_workload"] = {{"row_tokens", s.train_workload.row_tokens}, {"rows", s.train_workload.global_batch}};
    nlohmann::ordered_json mem = nlohmann::ordered_json::array();
    for (const PhaseMemory& m : s.memory) {
      mem.push_back({{"phase", m.phase},
                     {"pool", m.pool},
                     {"gpu_gib", m.gpu_gib},
                     {"gpu_capacity_gib", m.gpu_capacity_gib},
                     {"gpu_parts", parts_json(m.gpu_parts)},
                     {"host_gib_per_node", m.host_gib},
                     {"host_capacity_gib", m.host_capacity_gib},
                     {"host_parts", parts_json(m.host_parts)}});
    }
    t["memory"] = mem;
    top.push_back(t);
  }
  j["top"] = top;
  nlohmann::ordered_json rej = nlohmann::ordered_json::array();
  for (const RlRejected& x : rep.rejected) rej.push_back({{"what", x.what}, {"reason", x.reason}});
  j["rejected"] = rej;
  return j.dump(2) + "\n";
}

std::vector<std::string> rl_job_args(const RlStep& s, const RlWork& w, int64_t per_node) {
  std::vector<std::string> a;
  const int64_t t = s.setup.trainer_gpus;
  const int64_t nodes = t >= per_node ? t / per_node : 1;
  const int64_t gpn = t >= per_node ? per_node : t;
  const auto add = [&](std::string flag, auto value) {
    a.push_back(std::move(flag));
    a.push_back(fmt::format("{}", value));
  };
  add("--actor-num-nodes", nodes);
  add("--actor-num-gpus-per-node", gpn);
  if (s.setup.mode == Mode::colocated) a.emplace_back("--colocate");
  add("--rollout-num-gpus", s.setup.rollout_gpus);
  add("--rollout-num-gpus-per-engine", s.setup.engine.gpus);
  add("--sglang-mem-fraction-static", fmt::format("{:g}", s.setup.engine.mem_fraction));
  if (s.setup.engine.dp_attention > 1) {
    a.emplace_back("--sglang-enable-dp-attention");
    add("--sglang-dp-size", s.setup.engine.dp_attention);
  }
  if (s.setup.engine.ep > 1) add("--sglang-ep-size", s.setup.engine.ep);
  add("--rollout-batch-size", w.rollout.prompts);
  add("--n-samples-per-prompt", w.rollout.samples_per_prompt);
  add("--num-steps-per-rollout", w.steps_per_rollout);
  add("--rollout-max-prompt-len", w.rollout.prompt_tokens);
  add("--rollout-max-response-len", w.rollout.response_max);
  if (w.ref_logprobs) a.emplace_back("--use-kl-loss");
  return a;
}

}  // namespace ladle::rl
