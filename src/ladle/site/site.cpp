#include "ladle/site/site.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "ladle/site/assets.hpp"
#include "ladle/site/html.hpp"
#include "ladle/site/pages.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/output_dir.hpp"

namespace ladle::site {
namespace fs = std::filesystem;
namespace {

std::string page_stem(const SiteRecipe& item) {
  std::string path = item.source_path;
  if (path.empty()) {
    return slugify(item.recipe.model + "-" + item.recipe.gpu.type + "-" + item.recipe.layout.label);
  }
  if (const size_t at = path.rfind("recipes/"); at != std::string::npos) path = path.substr(at + 8);
  if (path.ends_with(".yaml")) path.resize(path.size() - 5);
  if (path.ends_with(".yml")) path.resize(path.size() - 4);
  std::replace(path.begin(), path.end(), '/', '-');
  return slugify(path);
}

constexpr const char* kSiteMarkerText = "written by ladle site";

[[noreturn]] void throw_io(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::io, what, {path});
}

bool safe_relative(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  for (const auto& part : fs::path(path)) {
    if (part == ".." || part == "." || part.empty()) return false;
  }
  return true;
}

void write_plain(const fs::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) throw_io(path.string(), fmt::format("cannot write: {}", std::strerror(errno)));
}

}  // namespace

std::vector<size_t> SiteCatalog::recipes_of(const std::string& model) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < recipes.size(); ++i) {
    if (recipes[i].recipe.model == model) out.push_back(i);
  }
  return out;
}

std::string SiteCatalog::model_page(const std::string& model) const {
  return "models/" + slugify(model) + ".html";
}

SiteCatalog make_site_catalog(std::vector<SiteRecipe> recipes) {
  SiteCatalog catalog;
  catalog.recipes = std::move(recipes);
  std::set<std::string> taken;
  std::set<std::string> models;
  std::set<std::string> gpus;
  std::set<std::string> statuses;
  for (const SiteRecipe& item : catalog.recipes) {
    const std::string stem = page_stem(item);
    std::string name = stem;
    for (int n = 2; taken.contains(name); ++n) name = stem + "-" + std::to_string(n);
    taken.insert(name);
    RecipePaths paths;
    paths.page = "recipes/" + name + ".html";
    paths.yaml = "recipes/" + name + ".yaml";
    paths.model_page = catalog.model_page(item.recipe.model);
    catalog.paths.push_back(std::move(paths));
    models.insert(item.recipe.model);
    gpus.insert(item.recipe.gpu.type);
    statuses.insert(item.recipe.status);
  }
  catalog.models.assign(models.begin(), models.end());
  catalog.gpus.assign(gpus.begin(), gpus.end());
  catalog.statuses.assign(statuses.begin(), statuses.end());
  return catalog;
}

std::vector<SiteFile> build_site(const SiteCatalog& catalog) {
  std::vector<SiteFile> files;
  files.push_back({"index.html", render_index(catalog)});
  files.push_back({"assets/site.css", std::string(site_css())});
  files.push_back({"assets/site.js", std::string(site_js())});
  // Two model names can share a slug ("GLM 5" and "glm-5"); the first one keeps the page name.
  std::set<std::string> model_pages;
  for (const std::string& model : catalog.models) {
    const std::string path = catalog.model_page(model);
    if (!model_pages.insert(path).second) continue;
    files.push_back({path, render_model_page(catalog, model)});
  }
  for (size_t i = 0; i < catalog.recipes.size(); ++i) {
    files.push_back({catalog.paths[i].page, render_recipe_page(catalog, i)});
    files.push_back({catalog.paths[i].yaml, catalog.recipes[i].yaml});
  }
  std::sort(files.begin(), files.end(), [](const SiteFile& a, const SiteFile& b) { return a.path < b.path; });
  return files;
}

void write_site(const std::vector<SiteFile>& files, const std::string& out_dir) {
  if (out_dir.empty()) throw_usage("--out: expected a folder, got ''");
  for (const SiteFile& f : files) {
    if (!safe_relative(f.path)) {
      throw Error(ErrorKind::internal, fmt::format("site file '{}' would leave the output folder", f.path));
    }
  }
  // A folder ladle site wrote holds its marker; any other non-empty folder is refused.
  util::StagedDir staging(out_dir, util::OutputMarker{kSiteMarker, kSiteMarkerText}, "--out");
  std::error_code ec;
  for (const SiteFile& f : files) {
    const fs::path path = staging.path() / f.path;
    fs::create_directories(path.parent_path(), ec);
    if (ec) throw_io(path.parent_path().string(), "cannot create folder: " + ec.message());
    write_plain(path, f.content);
  }
  write_plain(staging.path() / kSiteMarker, std::string(kSiteMarkerText) + "; the whole folder is replaced on the next run\n");
  staging.commit();
}

}  // namespace ladle::site
