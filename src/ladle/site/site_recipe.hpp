#pragma once
// What the site is built from: a recipe, where it came from, its file text, and the series read
// from the logs it points to (empty when it points to none).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ladle/recipe/recipe.hpp"
#include "ladle/site/svg_chart.hpp"

namespace ladle::site {

/// One trial of the tuning run that wrote a recipe (`ladle tune`'s DIR/tune.db), as its page shows it.
struct SiteTrial {
  int64_t id = 0;
  int64_t round = 0;
  std::string kind;    ///< explore, confirm or reference
  std::string layout;  ///< its label, e.g. "TP1 PP4 CP2 EP1 DP1"
  std::string state;   ///< scored, oom, flaky, ...
  double predicted_tokens_per_s_per_gpu = 0;  ///< when proposed
  std::optional<double> measured_tokens_per_s_per_gpu;
  bool operator==(const SiteTrial&) const = default;
};

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
  /// The prediction the pages show: the recipe's own `predicted` block, or, for a measured recipe
  /// without one, what the planner predicts for its layout (then `prediction_recomputed`).
  std::optional<Predicted> prediction;
  bool prediction_recomputed = false;
  /// The trials of the tuning run that wrote the recipe, by id; empty for any other recipe.
  std::vector<SiteTrial> trials;
  /// For a recipe imported from a Megatron-Bridge verification card (`ladle site --cards`): where
  /// the card came from; the pages label the recipe "imported card". Empty for the catalog's own.
  std::string card_source;
};

}  // namespace ladle::site
