#include "ladle/util/json.hpp"

namespace ladle::util {
namespace {

// nlohmann's message after its "[json.exception.x.nnn] " tag.
std::string untagged(const char* what) {
  const std::string text = what;
  const size_t at = text.find("] ");
  return at == std::string::npos ? text : text.substr(at + 2);
}

}  // namespace

SourceLocation locate_offset(std::string_view text, size_t offset, const SourceLocation& where) {
  SourceLocation out = where;
  out.line = where.line > 0 ? where.line : 1;
  out.col = 1;
  const size_t end = std::min(offset, text.size());
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++out.line;
      out.col = 1;
    } else {
      ++out.col;
    }
  }
  return out;
}

nlohmann::json parse_json(std::string_view text, const SourceLocation& where,
                          std::string_view invalid) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    const size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = untagged(e.what());
    const size_t cut = what.find(": ", what.find("column"));
    if (what.find("column") != std::string::npos && cut != std::string::npos)
      what = what.substr(cut + 2);
    throw_input(locate_offset(text, offset, where), "{}: {}", invalid, what);
  } catch (const nlohmann::json::out_of_range& e) {
    // "number overflow parsing '1e400'": point at the first such number.
    const std::string what = untagged(e.what());
    size_t offset = 0;
    const size_t open = what.find('\'');
    const size_t close = what.rfind('\'');
    if (open != std::string::npos && close > open) {
      const std::string token = what.substr(open + 1, close - open - 1);
      if (const size_t at = text.find(token); at != std::string_view::npos) offset = at;
    }
    throw_input(locate_offset(text, offset, where), "a number outside the range of a double: {}",
                what);
  } catch (const nlohmann::json::exception& e) {
    throw_input(where, "{}: {}", invalid, untagged(e.what()));
  }
}

}  // namespace ladle::util
