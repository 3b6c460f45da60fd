// site_json.hpp: the JSON form of the site catalog, as `ladle site --json` prints it (key order is
// the output order).
#pragma once

#include <nlohmann/json.hpp>

#include "ladle/site/site.hpp"
#include "ladle/site/site_recipe.hpp"

namespace ladle::site {

/// One recipe as the site lists it: model, GPU, layout, status, measured and predicted tokens/s per
/// GPU (null when absent), its pages, which charts it has and its tuning trials.
nlohmann::ordered_json to_json(const SiteRecipe& recipe, const RecipePaths& paths);

/// {recipes, models}: every recipe with its pages, and every model with its page.
nlohmann::ordered_json to_json(const SiteCatalog& catalog);

}  // namespace ladle::site
