// scenario.cpp: the checking context a scenario derives, and the scenario a recipe describes.
#include "ladle/plan/scenario.hpp"

#include "ladle/model/catalog.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/stack.hpp"
#include "ladle/util/error.hpp"

namespace ladle::plan {

layout::LayoutContext Scenario::context() const { return checking_context(model, cluster, workload); }

void Scenario::price_model() { costs = model_costs(model, workload.row_tokens, workload.image_tokens); }

Scenario scenario_from_recipe(const recipe::LoadedRecipe& loaded) {
  const Recipe& r = loaded.recipe;
  Scenario s;
  std::optional<ModelSpec> spec = model::find_model(r.model);
  if (!spec) throw_input(loaded.where.at("model"), "unknown model '{}'", r.model);
  s.model = *spec;
  try {
    s.cluster = make_cluster(r.gpu.type, r.gpu.count, r.gpu.instance);
  } catch (const Error& e) {
    throw_input(loaded.where.at("gpu"), "{}", e.message());
  }
  s.workload.row_tokens = r.workload.row_tokens;
  s.workload.global_batch = r.workload.global_batch;
  s.workload.precision = parse_precision(r.workload.precision.empty() ? "bf16" : r.workload.precision);
  // The recipe's Megatron-Core release, where its stack.megatron_lm names one in stacks.yaml.
  s.workload.stack_generation = find_stack(r.stack.megatron_lm);
  s.price_model();
  return s;
}

}  // namespace ladle::plan
