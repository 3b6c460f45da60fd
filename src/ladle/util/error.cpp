#include "ladle/util/error.hpp"

namespace ladle {

namespace {
// An error is one line: control characters from the input are shown escaped, and a message that
// quotes a huge value is cut.
std::string one_line(std::string_view text) {
  constexpr size_t kMaxChars = 400;
  std::string out;
  for (const char c : text) {
    if (out.size() >= kMaxChars) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

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
  if (!where.field_path.empty()) out += one_line(where.field_path) + ": ";
  out += one_line(message);
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
