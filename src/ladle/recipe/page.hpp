#pragma once
// The page of a recipe, as the published pages show it: a title, labelled facts, the run script,
// the notes and the YAML. Built once as a value; the CLI and the site render it.

#include <optional>
#include <string>
#include <vector>

#include "ladle/recipe/recipe.hpp"

namespace ladle::recipe {

struct PageFact {
  std::string key;                ///< stable id, e.g. "tokens-per-s-per-gpu"
  std::string label;              ///< "Tokens/s per GPU"
  std::string value;              ///< "6,178.46"
  std::optional<std::string> url; ///< a link for the value (the author's), when it has one
  std::optional<std::string> result;  ///< the outcome a check's value leads with ("pass", "fail")
  std::optional<std::string> note;    ///< a remark shown below the value
  bool operator==(const PageFact&) const = default;
};

struct RecipePage {
  std::string title;  ///< "Training GLM-4.7-Flash on H200"
  std::vector<PageFact> facts;
  std::string run;
  std::string notes;
  std::string yaml;
};

/// "Training <model> on <GPU type>".
std::string page_title(const Recipe& recipe);

/// Figures as the published pages print them, shared by the CLI page and the site.
std::string format_tokens_per_s(double tokens_per_s_per_gpu);  ///< "6,178.46"
std::string format_usd(double usd);                             ///< "$0.36"
std::string format_mfu(double mfu_fraction);                    ///< "13.4%"

/// The facts of the page, in the order the published pages give them. A recipe without a result
/// says "not measured" (with its prediction when it has one); facts without data are left out.
/// The CLI renders them as text, Markdown or JSON; the site as HTML.
RecipePage build_page(const Recipe& recipe);

/// A fact's value as one line of text: "pass: " before a check's value, the note after it.
std::string fact_text(const PageFact& fact);

/// The page as plain text in the published layout (label, blank line, value, blank line, ...).
std::string render_page_text(const RecipePage& page);

/// The page as Markdown.
std::string render_page_markdown(const RecipePage& page);

/// The page as JSON (title, facts, run, notes, yaml), two-space indented.
std::string render_page_json(const RecipePage& page);

}  // namespace ladle::recipe
