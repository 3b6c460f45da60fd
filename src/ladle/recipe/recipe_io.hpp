#pragma once
// Reading and writing recipes as YAML. The writer is canonical: keys in schema order, plain scalars
// where YAML 1.1 allows them, single quotes otherwise (as PyYAML chooses), long scalars folded at
// word boundaries to end by column 120, and `run:` / `notes:` as literal blocks. Writing a file it
// wrote gives the same bytes.

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "ladle/recipe/recipe.hpp"
#include "ladle/util/error.hpp"

namespace ladle::recipe {

/// The line and column of every field of a loaded recipe, by field path ("layout.tp",
/// "result.window[1]", "env.FI_PROVIDER").
struct FieldLocations {
  std::string file;
  std::map<std::string, SourceLocation, std::less<>> by_path;

  /// The location of `field_path`, or of its nearest parent present in the file, or the file alone.
  SourceLocation at(std::string_view field_path) const;
};

/// A recipe with the file it came from ("" when not from a file) and where each field stands.
struct LoadedRecipe {
  Recipe recipe;
  std::string path;
  FieldLocations where;
};

/// Parses recipe YAML. Throws ladle::Error(input) at file:line:col naming the field for malformed
/// YAML, a tab, a missing required key, a wrong type, an unknown key (with "did you mean"), a
/// disallowed value, a duplicate key or an empty document.
LoadedRecipe read_recipe(std::string_view text, const std::string& path);

/// read_recipe on a file's contents; throws Error(io) when the file cannot be read.
LoadedRecipe read_recipe_file(const std::string& path);

/// The recipe as YAML text (see the file comment for the exact style).
std::string write_recipe(const Recipe& recipe);

/// write_recipe into `path`, atomically.
void write_recipe_file(const std::string& path, const Recipe& recipe);

/// Changes the recipe in `path` without losing a concurrent update: under an exclusive lock on
/// the file, re-reads it, applies `change` and writes it back (write_recipe_file) before the lock
/// is released, so `score --write` and `converge --write` of one recipe at once both land.
void update_recipe_file(const std::string& path, const std::function<void(Recipe&)>& change);

/// Writes `text` into `path` atomically, under the same lock, if the file still holds `expected`
/// (what the caller read); otherwise throws Error(io) "changed by another process".
void replace_recipe_text(const std::string& path, std::string_view expected, std::string_view text);

}  // namespace ladle::recipe
