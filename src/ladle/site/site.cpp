#include "ladle/site/site.hpp"

#include <fcntl.h>
#include <stdio.h>  // renameat2 (glibc, _GNU_SOURCE)
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
  const fs::path out = fs::path(out_dir).lexically_normal();
  const fs::path target = out.has_filename() ? out : out.parent_path();
  std::error_code ec;
  const bool exists = fs::exists(target, ec);
  if (exists) {
    if (!fs::is_directory(target, ec)) throw_usage("--out '{}' is a file, expected a folder", out_dir);
    const bool empty = fs::is_empty(target, ec);
    if (!empty && !fs::exists(target / kSiteMarker, ec)) {
      throw_usage("--out '{}' is not empty and holds no site written by ladle ({}); pick a new folder", out_dir,
                  kSiteMarker);
    }
  }
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec) throw_io(parent.string(), "cannot create folder: " + ec.message());

  std::string temp = (parent / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  if (::mkdtemp(temp.data()) == nullptr) {
    throw_io(parent.string(), fmt::format("cannot create a folder here: {}", std::strerror(errno)));
  }
  const fs::path staging(temp);
  try {
    ::chmod(temp.c_str(), 0755);  // mkdtemp makes 0700; a published site is readable by all
    for (const SiteFile& f : files) {
      const fs::path path = staging / f.path;
      fs::create_directories(path.parent_path(), ec);
      if (ec) throw_io(path.parent_path().string(), "cannot create folder: " + ec.message());
      write_plain(path, f.content);
    }
    write_plain(staging / kSiteMarker, "written by ladle site; the whole folder is replaced on the next run\n");
    if (!exists) {
      if (std::rename(temp.c_str(), target.c_str()) != 0) {
        throw_io(target.string(), fmt::format("cannot rename into place: {}", std::strerror(errno)));
      }
      return;
    }
    if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
      fs::remove_all(staging, ec);  // now the old site
      return;
    }
    // A file system without RENAME_EXCHANGE: move the old site aside, the new one in, then drop the old.
    const std::string old = temp + ".old";
    if (std::rename(target.c_str(), old.c_str()) != 0 || std::rename(temp.c_str(), target.c_str()) != 0) {
      const std::string reason = std::strerror(errno);
      if (!fs::exists(target, ec)) std::rename(old.c_str(), target.c_str());
      throw_io(target.string(), "cannot rename into place: " + reason);
    }
    fs::remove_all(old, ec);
  } catch (...) {
    fs::remove_all(staging, ec);
    throw;
  }
}

}  // namespace ladle::site
