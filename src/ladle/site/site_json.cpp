// site_json.cpp: the JSON form of SiteCatalog.
#include "ladle/site/site_json.hpp"

namespace ladle::site {

nlohmann::ordered_json to_json(const SiteRecipe& recipe, const RecipePaths& paths) {
  const Recipe& r = recipe.recipe;
  nlohmann::ordered_json item;
  item["model"] = r.model;
  item["gpu"] = r.gpu.type;
  item["gpu_count"] = r.gpu.count;
  item["layout"] = r.layout.label;
  item["status"] = r.status;
  item["tokens_per_s_per_gpu"] = r.result ? nlohmann::ordered_json(r.result->tokens_per_s_per_gpu) : nullptr;
  item["page"] = paths.page;
  item["yaml"] = paths.yaml;
  item["model_page"] = paths.model_page;
  item["loss_chart"] = !recipe.reference_loss.empty() && !recipe.candidate_loss.empty();
  item["step_time_chart"] = !recipe.step_time_s.empty();
  item["predicted_tokens_per_s_per_gpu"] =
      recipe.prediction ? nlohmann::ordered_json(recipe.prediction->tokens_per_s_per_gpu) : nullptr;
  item["tune_trials"] = recipe.trials.size();
  return item;
}

nlohmann::ordered_json to_json(const SiteCatalog& catalog) {
  nlohmann::ordered_json j;
  j["recipes"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < catalog.recipes.size(); ++i) {
    j["recipes"].push_back(to_json(catalog.recipes[i], catalog.paths[i]));
  }
  j["models"] = nlohmann::ordered_json::array();
  for (const std::string& model : catalog.models) {
    j["models"].push_back({{"name", model}, {"page", catalog.model_page(model)}});
  }
  return j;
}

}  // namespace ladle::site
