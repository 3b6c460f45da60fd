#pragma once
// yaml_document.hpp: the one way ladle reads a YAML file a user gave it (a recipe). yaml-cpp alone
// reads any YAML; this adds what a file from outside needs checked before anything walks it.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace ladle::util {

/// Nodes that aliases (`*name`) may add to a document once each is expanded where it stands.
/// Recipes use a few aliases at most; a "billion laughs" file of nested aliases grows as 10^n and
/// would take gigabytes to walk, so it is refused before any walk.
inline constexpr int64_t kMaxYamlAliasNodes = 100'000;
/// Bytes of scalar text that aliases may add: one alias copies its anchor's text, so 10^5 aliases
/// of one 500 KB string would be 50 GB. 16 MiB is what a whole recipe file may hold.
inline constexpr int64_t kMaxYamlAliasBytes = int64_t{16} << 20;

/// Parses `text` as exactly one YAML document. Throws Error(input) at path:line:col for bytes that
/// are not UTF-8, malformed YAML, a second document ("---" after the first), and aliases that
/// would expand to more than kMaxYamlAliasNodes nodes or kMaxYamlAliasBytes of text. An empty text
/// gives a null node.
YAML::Node load_yaml_document(std::string_view text, const std::string& path);

}  // namespace ladle::util
