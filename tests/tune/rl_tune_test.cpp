// The RL tune loop's belief and trial script (tune/rl_tune.hpp).
#include "ladle/tune/rl_tune.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibration.hpp"

namespace ladle::tune {
namespace {

RlTrial measured(rl::Mode mode, int engine_gpus, double predicted, std::optional<double> measured) {
  RlTrial t;
  t.step.setup.mode = mode;
  t.step.setup.engine.gpus = engine_gpus;
  t.step.samples_per_s = predicted;
  t.samples_per_s = measured;
  return t;
}

TEST(RlTuneBelief, RatioIsTheGroupsGeometricMeanAndOneForAnUnmeasuredGroup) {
  std::vector<RlTrial> trials;
  EXPECT_DOUBLE_EQ(rl_belief_ratio(trials, rl::Mode::async, 4), 1.0);
  trials.push_back(measured(rl::Mode::async, 4, 2.0, 1.0));              // 0.5
  trials.push_back(measured(rl::Mode::async, 4, 1.0, 2.0));              // 2
  trials.push_back(measured(rl::Mode::async, 2, 1.0, 0.8));              // another engine size
  trials.push_back(measured(rl::Mode::sync, 4, 1.0, 0.1));               // another mode
  trials.push_back(measured(rl::Mode::async, 4, 1.0, std::nullopt));     // failed: no measurement
  EXPECT_NEAR(rl_belief_ratio(trials, rl::Mode::async, 4), 1.0, 1e-12);  // sqrt(0.5 x 2)
  EXPECT_NEAR(rl_belief_ratio(trials, rl::Mode::async, 2), 0.8, 1e-12);
  EXPECT_NEAR(rl_belief_ratio(trials, rl::Mode::sync, 4), 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(rl_belief_ratio(trials, rl::Mode::colocated, 8), 1.0);
}

TEST(RlTuneScript, RunsThePlannedEntryPointForTheTrialsRollouts) {
  RlTuneSettings s;
  s.plan.model = model::load_model("glm-4.7-flash");
  s.plan.hardware.gpu = "h200";
  s.plan.gpus = 8;
  s.plan.work.rollout = {.prompts = 32,
                         .samples_per_prompt = 8,
                         .prompt_tokens = 1024,
                         .response_mean = 4096,
                         .response_max = 8192};
  s.plan.calibration = plan::default_calibration();
  s.plan.rollout_model = [](const ModelSpec& m, const GpuSpec& g, const rl::EngineLayout& e,
                            int engines, const rl::RolloutWorkload& w) {
    return rl::estimate_rollout(m, g, e, engines, w);
  };
  s.plan.modes = {rl::Mode::async};
  s.plan.top = 1;
  s.rollouts = 5;
  s.engine_program = "/opt/stand in";
  const rl::RlPlanReport plan = rl::plan_rl(s.plan);
  const std::string script = rl_trial_script(s, plan.top.front());
  EXPECT_NE(script.find("'/opt/stand in' train_async.py \"${MODEL_ARGS[@]}\""), std::string::npos)
      << script;
  EXPECT_NE(script.find("'--num-rollout' '5'"), std::string::npos) << script;
  EXPECT_EQ(script.find("'3000'"), std::string::npos)
      << script;  // the job's own --num-rollout is replaced
  EXPECT_NE(
      script.find(fmt::format("'--rollout-num-gpus' '{}'", plan.top.front().setup.rollout_gpus)),
      std::string::npos)
      << script;
  EXPECT_NE(script.find("'--prompt-data' \"$PROMPT_DATA\""), std::string::npos) << script;
}

}  // namespace
}  // namespace ladle::tune
