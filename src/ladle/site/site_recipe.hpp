#pragma once
// What the site is built from: a recipe, where it came from, its file text, and the series read
// from the logs it points to (empty when it points to none).

#include <string>
#include <vector>

#include "ladle/recipe/recipe.hpp"
#include "ladle/site/svg_chart.hpp"

namespace ladle::site {

struct SiteRecipe {
  Recipe recipe;
  /// The catalog path, e.g. "recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml"; names the pages.
  /// Empty for a recipe built in code: the names then come from model, GPU and layout label.
  std::string source_path;
  std::string yaml;  ///< the recipe file's text, offered as a download
  /// Loss by step of the convergence check's two arms (correctness.convergence.reference_log and
  /// candidate_log); both non-empty draws the loss chart.
  std::vector<LinePoint> reference_loss;
  std::vector<LinePoint> candidate_loss;
  /// Step time in seconds by step of the measured run (the candidate arm's log).
  std::vector<LinePoint> step_time_s;
};

}  // namespace ladle::site
