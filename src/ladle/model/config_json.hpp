#pragma once
// config_json.hpp: reads a Hugging Face config.json into a ModelSpec.

#include <string>
#include <string_view>
#include <vector>

#include "ladle/model/model_spec.hpp"

namespace ladle::model {

/// The `model_type`s parse_config accepts, sorted.
std::vector<std::string> supported_model_types();

/// Parses config.json text. `file` names the input in errors and becomes ModelSpec::source;
/// `name` becomes ModelSpec::name. Throws Error(input) "file:line:col: error: field: message" for
/// text that is not JSON, a missing or mistyped field, a contradiction (experts fewer than top-k,
/// heads not divisible by kv heads), or an unsupported model_type (the message lists the
/// supported ones).
ModelSpec parse_config(std::string_view json_text, const std::string& file, const std::string& name);

/// Reads and parses a config.json file; the name is the file's stem. Throws Error(io)/Error(input).
ModelSpec read_config_file(const std::string& path);

}  // namespace ladle::model
