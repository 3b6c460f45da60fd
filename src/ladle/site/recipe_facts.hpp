#pragma once
// The facts of a recipe page, in the order and wording of the published seed pages (title, author,
// GPUs, layout, tokens/s per GPU, $ per 1M tokens, MFU with N, step-time CV, convergence check,
// component tests, measured, GPU-hours, rows), as HTML fragments with every value escaped.

#include <string>
#include <vector>

#include "ladle/recipe/page.hpp"
#include "ladle/recipe/recipe.hpp"

namespace ladle::site {

/// One labelled fact; `html` is already escaped and may hold a link or a <br>.
struct Fact {
  std::string key;    ///< stable id, e.g. "tokens-per-s-per-gpu" (used by tests and the page)
  std::string label;  ///< e.g. "Tokens/s per GPU"
  std::string html;
  bool operator==(const Fact&) const = default;
};

/// "Training <model> on <GPU type>".
inline std::string recipe_title(const Recipe& recipe) { return recipe::page_title(recipe); }

/// "8 × H200" (count and GPU type).
std::string gpu_count_label(const Recipe& recipe);

/// The facts of the recipe page. A recipe without a result says "not measured" (with the
/// prediction when it has one) instead of the measured figures; facts without data are left out.
std::vector<Fact> recipe_facts(const Recipe& recipe);

/// Number formats shared by the index, the pages and the charts: the recipe page's, and a percent
/// printed with the digits it has ("0.95%").
using recipe::format_mfu;
using recipe::format_tokens_per_s;
using recipe::format_usd;
std::string format_percent(double percent);

}  // namespace ladle::site
