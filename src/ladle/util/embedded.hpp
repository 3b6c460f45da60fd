#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace ladle::util {

/// A file of data/ or recipes/ compiled into the binary; `path` is relative to the repo root.
struct EmbeddedFile {
  std::string_view path;
  std::string_view bytes;
};

/// Every embedded file, sorted by path.
std::span<const EmbeddedFile> embedded_files();

/// The bytes of the embedded file at `path` (e.g. "data/gpus.yaml"), or nullopt.
std::optional<std::string_view> find_embedded(std::string_view path);

/// Embedded files whose path starts with `prefix` (e.g. "recipes/"), sorted by path.
std::vector<EmbeddedFile> embedded_under(std::string_view prefix);

}  // namespace ladle::util
