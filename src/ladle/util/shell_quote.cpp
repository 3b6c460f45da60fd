#include "ladle/util/shell_quote.hpp"

#include <fmt/format.h>

namespace ladle::util {

namespace {

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

// $'...': bash's ANSI-C quoting, the one form that writes a newline without a line break.
std::string ansi_c_quote(std::string_view text) {
  std::string out = "$'";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '\\' || ch == '\'') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (is_control(c)) {
      out += fmt::format("\\x{:02x}", c);  // always two digits: the next byte is never read as one
    } else {
      out += ch;
    }
  }
  return out + "'";
}

}  // namespace

bool is_plain_shell_word(std::string_view text) {
  if (text.empty()) return false;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       std::string_view("_./:,=+@%-").find(ch) != std::string_view::npos;
    if (!plain) return false;
  }
  return true;
}

std::string shell_quote(std::string_view text, ShellQuoting how) {
  if (how == ShellQuoting::bash_line) {
    if (is_plain_shell_word(text)) return std::string(text);
    for (const char ch : text) {
      if (is_control(static_cast<unsigned char>(ch))) return ansi_c_quote(text);
    }
  }
  std::string out = "'";
  for (const char ch : text) {
    if (ch == '\'') {
      out += "'\\''";
    } else {
      out += ch;
    }
  }
  return out + "'";
}

}  // namespace ladle::util
