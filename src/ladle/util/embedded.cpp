#include "ladle/util/embedded.hpp"

#include <algorithm>

namespace ladle::util {

std::optional<std::string_view> find_embedded(std::string_view path) {
  const auto files = embedded_files();
  const auto it = std::lower_bound(files.begin(), files.end(), path,
                                   [](const EmbeddedFile& f, std::string_view p) { return f.path < p; });
  if (it == files.end() || it->path != path) return std::nullopt;
  return it->bytes;
}

std::vector<EmbeddedFile> embedded_under(std::string_view prefix) {
  std::vector<EmbeddedFile> out;
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path.starts_with(prefix)) out.push_back(f);
  }
  return out;
}

}  // namespace ladle::util
