// The RL step (rl_step.hpp): how the phases add up in each mode, the log-probability passes, the
// packing of the rollout into training rows, and the memory of each colocated phase. The rollout
// model is a stand-in here (a fixed time and memory), so that these tests check the step's own
// arithmetic whatever the rollout model predicts.
#include <gtest/gtest.h>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/rl/rl_step.hpp"
#include "ladle/util/error.hpp"

namespace ladle::rl {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// A rollout that takes `seconds` and holds `weights_gib` of weights per GPU, whatever the layout.
RolloutModel fixed_rollout(double seconds, double weights_gib) {
  return [=](const ModelSpec&, const GpuSpec& gpu, const EngineLayout& engine, int,
             const RolloutWorkload&) {
    RolloutEstimate e;
    e.seconds = e.seconds_lo = e.seconds_hi = seconds;
    e.memory.weights_bytes = weights_gib * kGiB;
    // SGLang's static pool: the KV cache takes what the weights leave of the memory fraction.
    e.memory.kv_bytes = engine.mem_fraction * plan::hbm_capacity_gib(gpu) * kGiB - e.memory.weights_bytes;
    return e;
  };
}

RlWork work(int64_t steps, bool ref) {
  RlWork w;
  w.rollout = {.prompts = 32, .samples_per_prompt = 8, .prompt_tokens = 1024, .response_mean = 4096,
               .response_max = 8192};
  w.steps_per_rollout = steps;
  w.ref_logprobs = ref;
  return w;
}

struct Fixture {
  ModelSpec model = model::load_model("glm-4.7-flash");
  plan::Calibration calibration = plan::default_calibration();
  Layout trainer(int64_t gpus, const RlWork& w) {
    const plan::Cluster c = plan::make_cluster("h200", gpus);
    const layout::LayoutContext context =
        plan::checking_context(model, c, training_workload(w, gpus));
    return layout::resolve_layout(layout::parse_layout_spec("tp=1,pp=1,ep=8,recompute=full"), context);
  }
};

TEST(RlStep, PacksTheRolloutIntoRowsOfTheLongestSample) {
  // 256 samples of 1024 + 4096 tokens in rows of 1024 + 8192: 142.2 rows, 144 on 8 data-parallel ranks.
  const plan::Workload w = training_workload(work(1, false), 8, 8);
  EXPECT_EQ(w.row_tokens, 9216);
  EXPECT_EQ(w.global_batch, 144);
  // Two optimizer steps per rollout: half the rows each (71.1 -> 72).
  EXPECT_EQ(training_workload(work(2, false), 8, 8).global_batch, 72);
  EXPECT_NE(w.rl.find("256 samples per rollout"), std::string::npos) << w.rl;
}

TEST(RlStep, ForwardOnlyPassIsTheForwardShareOfEachPart) {
  const std::vector<Part> parts = {{plan::to_string(plan::TimePart::dense_gemm), 3.0},
                                   {plan::to_string(plan::TimePart::attention), 3.5},
                                   {plan::to_string(plan::TimePart::ep_comm), 2.0},
                                   {plan::to_string(plan::TimePart::dp_comm), 5.0},
                                   {plan::to_string(plan::TimePart::optimizer_gpu), 5.0},
                                   {plan::to_string(plan::TimePart::step_host), 5.0},
                                   {plan::to_string(plan::TimePart::recompute), 5.0}};
  EXPECT_DOUBLE_EQ(forward_only_seconds(parts, 2.5), 1.0 + 1.0 + 1.0);
  // Where the backward is a larger multiple of the forward, attention's forward share is smaller.
  EXPECT_DOUBLE_EQ(forward_only_seconds(parts, 4.0), 1.0 + 3.5 / 5.0 + 1.0);
}

// The forward share of attention is the one the step was priced with: Blackwell Ultra runs the
// softmax's exponentials faster, which shortens the forward more than the backward
// (time_rates.cpp), so its forward-only pass keeps less of the attention time than Hopper's.
TEST(RlStep, ForwardOnlyPassTakesTheGpusAttentionRatio) {
  Fixture f;
  const RlWork w = work(2, false);
  RlSetup setup{.mode = Mode::sync, .rollout_gpus = 8, .trainer_gpus = 8, .engine = {.gpus = 8, .tp = 8}};
  setup.trainer = f.trainer(8, w);
  const RlStep hopper = predict_rl_step(f.model, setup, plan::make_cluster("h200", 16), w, f.calibration,
                                        fixed_rollout(50, 10));
  const RlStep ultra = predict_rl_step(f.model, setup, plan::make_cluster("b300", 16), w, f.calibration,
                                       fixed_rollout(50, 10));
  EXPECT_DOUBLE_EQ(hopper.train.attention_backward, 2.5);
  EXPECT_GT(ultra.train.attention_backward, 2.5);
  EXPECT_NEAR(ultra.logprob_s, 2 * forward_only_seconds(ultra.train.step_parts, ultra.train.attention_backward), 1e-9);
  EXPECT_LT(ultra.logprob_s, 2 * forward_only_seconds(ultra.train.step_parts, 2.5));
}

TEST(RlStep, AsynchronousStepIsTheSlowerPoolNotTheSum) {
  Fixture f;
  const RlWork w = work(1, false);
  const plan::Cluster cluster = plan::make_cluster("h200", 16);
  RlSetup setup{.mode = Mode::sync, .rollout_gpus = 8, .trainer_gpus = 8, .engine = {.gpus = 8, .tp = 8}};
  setup.trainer = f.trainer(8, w);
  const RlStep sync = predict_rl_step(f.model, setup, cluster, w, f.calibration, fixed_rollout(100, 10));
  setup.mode = Mode::async;
  const RlStep async = predict_rl_step(f.model, setup, cluster, w, f.calibration, fixed_rollout(100, 10));
  EXPECT_NEAR(sync.step_s, sync.rollout_s + sync.trainer_s + sync.update_s, 1e-9);
  EXPECT_NEAR(async.step_s, std::max(async.rollout_s, async.trainer_s) + async.update_s, 1e-9);
  EXPECT_LT(async.step_s, sync.step_s);
  EXPECT_GT(async.samples_per_s, sync.samples_per_s);
  // One step per rollout, no KL term: slime reuses the training pass's log-probabilities.
  EXPECT_EQ(sync.logprob_s, 0);
  // Idle: in sync each pool waits for the other.
  EXPECT_NEAR(sync.rollout_idle, 1 - 100 / sync.step_s, 1e-9);
  EXPECT_GT(sync.trainer_idle, 0.0);
  // 16 GPUs in two 8-GPU nodes: the update crosses the network.
  EXPECT_NE(sync.update_path.find("network"), std::string::npos) << sync.update_path;
  // The trained tokens are the rollout's, whatever the packing.
  EXPECT_NEAR(sync.trained_tokens_per_s_per_gpu * 16 * sync.step_s, 256.0 * 5120, 1e-3);
  EXPECT_NEAR(sync.usd_per_million_tokens,
              cluster.instance.usd_per_gpu_hour() * 16 / 3600 * sync.step_s / (256.0 * 5120) * 1e6, 1e-9);
}

TEST(RlStep, LogProbabilityPassesFollowTheAlgorithm) {
  Fixture f;
  const plan::Cluster cluster = plan::make_cluster("h200", 16);
  RlSetup setup{.mode = Mode::sync, .rollout_gpus = 8, .trainer_gpus = 8, .engine = {.gpus = 8, .tp = 8}};
  setup.trainer = f.trainer(8, work(2, false));
  const RlStep old_only = predict_rl_step(f.model, setup, cluster, work(2, false), f.calibration, fixed_rollout(50, 10));
  const RlStep with_ref = predict_rl_step(f.model, setup, cluster, work(2, true), f.calibration, fixed_rollout(50, 10));
  const double one_pass = 2 * forward_only_seconds(old_only.train.step_parts, old_only.train.attention_backward);
  EXPECT_GT(one_pass, 0);
  EXPECT_NEAR(old_only.logprob_s, one_pass, 1e-9);
  EXPECT_NEAR(with_ref.logprob_s, 2 * one_pass, 1e-9);
  EXPECT_GT(with_ref.ref_switch_s, 0);
  EXPECT_EQ(old_only.ref_switch_s, 0);
  // A pass is cheaper than a training step of the same rows.
  EXPECT_LT(one_pass, old_only.train_s);
}

TEST(RlStep, ColocatedPhasesShareTheGpusAndBothMustFit) {
  Fixture f;
  const RlWork w = work(1, false);
  const plan::Cluster cluster = plan::make_cluster("h200", 8);
  RlSetup setup{.mode = Mode::colocated, .rollout_gpus = 8, .trainer_gpus = 8,
                .engine = {.gpus = 8, .tp = 8, .mem_fraction = 0.5}};
  setup.trainer = f.trainer(8, w);
  const RlStep s = predict_rl_step(f.model, setup, cluster, w, f.calibration, fixed_rollout(100, 10));
  ASSERT_EQ(s.memory.size(), 2u);
  EXPECT_EQ(s.memory[0].phase, "rollout");
  EXPECT_EQ(s.memory[1].phase, "training");
  // The rollout phase: half the GPU for the engine's pool, two CUDA contexts and a 512 MiB bucket.
  EXPECT_GT(s.memory[0].gpu_gib, 0.5 * s.memory[0].gpu_capacity_gib + 0.5);
  EXPECT_LT(s.memory[0].gpu_gib, 0.5 * s.memory[0].gpu_capacity_gib + 2.5);
  // The paused trainer's tensors wait on the host: its weights, gradients and optimizer states.
  EXPECT_GT(s.memory[0].host_gib, 8 * 10.0);
  EXPECT_GT(s.offload_s, 0);
  EXPECT_EQ(s.update_path, "CUDA IPC on each GPU");
  EXPECT_NEAR(s.step_s, s.rollout_s + s.trainer_s + s.update_s, 1e-9);
  // Colocated, each phase idles the other: the idle fractions add up to one plus the update's share.
  EXPECT_NEAR(s.rollout_idle + s.trainer_idle, 1 + s.update_s / s.step_s, 1e-9);
  EXPECT_TRUE(s.memory[0].fits);
  // An engine that takes 99% of the GPU leaves no room for the contexts: the rollout phase binds.
  setup.engine.mem_fraction = 0.99;
  const RlStep full = predict_rl_step(f.model, setup, cluster, w, f.calibration, fixed_rollout(100, 10));
  EXPECT_FALSE(full.fits);
  EXPECT_EQ(full.binding.rfind("rollout phase: HBM", 0), 0u) << full.binding;
}

TEST(RlStep, GpuCountsMustAddUp) {
  Fixture f;
  const RlWork w = work(1, false);
  RlSetup setup{.mode = Mode::sync, .rollout_gpus = 8, .trainer_gpus = 8, .engine = {.gpus = 8, .tp = 8}};
  setup.trainer = f.trainer(8, w);
  EXPECT_THROW(predict_rl_step(f.model, setup, plan::make_cluster("h200", 24), w, f.calibration, fixed_rollout(1, 1)),
               Error);
  setup.engine.gpus = 3;
  EXPECT_THROW(predict_rl_step(f.model, setup, plan::make_cluster("h200", 16), w, f.calibration, fixed_rollout(1, 1)),
               Error);
  EXPECT_THROW(parse_mode("colo"), Error);
  EXPECT_EQ(parse_mode("async"), Mode::async);
}

}  // namespace
}  // namespace ladle::rl
