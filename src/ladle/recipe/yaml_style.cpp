#include "ladle/recipe/yaml_style.hpp"

#include <fmt/format.h>

#include <regex>

namespace ladle::recipe::detail {

namespace {
constexpr size_t kBestWidth = 120;  // lines end by column 120 where a word boundary allows

bool is_break(char c) { return c == '\n' || c == '\r'; }

// The bytes at text[i] of a character that only a double-quoted scalar can hold, as an escape:
// one YAML's printable set lacks (C0 controls but tab and LF, DEL, C1 controls U+0080-U+009F)
// or one YAML reads as a line break (CR, NEL U+0085, U+2028, U+2029), which a plain, quoted or
// literal scalar would not give back as written. 0 when text[i] starts no such character.
size_t unprintable_at(std::string_view text, size_t i) {
  const auto u = static_cast<unsigned char>(text[i]);
  if ((u < 0x20 && u != '\n' && u != '\t') || u == 0x7f) return 1;
  const auto next = [&](size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0; };
  if (u == 0xc2 && next(1) >= 0x80 && next(1) <= 0x9f) return 2;
  if (u == 0xe2 && next(1) == 0x80 && (next(2) == 0xa8 || next(2) == 0xa9)) return 3;
  return 0;
}

bool has_unprintable(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (unprintable_at(text, i) > 0) return true;
  }
  return false;
}

bool needs_double_quotes(std::string_view text) {
  return has_unprintable(text) || text.find_first_of("\n\t") != std::string_view::npos;
}
}  // namespace

bool resolves_as_non_string(std::string_view text) {
  // The implicit resolvers of YAML 1.1 (yaml.org/type), as PyYAML's resolver.py applies them.
  static const std::regex kImplicit(
      "~|null|Null|NULL|"
      "yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|"
      "[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|"
      "[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+|"
      "[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+][0-9]+)?|[-+]?\\.[0-9_]+(?:[eE][-+][0-9]+)?|"
      "[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)|"
      "[0-9]{4}-[0-9]{2}-[0-9]{2}|"
      "[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \\t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]*)?"
      "(?:[ \\t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?|"
      "=|<<");
  if (text.empty()) return true;
  return std::regex_match(text.begin(), text.end(), kImplicit);
}

bool plain_allowed(std::string_view text) {
  if (text.empty() || resolves_as_non_string(text)) return false;
  if (text.front() == ' ' || text.back() == ' ' || needs_double_quotes(text)) return false;
  if (text.starts_with("---") || text.starts_with("...")) return false;
  const auto followed_by_space = [&](size_t i) { return i + 1 >= text.size() || text[i + 1] == ' '; };
  const char first = text.front();
  if (std::string_view("#,[]{}&*!|>'\"%@`").find(first) != std::string_view::npos) return false;
  if ((first == '?' || first == ':' || first == '-') && followed_by_space(0)) return false;
  for (size_t i = 1; i < text.size(); ++i) {
    if (text[i] == ':' && followed_by_space(i)) return false;
    if (text[i] == '#' && text[i - 1] == ' ') return false;
  }
  return true;
}

std::string python_float_repr(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

namespace {
// Writes the scalar's characters (already escaped for its style) folding at single spaces: a word
// goes on the next line, indented by `indent`, when it would end past column 120. Runs of several
// spaces are never broken, since folding would change them.
void append_folded(std::string& out, std::string_view text, size_t column, size_t indent) {
  out += ' ';
  column += 1;
  size_t start = 0;
  bool first_word = true;
  while (start <= text.size()) {
    // A word runs to the next single space that has non-space characters on both sides.
    size_t end = start;
    for (;;) {
      end = text.find(' ', end);
      if (end == std::string_view::npos) {
        end = text.size();
        break;
      }
      const bool single = end > 0 && text[end - 1] != ' ' && end + 1 < text.size() && text[end + 1] != ' ';
      if (single) break;
      ++end;
    }
    const std::string_view word = text.substr(start, end - start);
    if (!first_word) {
      if (column + 1 + word.size() > kBestWidth && column > indent) {
        out += '\n';
        out.append(indent, ' ');
        column = indent;
      } else {
        out += ' ';
        column += 1;
      }
    }
    out.append(word);
    column += word.size();
    first_word = false;
    if (end >= text.size()) break;
    start = end + 1;
  }
}

std::string single_quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
  return out;
}

void append_double_quoted(std::string& out, std::string_view text) {
  out += " \"";
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const size_t special = unprintable_at(text, i);
    if (special == 2) {  // C1: UTF-8 C2 80..C2 9F is U+0080..U+009F
      out += fmt::format("\\u{:04X}", static_cast<unsigned char>(text[i + 1]));
      ++i;
      continue;
    }
    if (special == 3) {  // U+2028, U+2029
      out += static_cast<unsigned char>(text[i + 2]) == 0xa8 ? "\\u2028" : "\\u2029";
      i += 2;
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02X}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
}
}  // namespace

void append_scalar(std::string& out, std::string_view text, size_t column, size_t indent,
                   bool force_plain) {
  if (needs_double_quotes(text)) {
    append_double_quoted(out, text);
  } else if (force_plain || plain_allowed(text)) {
    append_folded(out, text, column, indent);
  } else {
    append_folded(out, single_quoted(text), column, indent);
  }
}

void append_literal(std::string& out, std::string_view text, size_t indent) {
  // A literal block holds its text as written: a character it cannot hold is escaped instead, and
  // so is a line that starts with a tab, which the reader takes for a tab in indentation.
  const bool leading_tab = text.starts_with('\t') || text.find("\n\t") != std::string_view::npos;
  if (has_unprintable(text) || leading_tab) {
    append_double_quoted(out, text);
    out += '\n';
    return;
  }
  size_t trailing = 0;
  while (trailing < text.size() && is_break(text[text.size() - 1 - trailing])) ++trailing;
  out += " |";
  if (trailing == 0) out += '-';
  if (trailing > 1) out += '+';
  if (!text.empty() && text.front() == ' ') out += fmt::format("{}", 2);
  out += '\n';
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (!line.empty()) out.append(indent, ' ').append(line);
    out += '\n';
    start = end + 1;
  }
}

}  // namespace ladle::recipe::detail
