#pragma once
// The static site of a recipe catalog: an index of every recipe, a page per recipe (with its YAML
// beside it), a page per model, and the assets. Built as a list of files in memory (deterministic:
// the same recipes give the same bytes), then written to a folder in one rename.

#include <string>
#include <vector>

#include "ladle/site/site_recipe.hpp"
#include "ladle/site/sweep.hpp"

namespace ladle::site {

/// Where the pages of one recipe live in the site, relative to its root.
struct RecipePaths {
  std::string page;        ///< e.g. "recipes/glm-4.7-flash-h200-attune-tp1-pp1-ep8.html"
  std::string yaml;        ///< the recipe file beside it, same stem, ".yaml"
  std::string model_page;  ///< e.g. "models/glm-4.7-flash.html"
  bool operator==(const RecipePaths&) const = default;
};

/// The recipes with their paths and their models, as the page renderers need them.
struct SiteCatalog {
  std::vector<SiteRecipe> recipes;  ///< in the order given (the catalog's path order)
  std::vector<RecipePaths> paths;   ///< one per recipe; unique page names
  std::vector<std::string> models;  ///< distinct model names, sorted
  std::vector<std::string> gpus;    ///< distinct GPU types, sorted
  std::vector<std::string> statuses;  ///< distinct statuses, sorted
  /// The planner's sweep over GPU counts of each (model, GPU type); empty: the pages show the
  /// recipes alone (sweep_models fills it).
  std::vector<ModelSweep> sweeps;

  /// The indexes of the recipes of `model`, in catalog order.
  std::vector<size_t> recipes_of(const std::string& model) const;
  /// The site path of the model's page.
  std::string model_page(const std::string& model) const;
};

/// Names the pages of every recipe: the catalog path without "recipes/" and ".yaml", its folders
/// joined by '-' and slugified; or model, GPU and layout label for a recipe without a path. A name
/// taken twice gets "-2", "-3".
SiteCatalog make_site_catalog(std::vector<SiteRecipe> recipes);

/// One file of the site.
struct SiteFile {
  std::string path;  ///< relative to the site root, '/'-separated
  std::string content;
  bool operator==(const SiteFile&) const = default;
};

/// Every file of the site, sorted by path: index.html, assets/site.css, assets/site.js,
/// models/<model>.html, recipes/<name>.html and recipes/<name>.yaml.
std::vector<SiteFile> build_site(const SiteCatalog& catalog);

/// Writes the files into `out_dir`: first into a new sibling folder, then swapped into place with
/// one rename (renameat2 RENAME_EXCHANGE when `out_dir` exists), so a reader sees the old site or
/// the new one, never a mix. An existing `out_dir` must be empty or a site ladle wrote (it holds
/// the marker file .ladle-site, which lists the files it wrote); anything else is refused with
/// Error(usage), as are files whose path would leave the folder. Files of an old site that its
/// marker does not list (a CNAME, a .git folder the user added) are kept in the new one; one where
/// the new site writes a file is refused with Error(usage). Throws Error(io) when the folder cannot
/// be written.
void write_site(const std::vector<SiteFile>& files, const std::string& out_dir);

/// The marker file write_site puts in every site it writes.
inline constexpr const char* kSiteMarker = ".ladle-site";

}  // namespace ladle::site
