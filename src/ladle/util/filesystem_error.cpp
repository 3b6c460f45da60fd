#include "ladle/util/filesystem_error.hpp"

#include <string_view>

#include "ladle/util/text.hpp"

namespace ladle::util {

std::string describe_filesystem_error(const std::filesystem::filesystem_error& e) {
  std::string what = e.what();
  constexpr std::string_view kPrefix = "filesystem error: ";
  if (what.starts_with(kPrefix)) what.erase(0, kPrefix.size());
  // The library appends each path in brackets; they move to the front, as in every ladle error.
  std::string paths;
  for (const std::filesystem::path* p : {&e.path1(), &e.path2()}) {
    if (p->empty()) continue;
    const std::string bracketed = " [" + p->string() + "]";
    if (const size_t at = what.rfind(bracketed); at != std::string::npos) what.erase(at, bracketed.size());
    paths += (paths.empty() ? "" : ", ") + p->string();
  }
  return terminal_safe_line(paths.empty() ? what : paths + ": " + what);
}

}  // namespace ladle::util
