#pragma once
// The recipe catalog: recipes/<model>/<gpu>/<file>.yaml, embedded in the binary or read from a folder.

#include <string>
#include <vector>

#include "ladle/recipe/recipe_io.hpp"

namespace ladle::recipe {

/// Every recipe of the embedded catalog, sorted by path ("recipes/glm-4.7-flash/h200/...").
std::vector<LoadedRecipe> load_embedded_catalog();

/// `file_or_dir` itself when it is a file, else every *.yaml under it, recursively (not through
/// links to folders), sorted. Throws Error(io) when it is missing or naming a folder under it that
/// cannot be read, and Error(input) for a folder with no recipe.
std::vector<std::string> recipe_files(const std::string& file_or_dir);

/// Every *.yaml under `dir`, recursively, sorted by path. Throws Error(io) when `dir` is missing
/// and Error(input) when it holds no recipe.
std::vector<LoadedRecipe> load_catalog_dir(const std::string& dir);

/// A recipe by file path, or by catalog name: the file stem ("attune-tp4-pp4"), or
/// "<model>/<gpu>/<stem>". Throws Error(usage) with "did you mean" when nothing matches.
LoadedRecipe find_recipe(const std::string& name_or_path);

}  // namespace ladle::recipe
