#include "ladle/site/site.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "ladle/site/assets.hpp"
#include "ladle/site/html.hpp"
#include "ladle/site/pages.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
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

// The marker lists every file ladle wrote, one a line after its first, so the next run replaces
// exactly those and keeps what the user added (a CNAME, a .git folder).
std::string marker_text(const std::vector<SiteFile>& files) {
  std::string out = std::string(kSiteMarkerText) + "; the next run replaces the files listed here and keeps any other\n";
  for (const SiteFile& f : files) out += f.path + "\n";
  return out;
}

// Whether a site written before the marker listed its files would have written `rel`.
bool legacy_site_file(const std::string& rel) {
  const fs::path path(rel);
  const std::string folder = path.parent_path().string();
  const std::string ext = path.extension().string();
  return rel == "index.html" || rel == "assets/site.css" || rel == "assets/site.js" ||
         (folder == "models" && ext == ".html") || (folder == "recipes" && (ext == ".html" || ext == ".yaml"));
}

// The files an existing site's marker says ladle wrote (none for a folder that is not yet a site).
std::set<std::string> files_ladle_wrote(const fs::path& site) {
  std::set<std::string> out;
  std::ifstream in(site / kSiteMarker, std::ios::binary);
  std::string line;
  if (!std::getline(in, line)) return out;  // no marker: an empty folder
  while (std::getline(in, line)) {
    if (!line.empty()) out.insert(line);
  }
  return out;
}

// Puts `from` (a file or symbolic link the user added) at `to` in the new site: a hard link, so
// nothing is copied and the user's file stays byte for byte, or a copy across file systems.
void carry_entry(const fs::path& from, const fs::path& to, const fs::file_status& status) {
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  if (fs::is_symlink(status)) {
    fs::copy_symlink(from, to, ec);
  } else if (fs::is_regular_file(status)) {
    fs::create_hard_link(from, to, ec);
    if (ec) {
      ec.clear();
      fs::copy_file(from, to, ec);
    }
  } else {
    throw_io(from.string(), "is not a file, a folder or a link: cannot keep it in the new site; move it away");
  }
  if (ec) throw_io(from.string(), "cannot keep this file in the new site: " + ec.message());
}

// Carries every file of the old site ladle did not write into the new one, folders and all.
// Refuses (nothing replaced yet) when the new site would write where such a file stands.
void carry_user_files(const fs::path& old_site, const fs::path& staging, const std::vector<SiteFile>& files) {
  const std::set<std::string> ladle_wrote = files_ladle_wrote(old_site);
  const bool legacy = ladle_wrote.empty();
  std::set<std::string> writing;
  for (const SiteFile& f : files) writing.insert(f.path);
  std::error_code ec;
  fs::recursive_directory_iterator it(old_site, ec);
  if (ec) throw_io(old_site.string(), "cannot read: " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const fs::path& from = it->path();
    const std::string rel = from.lexically_relative(old_site).generic_string();
    const fs::file_status status = it->symlink_status(ec);
    if (ec) throw_io(from.string(), "cannot read: " + ec.message());
    if (fs::is_directory(status)) {
      fs::create_directories(staging / rel, ec);  // keeps a folder the user made, even empty
      if (ec) throw_io((staging / rel).string(), "cannot create folder: " + ec.message());
      continue;
    }
    if (rel == kSiteMarker || (legacy ? legacy_site_file(rel) : ladle_wrote.contains(rel))) continue;
    if (writing.contains(rel)) {
      throw_usage("--out: '{}' is a file ladle did not write and the new site writes there; move it away",
                  from.string());
    }
    carry_entry(from, staging / rel, status);
  }
  if (ec) throw_io(old_site.string(), "cannot read: " + ec.message());
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
  // An old site's own files are dropped with it; what the user added there moves to the new one.
  // Concurrent runs take turns from here to the swap, so each carries from the site the one
  // before it swapped in, never from a folder being removed.
  fs::path target = fs::path(out_dir).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // "site/" names "site"
  std::optional<util::PathLock> lock;
  if (fs::is_directory(fs::symlink_status(target, ec))) lock.emplace(target.string());
  if (util::holds_marker(target, util::OutputMarker{kSiteMarker, kSiteMarkerText})) {
    carry_user_files(target, staging.path(), files);
  }
  write_plain(staging.path() / kSiteMarker, marker_text(files));
  staging.commit();
}

}  // namespace ladle::site
