#include "ladle/recipe/catalog.hpp"

#include <algorithm>
#include <filesystem>

#include "ladle/util/embedded.hpp"
#include "ladle/util/text.hpp"

namespace ladle::recipe {

std::vector<LoadedRecipe> load_embedded_catalog() {
  std::vector<LoadedRecipe> recipes;
  for (const util::EmbeddedFile& file : util::embedded_under("recipes/")) {
    if (!file.path.ends_with(".yaml")) continue;
    recipes.push_back(read_recipe(file.bytes, std::string(file.path)));
  }
  return recipes;
}

namespace {

[[noreturn]] void throw_unreadable(const std::filesystem::path& path, const std::error_code& ec) {
  throw Error(ErrorKind::io, fmt::format("cannot read: {}", ec.message()), {path.string()});
}

// Appends the *.yaml files under `dir` (symbolic links to files count; links to folders are not
// followed, so a loop cannot recur). Each folder is listed on its own, so an error names the
// folder that could not be read rather than the one the walk started from.
void collect_recipe_files(const std::filesystem::path& dir, std::vector<std::string>& files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> folders;
  fs::directory_iterator it(dir, ec);
  if (ec) throw_unreadable(dir, ec);
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw_unreadable(dir, ec);
    const fs::path& path = it->path();
    std::error_code entry_ec;
    const fs::file_status link = it->symlink_status(entry_ec);
    if (entry_ec) throw_unreadable(path, entry_ec);
    if (fs::is_directory(link)) {
      folders.push_back(path);
    } else if (path.extension() == ".yaml" && it->is_regular_file(entry_ec)) {  // a broken link is no recipe
      files.push_back(path.string());
    }
  }
  if (ec) throw_unreadable(dir, ec);
  for (const fs::path& folder : folders) collect_recipe_files(folder, files);
}

}  // namespace

std::vector<std::string> recipe_files(const std::string& file_or_dir) {
  std::error_code ec;
  if (!std::filesystem::exists(file_or_dir, ec)) throw Error(ErrorKind::io, "no such file or folder", {file_or_dir});
  if (!std::filesystem::is_directory(file_or_dir, ec)) return {file_or_dir};
  std::vector<std::string> files;
  collect_recipe_files(file_or_dir, files);
  if (files.empty()) throw Error(ErrorKind::input, "no recipes (*.yaml) in this folder", {file_or_dir});
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<LoadedRecipe> load_catalog_dir(const std::string& dir) {
  std::vector<LoadedRecipe> recipes;
  for (const std::string& file : recipe_files(dir)) recipes.push_back(read_recipe_file(file));
  return recipes;
}

LoadedRecipe find_recipe(const std::string& name_or_path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(name_or_path, ec)) return read_recipe_file(name_or_path);
  std::vector<std::string> names;
  for (const util::EmbeddedFile& file : util::embedded_under("recipes/")) {
    if (!file.path.ends_with(".yaml")) continue;
    const std::string path(file.path);
    const std::string relative = path.substr(std::string("recipes/").size());
    const std::string stem = std::filesystem::path(path).stem().string();
    const std::string long_name = relative.substr(0, relative.size() - 5);
    if (name_or_path == path || name_or_path == relative || name_or_path == long_name) {
      return read_recipe(file.bytes, path);
    }
    names.push_back(long_name);
  }
  // A bare stem may name several recipes (one per model and GPU): accept it only when unique.
  std::vector<std::string> matches;
  for (const std::string& name : names) {
    if (std::filesystem::path(name).filename() == name_or_path) matches.push_back(name);
  }
  if (matches.size() == 1) return find_recipe(matches[0]);
  if (matches.size() > 1) {
    throw_usage("recipe '{}' is ambiguous: {}", name_or_path, util::join(matches, ", "));
  }
  // Suggest from the form the user typed: a bare stem or a model/gpu/stem name.
  std::vector<std::string> candidates = names;
  if (name_or_path.find('/') == std::string::npos) {
    for (std::string& name : candidates) name = std::filesystem::path(name).filename().string();
  }
  throw_usage("no recipe file or catalog recipe '{}'{}", name_or_path, util::did_you_mean(name_or_path, candidates));
}

}  // namespace ladle::recipe
