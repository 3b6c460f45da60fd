#include "ladle/model/catalog.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "ladle/model/config_json.hpp"
#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::model {
namespace {

constexpr const char* kIndexPath = "data/models/index.yaml";
constexpr const char* kModelsDir = "data/models/";

struct CatalogEntry {
  std::string name;
  std::string display;  // as recipes, ls and the site print it
  std::string file;
  std::string hf_id;
  std::vector<std::string> aliases;
};

const std::vector<CatalogEntry>& entries() {
  static const std::vector<CatalogEntry> catalog = [] {
    const auto bytes = util::find_embedded(kIndexPath);
    LADLE_ASSERT(bytes.has_value(), "data/models/index.yaml is embedded by cmake/embed.cmake");
    std::vector<CatalogEntry> out;
    const YAML::Node root = YAML::Load(std::string(*bytes));
    for (const YAML::Node& node : root["models"]) {
      CatalogEntry entry;
      entry.name = node["name"].as<std::string>();
      entry.display = node["display"] ? node["display"].as<std::string>() : entry.name;
      entry.file = node["file"].as<std::string>();
      // Models never published on Hugging Face (the GPT-3-style shapes of Megatron-LM's papers) have none.
      if (node["hf_id"]) entry.hf_id = node["hf_id"].as<std::string>();
      for (const YAML::Node& alias : node["aliases"]) entry.aliases.push_back(alias.as<std::string>());
      out.push_back(std::move(entry));
    }
    return out;
  }();
  return catalog;
}

const CatalogEntry* find_entry(std::string_view name) {
  const std::string key = util::to_lower(util::trim(name));
  for (const CatalogEntry& entry : entries()) {
    if (key == entry.name || (!entry.hf_id.empty() && key == util::to_lower(entry.hf_id)) ||
        key == util::to_lower(entry.display)) {
      return &entry;
    }
    for (const std::string& alias : entry.aliases) {
      if (key == util::to_lower(alias)) return &entry;
    }
  }
  return nullptr;
}

}  // namespace

std::optional<ModelSpec> find_model(std::string_view name) {
  const CatalogEntry* entry = find_entry(name);
  if (entry == nullptr) return std::nullopt;
  const std::string path = kModelsDir + entry->file;
  const auto bytes = util::find_embedded(path);
  LADLE_ASSERT(bytes.has_value(), "every model of data/models/index.yaml is embedded");
  return parse_config(*bytes, path, entry->name);
}

ModelSpec load_model(std::string_view name_or_path) {
  if (auto spec = find_model(name_or_path)) return *spec;
  const std::string path(name_or_path);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec) &&
      std::filesystem::exists(std::filesystem::path(path) / "config.json", ec)) {
    return read_config_file((std::filesystem::path(path) / "config.json").string());
  }
  if (std::filesystem::exists(path, ec)) return read_config_file(path);
  std::vector<std::string> candidates = model_names();
  for (const CatalogEntry& entry : entries()) {
    candidates.insert(candidates.end(), entry.aliases.begin(), entry.aliases.end());
  }
  const std::vector<std::string> names = model_names();
  throw_usage("unknown model '{}'{}: not an embedded model nor a config.json file; embedded: {}",
              name_or_path, util::did_you_mean(name_or_path, candidates), util::join(names, ", "));
}

std::optional<std::string> canonical_model_name(std::string_view name) {
  const CatalogEntry* entry = find_entry(name);
  if (entry == nullptr) return std::nullopt;
  return entry->name;
}

std::string model_display_name(std::string_view name) {
  const CatalogEntry* entry = find_entry(name);
  return entry == nullptr ? std::string(name) : entry->display;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const CatalogEntry& entry : entries()) names.push_back(entry.name);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> model_aliases(std::string_view name) {
  const CatalogEntry* entry = find_entry(name);
  if (entry == nullptr) return {};
  std::vector<std::string> aliases;
  if (!entry->hf_id.empty()) aliases.push_back(entry->hf_id);
  aliases.insert(aliases.end(), entry->aliases.begin(), entry->aliases.end());
  return aliases;
}

}  // namespace ladle::model
