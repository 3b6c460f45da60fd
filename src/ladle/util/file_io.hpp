#pragma once

#include <string>
#include <string_view>

namespace ladle::util {

/// Returns the whole file. Throws Error(io) naming the path when it cannot be read or is a folder.
std::string read_file(const std::string& path);

/// Writes `content` to a temporary file beside `path`, flushes it and renames it into place, so a
/// reader sees the old file or the new one, never half of one. Throws Error(io).
void write_file_atomic(const std::string& path, std::string_view content);

}  // namespace ladle::util
