#pragma once
// The consistency rules of a recipe, each with a stable id (R1, R2, ...) and a one-line message.
// They read the recipe, its launch script (args/) and the knob table (layout/), so they sit above
// all three.

#include <optional>
#include <string>
#include <vector>

#include "ladle/recipe/finding.hpp"
#include "ladle/recipe/recipe_io.hpp"

namespace ladle::check {

/// What `check` found in one recipe, and the facts it derived on the way.
struct CheckReport {
  std::string file;
  std::vector<recipe::Finding> findings;
  std::optional<int64_t> expert_data_parallel;  ///< tp*cp*dp / (ep*etp) when the fold is whole
  std::vector<std::string> skipped;             ///< rules not applied, with why ("R5: model unknown")
};

/// A rule's id and what it checks, for `ladle check --list-rules`.
struct RuleInfo {
  const char* id;
  const char* summary;
};

/// Every rule, in id order.
const std::vector<RuleInfo>& recipe_rules();

/// Applies every rule to a loaded recipe. Never throws for a rule violation; uses the embedded model
/// and hardware catalogs for the layer count, N, the GPU peak and the instance price.
CheckReport check_recipe(const recipe::LoadedRecipe& loaded);

}  // namespace ladle::check
