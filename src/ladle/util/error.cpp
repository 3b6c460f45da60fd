#include "ladle/util/error.hpp"

namespace ladle {

namespace {
std::string compose(const SourceLocation& where, const std::string& message) {
  std::string out;
  if (!where.file.empty()) {
    out = where.file;
    if (where.line > 0) out += fmt::format(":{}", where.line);
    if (where.col > 0) out += fmt::format(":{}", where.col);
    out += ": error: ";
  } else {
    out = "ladle: error: ";
  }
  if (!where.field_path.empty()) out += where.field_path + ": ";
  out += message;
  return out;
}
}  // namespace

Error::Error(ErrorKind kind, std::string message, SourceLocation where)
    : std::runtime_error(compose(where, message)),
      kind_(kind),
      where_(std::move(where)),
      message_(std::move(message)) {}

std::string Error::describe() const { return what(); }

namespace detail {
void assert_failed(const char* condition, const char* why, const char* file, int line) {
  throw Error(ErrorKind::internal,
              fmt::format("internal error: {} ({}) at {}:{}", why, condition, file, line));
}
}  // namespace detail

}  // namespace ladle
