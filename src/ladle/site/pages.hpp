#pragma once
// The HTML pages of the site. Every recipe value passes through escape_html or render_link; the
// page skeleton, the tables and the charts are ladle's own markup.

#include <string>

#include "ladle/site/site.hpp"

namespace ladle::site {

/// index.html: every recipe in one table (model, GPUs, layout, tokens/s per GPU, $ per 1M, MFU,
/// step-time CV, status, measured), sortable and filterable with the script, complete without it.
std::string render_index(const SiteCatalog& catalog);

/// The page of recipe `index`: facts, comparison and log charts, predicted against measured when
/// the recipe has a prediction, correctness, run script with a copy button, the YAML download.
std::string render_recipe_page(const SiteCatalog& catalog, size_t index);

/// The page of `model`: its recipes in a table and as bar charts (tokens/s per GPU, $ per 1M).
std::string render_model_page(const SiteCatalog& catalog, const std::string& model);

}  // namespace ladle::site
