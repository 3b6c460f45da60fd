#include "ladle/rl/rl_step.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ladle/hw/hw_facts.hpp"
#include "ladle/hw/memory_facts.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/util/error.hpp"

namespace ladle::rl {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

double part(const std::vector<Part>& parts, std::string_view name) {
  for (const Part& p : parts) {
    if (p.name == name) return p.value;
  }
  return 0.0;
}

int64_t data_parallel(const Layout& l, int64_t gpus) {
  if (l.dp > 0) return l.dp;
  const int64_t model = std::max<int64_t>(1, l.tp * l.pp * l.cp);
  return std::max<int64_t>(1, gpus / model);
}

double nvlink_bytes_per_s(const plan::Cluster& cluster) { return cluster.gpu.intra_node_gb_per_s * 1e9; }
}  // namespace

const char* to_string(Mode mode) {
  switch (mode) {
    case Mode::colocated: return "colocated";
    case Mode::sync: return "sync";
    case Mode::async: return "async";
  }
  return "?";
}

const char* describe(Mode mode) {
  switch (mode) {
    case Mode::colocated: return "colocated-synchronous";
    case Mode::sync: return "disaggregated-synchronous";
    case Mode::async: return "disaggregated-asynchronous";
  }
  return "?";
}

Mode parse_mode(std::string_view text) {
  if (text == "colocated") return Mode::colocated;
  if (text == "sync") return Mode::sync;
  if (text == "async") return Mode::async;
  throw_usage("--rl-mode: expected colocated, sync or async, got '{}'", text);
}

plan::Workload training_workload(const RlWork& work, int64_t trainer_gpus, int64_t dp) {
  plan::Workload w;
  w.row_tokens = work.longest_tokens();
  const double tokens_per_step =
      static_cast<double>(work.samples()) * static_cast<double>(work.sample_tokens()) /
      static_cast<double>(std::max<int64_t>(1, work.steps_per_rollout));
  int64_t rows = static_cast<int64_t>(std::ceil(tokens_per_step / static_cast<double>(w.row_tokens)));
  const int64_t multiple = std::max<int64_t>(1, dp > 0 ? dp : trainer_gpus);
  rows = std::max<int64_t>(multiple, (rows + multiple - 1) / multiple * multiple);
  w.global_batch = rows;
  w.rl = fmt::format(
      "RL: {} samples per rollout ({} prompts x {}), {} optimizer step{} per rollout, samples of {} tokens on average "
      "(prompt {} + response {}) packed into {} rows of {} (the longest sample) per step",
      work.samples(), work.rollout.prompts, work.rollout.samples_per_prompt, work.steps_per_rollout,
      work.steps_per_rollout == 1 ? "" : "s", work.sample_tokens(), work.rollout.prompt_tokens,
      work.rollout.response_mean, rows, w.row_tokens);
  return w;
}

double forward_only_seconds(const std::vector<Part>& step_parts, double attention_backward) {
  using plan::TimePart;
  double total = 0, forward = 0;
  for (size_t i = 0; i < plan::kTimeParts; ++i) {
    const auto t = static_cast<TimePart>(i);
    if (t == TimePart::pipeline_bubble) continue;
    const double seconds = part(step_parts, plan::to_string(t));
    const double share = plan::forward_share(t, attention_backward);
    if (share > 0) total += seconds;
    forward += share * seconds;
  }
  // The bubble of a forward-only pipeline is its forward chunks' share of the training bubble.
  const double bubble = part(step_parts, plan::to_string(TimePart::pipeline_bubble));
  if (bubble > 0 && total > 0) forward += bubble * forward / total;
  return forward;
}

std::vector<PhaseMemory> colocated_memory(const Prediction& train, const Layout& trainer, const EngineLayout& engine,
                                          const RolloutMemory& rollout, const plan::Cluster& cluster,
                                          bool ref_logprobs) {
  const hw::MemoryFacts& facts = hw::memory_facts();
  const double context_gib = facts.cuda_context_mib * kMiB / kGiB;
  const double per_node = static_cast<double>(std::min(cluster.gpus, cluster.gpus_per_node()));
  const StageMemory& worst = train.stages.at(static_cast<size_t>(train.worst_stage));
  // What the paused trainer copies to the host (TMS_INIT_ENABLE_CPU_BACKUP): its weights, gradient
  // buffers and optimizer states; activations and caches are freed before it sleeps.
  const double trainer_state_gib =
      part(worst.parts, plan::to_string(plan::MemoryPart::weights)) + part(worst.parts, plan::to_string(plan::MemoryPart::gradients)) + part(worst.parts, plan::to_string(plan::MemoryPart::optimizer_states));
  const double weights_gib = part(worst.parts, plan::to_string(plan::MemoryPart::weights));

  PhaseMemory rollout_phase;
  rollout_phase.phase = "rollout";
  rollout_phase.pool = "all GPUs";
  rollout_phase.gpu_capacity_gib = train.capacity_gib;
  // SGLang's static pool: --mem-fraction-static of the GPU's memory holds its weights, the KV
  // cache taking all the weights leave of it (SGLang sizes the pool so); its activations and CUDA graphs take what is left, which
  // SGLang sizes at start from the memory it finds free.
  rollout_phase.gpu_parts = {
      {"engine weights", rollout.weights_bytes / kGiB},
      {"KV cache", std::max(0.0, engine.mem_fraction * train.capacity_gib - rollout.weights_bytes / kGiB)},
      {"CUDA contexts (engine, paused trainer)", 2 * context_gib},
      {"weight-update bucket", static_cast<double>(trainer.update_buffer_bytes) / kGiB},
  };
  for (const Part& p : rollout_phase.gpu_parts) rollout_phase.gpu_gib += p.value;
  rollout_phase.host_parts = {{"paused trainer's tensors", trainer_state_gib * per_node},
                              {"offloaded optimizer states", train.host_memory_gib}};
  if (ref_logprobs) rollout_phase.host_parts.push_back({"policy and reference weights", 2 * weights_gib * per_node});
  for (const Part& p : rollout_phase.host_parts) rollout_phase.host_gib += p.value;
  rollout_phase.host_capacity_gib = train.host_capacity_gib;

  PhaseMemory training_phase;
  training_phase.phase = "training";
  training_phase.pool = "all GPUs";
  training_phase.gpu_parts = worst.parts;
  training_phase.gpu_gib = train.memory_gib;
  training_phase.gpu_capacity_gib = train.capacity_gib;
  training_phase.host_parts = {{"offloaded optimizer states", train.host_memory_gib}};
  if (ref_logprobs) training_phase.host_parts.push_back({"policy and reference weights", 2 * weights_gib * per_node});
  for (const Part& p : training_phase.host_parts) training_phase.host_gib += p.value;
  training_phase.host_capacity_gib = train.host_capacity_gib;

  std::vector<PhaseMemory> out{rollout_phase, training_phase};
  for (PhaseMemory& m : out) {
    if (m.gpu_gib > m.gpu_capacity_gib) {
      m.fits = false;
      m.binding = fmt::format("HBM {:.1f} > {:.1f} GiB per GPU", m.gpu_gib, m.gpu_capacity_gib);
    } else if (m.host_gib > m.host_capacity_gib) {
      m.fits = false;
      m.binding = fmt::format("host memory {:.0f} > {:.0f} GiB per node", m.host_gib, m.host_capacity_gib);
    }
  }
  return out;
}

RlStep predict_rl_step(const ModelSpec& model, const RlSetup& setup, const plan::Cluster& cluster,
                       const RlWork& work, const plan::Calibration& calibration, const RolloutModel& rollout_model) {
  const bool colocated = setup.mode == Mode::colocated;
  if (setup.trainer_gpus < 1 || setup.rollout_gpus < 1) {
    throw_usage("an RL step needs rollout and trainer GPUs, got {} and {}", setup.rollout_gpus, setup.trainer_gpus);
  }
  if (colocated ? (setup.rollout_gpus != setup.trainer_gpus || setup.trainer_gpus != cluster.gpus)
                : setup.rollout_gpus + setup.trainer_gpus != cluster.gpus) {
    throw_usage("{} rollout and {} trainer GPUs do not make the job's {} GPUs ({})", setup.rollout_gpus,
                setup.trainer_gpus, cluster.gpus, describe(setup.mode));
  }
  if (setup.engine.gpus < 1 || setup.rollout_gpus % setup.engine.gpus != 0) {
    throw_usage("--rollout-num-gpus-per-engine: {} does not divide the {} rollout GPUs", setup.engine.gpus,
                setup.rollout_gpus);
  }
  RlStep s;
  s.setup = setup;
  s.setup.trainer.colocate = colocated;
  if (colocated) s.setup.trainer.sglang_mem_fraction = setup.engine.mem_fraction;
  const Layout& trainer = s.setup.trainer;

  // The rollout.
  const int engines = static_cast<int>(setup.rollout_gpus / setup.engine.gpus);
  s.rollout = rollout_model(model, cluster.gpu, setup.engine, engines, work.rollout);
  s.rollout_s = s.rollout.seconds;

  // Training: one optimizer step of the trainer's layout on its share of the rollout.
  plan::Cluster trainer_cluster = cluster;
  trainer_cluster.gpus = setup.trainer_gpus;
  s.train_workload = training_workload(work, setup.trainer_gpus, data_parallel(trainer, setup.trainer_gpus));
  const plan::ModelCosts costs = plan::model_costs(model, s.train_workload.row_tokens);
  s.train = plan::predict(costs, model, trainer, trainer_cluster, s.train_workload, calibration);
  const double steps = static_cast<double>(work.steps_per_rollout);
  s.train_s = steps * s.train.step_time_s;

  // Log-probability passes: forward-only over the whole rollout (every optimizer step's rows).
  const int passes = (work.ref_logprobs ? 1 : 0) + (work.old_logprobs() ? 1 : 0);
  s.logprob_s = passes * steps * forward_only_seconds(s.train.step_parts, s.train.attention_backward);
  const double link = plan::device_host_bytes_per_s(cluster.gpu, calibration);
  const StageMemory& worst = s.train.stages.at(static_cast<size_t>(s.train.worst_stage));
  const double weights_per_gpu = part(worst.parts, plan::to_string(plan::MemoryPart::weights)) * kGiB;
  // The reference weights in from the host, the policy's back in, and the new policy backed up.
  if (work.ref_logprobs) s.ref_switch_s = 3 * weights_per_gpu / link;

  // Weight update: the weights every engine receives, in the engine's dtype (rollout.hpp's
  // weight_bits; slime converts the trainer's BF16 weights to it before sending them).
  s.weight_bytes = costs.total_params * static_cast<double>(setup.engine.weight_bits) / 8.0;
  // Each pipeline stage's ranks gather their stage's weights over NVLink before sending them.
  const double stage_bytes = s.weight_bytes / static_cast<double>(std::max<int64_t>(1, trainer.pp));
  const double gather_s = stage_bytes / nvlink_bytes_per_s(cluster);
  if (colocated) {
    s.update_path = "CUDA IPC on each GPU";
    // The engine copies its shard in at HBM bandwidth (read and write).
    s.update_s = gather_s + 2 * s.weight_bytes / static_cast<double>(setup.engine.gpus) / (cluster.gpu.hbm_tb_per_s * 1e12);
  } else if (cluster.gpus <= cluster.nvlink_domain()) {
    s.update_path = "NVLink (NCCL broadcast)";
    s.update_s = gather_s + stage_bytes / nvlink_bytes_per_s(cluster);
  } else {
    s.update_path = fmt::format("network (NCCL broadcast, {})", cluster.instance.fabric);
    const double nic = cluster.network_bytes_per_s() / static_cast<double>(cluster.gpus_per_node());
    s.update_s = gather_s + stage_bytes / nic;
  }

  // Colocated: the trainer's tensors go to the host and come back around each rollout.
  if (colocated) {
    const double state = (part(worst.parts, plan::to_string(plan::MemoryPart::weights)) + part(worst.parts, plan::to_string(plan::MemoryPart::gradients)) +
                          part(worst.parts, plan::to_string(plan::MemoryPart::optimizer_states))) * kGiB;
    s.offload_s = 2 * state / link;
  }
  s.trainer_s = s.logprob_s + s.ref_switch_s + s.train_s + s.offload_s;
  if (setup.mode == Mode::async) {
    s.step_s = std::max(s.rollout_s, s.trainer_s) + s.update_s;
  } else {
    s.step_s = s.rollout_s + s.trainer_s + s.update_s;
  }
  s.rollout_idle = 1.0 - s.rollout_s / s.step_s;
  s.trainer_idle = 1.0 - s.trainer_s / s.step_s;

  const double samples = static_cast<double>(work.samples());
  const double tokens = samples * static_cast<double>(work.sample_tokens());
  s.samples_per_s = samples / s.step_s;
  s.trained_tokens_per_s_per_gpu = tokens / s.step_s / static_cast<double>(cluster.gpus);
  const double usd_per_s = cluster.instance.usd_per_gpu_hour() * static_cast<double>(cluster.gpus) / 3600.0;
  s.usd_per_million_tokens = usd_per_s * s.step_s / tokens * 1e6;

  // Memory of each phase.
  if (colocated) {
    s.memory = colocated_memory(s.train, trainer, setup.engine, s.rollout.memory, cluster, work.ref_logprobs);
  } else {
    PhaseMemory r;
    r.phase = "rollout";
    r.pool = "rollout GPUs";
    // The engine's static pool (weights and KV cache) and its CUDA context; its activations and
    // CUDA graphs take what is left (colocated_memory).
    r.gpu_parts = {{"engine weights", s.rollout.memory.weights_bytes / kGiB},
                   {"KV cache", std::max(0.0, setup.engine.mem_fraction * s.train.capacity_gib -
                                                  s.rollout.memory.weights_bytes / kGiB)},
                   {"CUDA context", hw::memory_facts().cuda_context_mib * kMiB / kGiB}};
    for (const Part& p : r.gpu_parts) r.gpu_gib += p.value;
    r.gpu_capacity_gib = s.train.capacity_gib;
    r.host_capacity_gib = s.train.host_capacity_gib;
    if (r.gpu_gib > r.gpu_capacity_gib) {
      r.fits = false;
      r.binding = fmt::format("HBM {:.1f} > {:.1f} GiB per GPU", r.gpu_gib, r.gpu_capacity_gib);
    }
    PhaseMemory t;
    t.phase = "training";
    t.pool = "trainer GPUs";
    t.gpu_parts = worst.parts;
    t.gpu_gib = s.train.memory_gib;
    t.gpu_capacity_gib = s.train.capacity_gib;
    t.host_parts = {{"offloaded optimizer states", s.train.host_memory_gib}};
    const double per_node = static_cast<double>(std::min(setup.trainer_gpus, cluster.gpus_per_node()));
    if (work.ref_logprobs) {
      t.host_parts.push_back({"policy and reference weights", 2 * weights_per_gpu / kGiB * per_node});
    }
    for (const Part& p : t.host_parts) t.host_gib += p.value;
    t.host_capacity_gib = s.train.host_capacity_gib;
    if (t.gpu_gib > t.gpu_capacity_gib) {
      t.fits = false;
      t.binding = fmt::format("HBM {:.1f} > {:.1f} GiB per GPU", t.gpu_gib, t.gpu_capacity_gib);
    } else if (t.host_gib > t.host_capacity_gib) {
      t.fits = false;
      t.binding = fmt::format("host memory {:.0f} > {:.0f} GiB per node", t.host_gib, t.host_capacity_gib);
    }
    s.memory = {r, t};
  }
  for (const PhaseMemory& m : s.memory) {
    if (!m.fits && s.fits) {
      s.fits = false;
      s.binding = fmt::format("{} phase: {}", m.phase, m.binding);
    }
  }
  return s;
}

}  // namespace ladle::rl
