#pragma once
// catalog.hpp: the model configs embedded from data/models/*.json, looked up by short name/alias.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/model/model_spec.hpp"

namespace ladle::model {

/// The embedded model named `name` (case-insensitive; aliases such as "GLM-4.7-Flash",
/// "zai-org/GLM-5.2", "glm-5.2-744b-a40b", "deepseek-v3"), or nullopt.
/// Throws Error(input) only if an embedded config is itself unsupported (qwen3.5).
std::optional<ModelSpec> find_model(std::string_view name);

/// An embedded model by name, else `name_or_path` read as a config.json file.
/// Throws Error(usage) "unknown model 'x' (did you mean ...)" when it is neither a known name nor
/// an existing file, Error(io) when the file cannot be read, Error(input) naming the file and
/// field for a bad config.
ModelSpec load_model(std::string_view name_or_path);

/// The canonical short name of the embedded model `name` names (case-insensitive, aliases and
/// Hugging Face id accepted), without reading its config; nullopt when it names none.
std::optional<std::string> canonical_model_name(std::string_view name);

/// The name recipes, `ls` and the site print for the embedded model `name` names
/// ("glm-5.2" -> "GLM-5.2-744B-A40B", the `display` of data/models/index.yaml); `name` itself
/// when it names no embedded model.
std::string model_display_name(std::string_view name);

/// Canonical short names of every embedded model, sorted.
std::vector<std::string> model_names();

/// Aliases accepted for the embedded model `name` (not including `name` itself).
std::vector<std::string> model_aliases(std::string_view name);

}  // namespace ladle::model
