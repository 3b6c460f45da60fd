#pragma once
// The page of a recipe, as the published pages show it: a title, labelled facts, the run script,
// the notes and the YAML. Built once as a value; the CLI and the site render it.

#include <optional>
#include <string>
#include <vector>

#include "ladle/recipe/recipe.hpp"

namespace ladle::recipe {

struct PageFact {
  std::string label;              ///< "Tokens/s per GPU"
  std::string value;              ///< "6,178.46"
  std::optional<std::string> url; ///< a link for the value (the author's), when it has one
  bool operator==(const PageFact&) const = default;
};

struct RecipePage {
  std::string title;  ///< "Training GLM-4.7-Flash on H200"
  std::vector<PageFact> facts;
  std::string run;
  std::string notes;
  std::string yaml;
};

/// The facts of the page, in the order the published pages give them.
RecipePage build_page(const Recipe& recipe);

/// The page as plain text in the published layout (label, blank line, value, blank line, ...).
std::string render_page_text(const RecipePage& page);

/// The page as Markdown.
std::string render_page_markdown(const RecipePage& page);

/// The page as JSON (title, facts, run, notes, yaml), two-space indented.
std::string render_page_json(const RecipePage& page);

}  // namespace ladle::recipe
