#pragma once
// From a loaded catalog to what the site is built from: each recipe's file text, and the series of
// the logs its convergence check points to (correctness.convergence.reference_log and
// candidate_log; the candidate arm is the measured run, so its log also gives the step times).

#include <string>
#include <vector>

#include "ladle/recipe/recipe_io.hpp"
#include "ladle/site/site_recipe.hpp"

namespace ladle::site {

/// Where the catalog came from: the binary's embedded files, or a folder on disk.
struct CatalogSource {
  bool embedded = true;
  std::string dir;  ///< the folder, when not embedded
};

/// One SiteRecipe per loaded recipe, in order. A log path is read relative to the recipe's folder
/// (from the embedded files for the embedded catalog); an http(s) URL is not fetched (the page
/// links it). Throws Error(input) at the field's location when a local log cannot be read, and the
/// log reader's Error(input) when it is not a training log.
std::vector<SiteRecipe> load_site_recipes(const std::vector<recipe::LoadedRecipe>& loaded,
                                          const CatalogSource& source);

}  // namespace ladle::site
