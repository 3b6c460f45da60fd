#pragma once
// rl_rules.hpp: the rules of an RL recipe's workload.rl and result.rl (R21-R24), applied by
// check_recipe (rules.hpp) beside the others.

#include <string>
#include <vector>

#include "ladle/recipe/finding.hpp"
#include "ladle/recipe/recipe_io.hpp"

namespace ladle::check {

/// The RL rules' ids and summaries, in id order, for the rule table.
struct RlRuleInfo {
  const char* id;
  const char* summary;
};
const std::vector<RlRuleInfo>& rl_rules();

/// Appends a finding for each RL rule `loaded` breaks; a recipe without workload.rl or result.rl
/// breaks none (R24 asks for workload.rl when result.rl is given).
void check_rl(const recipe::LoadedRecipe& loaded, std::vector<recipe::Finding>& findings);

}  // namespace ladle::check
