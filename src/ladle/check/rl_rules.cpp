#include "ladle/check/rl_rules.hpp"

#include <cmath>

#include <fmt/format.h>

#include "ladle/recipe/yaml_style.hpp"

namespace ladle::check {

namespace {

// result.rl's phase fractions are written to 4 decimals (verify/rl_score.hpp): five of them, each
// off by at most half a unit of the last, sum to 1 within 2.5e-4.
constexpr double kSplitTolerance = 5 * 0.5e-4 + 1e-9;
// samples_per_s and step_time_s are written to 2 and 3 decimals and step_time_s is a mean of step
// times while samples_per_s is over their sum: equal for equal rollouts, so 1% is slack for
// rounding, never for another workload.
constexpr double kRateTolerance = 0.01;

class RlChecker {
 public:
  RlChecker(const recipe::LoadedRecipe& loaded, std::vector<recipe::Finding>& findings)
      : loaded_(loaded), r_(loaded.recipe), findings_(findings) {}

  void run() {
    if (r_.result && r_.result->rl && !r_.workload.rl) {
      add("R24", "result.rl", "result.rl is given but workload.rl is not: an RL result needs its RL workload");
    }
    if (!r_.workload.rl) return;
    check_gpus();
    check_workload();
    if (r_.result && r_.result->rl) check_result();
  }

 private:
  template <typename... Args>
  void add(const char* rule, const std::string& field, fmt::format_string<Args...> format, Args&&... args) {
    findings_.push_back(
        {rule, loaded_.path, loaded_.where.at(field).line, field, fmt::format(format, std::forward<Args>(args)...)});
  }

  void check_gpus() {
    const RlWorkload& rl = *r_.workload.rl;
    const auto& l = r_.layout;
    const int64_t trainer = l.tp * l.pp * l.cp * l.dp;
    if (rl.mode == "colocated_sync") {
      if (rl.rollout_gpus != r_.gpu.count) {
        add("R21", "workload.rl.rollout_gpus", "colocated: rollout_gpus is {} but the engines share all {} GPUs",
            rl.rollout_gpus, r_.gpu.count);
      }
      return;  // R1 holds the trainer to gpu.count
    }
    if (rl.rollout_gpus + trainer != r_.gpu.count) {
      add("R21", "workload.rl.rollout_gpus",
          "{}: rollout_gpus {} + trainer tp x pp x cp x dp = {} x {} x {} x {} = {} is {}, not gpu.count {}", rl.mode,
          rl.rollout_gpus, l.tp, l.pp, l.cp, l.dp, trainer, rl.rollout_gpus + trainer, r_.gpu.count);
    }
  }

  void check_workload() {
    const RlWorkload& rl = *r_.workload.rl;
    const int64_t samples = rl.prompts_per_rollout * rl.samples_per_prompt;
    if (r_.workload.global_batch * rl.steps_per_rollout != samples) {
      add("R22", "workload.global_batch",
          "global_batch {} x steps_per_rollout {} is not prompts_per_rollout {} x samples_per_prompt {} = {}",
          r_.workload.global_batch, rl.steps_per_rollout, rl.prompts_per_rollout, rl.samples_per_prompt, samples);
    }
    if (r_.workload.row_tokens != rl.prompt_max_tokens + rl.response_max_tokens) {
      add("R22", "workload.row_tokens", "row_tokens {} is not prompt_max_tokens {} + response_max_tokens {}",
          r_.workload.row_tokens, rl.prompt_max_tokens, rl.response_max_tokens);
    }
    if (rl.rollout_gpus % rl.gpus_per_engine != 0) {
      add("R22", "workload.rl.gpus_per_engine", "gpus_per_engine {} does not divide rollout_gpus {}",
          rl.gpus_per_engine, rl.rollout_gpus);
    }
    if (rl.prompt_mean_tokens && *rl.prompt_mean_tokens > static_cast<double>(rl.prompt_max_tokens)) {
      add("R22", "workload.rl.prompt_mean_tokens", "prompt_mean_tokens {} exceeds prompt_max_tokens {}",
          recipe::detail::python_float_repr(*rl.prompt_mean_tokens), rl.prompt_max_tokens);
    }
    if (rl.response_mean_tokens && *rl.response_mean_tokens > static_cast<double>(rl.response_max_tokens)) {
      add("R22", "workload.rl.response_mean_tokens", "response_mean_tokens {} exceeds response_max_tokens {}",
          recipe::detail::python_float_repr(*rl.response_mean_tokens), rl.response_max_tokens);
    }
  }

  void check_result() {
    const RlWorkload& rl = *r_.workload.rl;
    const RecipeResult& res = *r_.result;
    const RlResult& m = *res.rl;
    const RlPhaseSplit& p = m.phase_split;
    const double parts[] = {p.rollout, p.log_prob, p.train, p.weight_update, p.other};
    double sum = 0;
    for (const double part : parts) {
      if (!(part >= 0 && part <= 1)) {
        add("R23", "result.rl.phase_split", "a phase fraction is {}, outside 0..1",
            recipe::detail::python_float_repr(part));
        return;
      }
      sum += part;
    }
    if (std::fabs(sum - 1.0) > kSplitTolerance) {
      add("R23", "result.rl.phase_split", "the phase fractions sum to {:.4f}, not 1", sum);
    }
    const auto samples = static_cast<double>(rl.prompts_per_rollout * rl.samples_per_prompt);
    if (m.step_time_s > 0 && m.samples_per_s > 0) {
      const double implied = m.samples_per_s * m.step_time_s;
      if (std::fabs(implied - samples) > kRateTolerance * samples) {
        add("R23", "result.rl.samples_per_s",
            "samples_per_s {} x step_time_s {} = {:.1f} samples per rollout, but the RL workload has {} x {} = {}",
            recipe::detail::python_float_repr(m.samples_per_s), recipe::detail::python_float_repr(m.step_time_s),
            implied, rl.prompts_per_rollout, rl.samples_per_prompt, static_cast<int64_t>(samples));
      }
    }
    if (std::fabs(m.trained_tokens_per_s_per_gpu - res.tokens_per_s_per_gpu) > 0.005 + 1e-9) {
      add("R23", "result.tokens_per_s_per_gpu",
          "tokens_per_s_per_gpu {} of an RL recipe is not result.rl.trained_tokens_per_s_per_gpu {}",
          recipe::detail::python_float_repr(res.tokens_per_s_per_gpu),
          recipe::detail::python_float_repr(m.trained_tokens_per_s_per_gpu));
    }
  }

  const recipe::LoadedRecipe& loaded_;
  const Recipe& r_;
  std::vector<recipe::Finding>& findings_;
};

}  // namespace

const std::vector<RlRuleInfo>& rl_rules() {
  static const std::vector<RlRuleInfo> kRules = {
      {"R21", "RL GPUs: colocated, rollout_gpus = gpu.count; disaggregated, rollout_gpus + tp x pp x cp x dp = gpu.count"},
      {"R22", "RL workload: global_batch x steps_per_rollout = prompts x samples per prompt; row_tokens = prompt_max + "
              "response_max; gpus_per_engine divides rollout_gpus; means within their limits"},
      {"R23", "result.rl: the phase split sums to 1; samples_per_s x step_time_s = samples per rollout; "
              "tokens_per_s_per_gpu = trained_tokens_per_s_per_gpu"},
      {"R24", "result.rl needs workload.rl"},
  };
  return kRules;
}

void check_rl(const recipe::LoadedRecipe& loaded, std::vector<recipe::Finding>& findings) {
  RlChecker(loaded, findings).run();
}

}  // namespace ladle::check
