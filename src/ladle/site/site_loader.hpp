#pragma once
// From a loaded catalog to what the site is built from: each recipe's file text, and the series of
// the logs its convergence check points to (correctness.convergence.reference_log and
// candidate_log; the candidate arm is the measured run, so its log also gives the step times).

#include <functional>
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

/// Reads the trials of a tuning database (`ladle tune`'s DIR/tune.db) at the path given; the CLI
/// passes one built on tune::TuneDb (the site module does not depend on tune).
using TrialReader = std::function<std::vector<SiteTrial>(const std::string& db_path)>;

/// The file beside a recipe that marks it as written by `ladle tune`.
inline constexpr const char* kTuneDbName = "tune.db";

/// One SiteRecipe per loaded recipe, in order. A log path is read relative to the recipe's folder
/// (from the embedded files for the embedded catalog); an http(s) URL is not fetched (the page
/// links it). A measured recipe without a `predicted` block gets the planner's prediction of its
/// layout under the embedded calibration (none when the planner cannot price it). A recipe whose
/// folder holds tune.db gets that run's trials through `read_trials` (when given). Throws
/// Error(input) at the field's location when a local log cannot be read, the log reader's
/// Error(input) when it is not a training log, and what `read_trials` throws.
std::vector<SiteRecipe> load_site_recipes(const std::vector<recipe::LoadedRecipe>& loaded,
                                          const CatalogSource& source, const TrialReader& read_trials = {});

}  // namespace ladle::site
