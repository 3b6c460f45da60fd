#pragma once
// rl_section.hpp: what an RL recipe's page adds (its RL workload, and the measured phase split as a
// stacked bar and a table), and the mark the index gives RL recipes.

#include <string>

#include "ladle/recipe/recipe.hpp"

namespace ladle::site {

/// The "RL workload" section of a recipe page (an h2, the workload as a definition list and, when
/// the recipe has result.rl, its figures with the phase split as an SVG stacked bar and a table);
/// "" for a recipe without workload.rl. Every recipe value is escaped.
std::string render_rl_section(const Recipe& recipe);

/// The index's mark after an RL recipe's layout ("" for other recipes): the algorithm and mode.
std::string rl_index_mark(const Recipe& recipe);

}  // namespace ladle::site
