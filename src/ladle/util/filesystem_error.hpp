#pragma once
// filesystem_error.hpp: a std::filesystem error as one line of ladle's, the path first.

#include <filesystem>
#include <string>

namespace ladle::util {

/// "a/b: directory iterator cannot open directory: Permission denied" for libstdc++'s
/// "filesystem error: directory iterator cannot open directory: Permission denied [a/b]": what
/// failed and on which paths (both, when the operation has two), with control characters escaped.
std::string describe_filesystem_error(const std::filesystem::filesystem_error& e);

}  // namespace ladle::util
