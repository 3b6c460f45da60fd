#include "ladle/util/json.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

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

namespace {

// Python's json module writes non-finite floats as the bare words Infinity, -Infinity and NaN,
// which JSON (and nlohmann) reject. Each is swapped for a number literal of the same length, so
// every later error keeps its line and column, and the literal is read back as the value it
// stands for. A text that already holds one of these literals is parsed as it is.
struct PythonLiteral {
  std::string_view word;
  std::string_view stand_in;
  double value;
};

constexpr std::array<PythonLiteral, 3> kPythonLiterals = {{
    {"-Infinity", "-0.0e-000", -std::numeric_limits<double>::infinity()},
    {"Infinity", "-0.0e-00", std::numeric_limits<double>::infinity()},
    {"NaN", "0E0", std::numeric_limits<double>::quiet_NaN()},
}};

double non_finite_value(const std::string& token, double parsed) {
  for (const PythonLiteral& literal : kPythonLiterals) {
    if (token == literal.stand_in) return literal.value;
  }
  return parsed;
}

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

// `text` with the bare Python literals outside strings swapped for their stand-ins; nullopt when
// it holds none, or when a stand-in already occurs in it (it could not be told apart).
std::optional<std::string> swap_python_literals(std::string_view text) {
  for (const PythonLiteral& literal : kPythonLiterals) {
    if (text.find(literal.stand_in) != std::string_view::npos) return std::nullopt;
  }
  std::string out(text);
  bool swapped = false;
  bool in_string = false;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (i > 0 && is_word_char(out[i - 1])) continue;
    for (const PythonLiteral& literal : kPythonLiterals) {
      const size_t end = i + literal.word.size();
      if (std::string_view(out).substr(i, literal.word.size()) != literal.word) continue;
      if (end < out.size() && is_word_char(out[end])) continue;
      out.replace(i, literal.word.size(), literal.stand_in);
      i = end - 1;
      swapped = true;
      break;
    }
  }
  if (!swapped) return std::nullopt;
  return out;
}

// nlohmann's DOM builder, told not to throw: a syntax error or a number out of range is kept here
// and reported once the parser returns, so a malformed line costs one exception (ladle's Error),
// not two (nlohmann's, caught and thrown again). The DOM and the messages are nlohmann's own.
class QuietDom {
 public:
  using json = nlohmann::json;
  explicit QuietDom(json& result) : dom_(result, false) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    if (non_finite_) v = non_finite_value(s, v);
    return dom_.number_float(v, s);
  }
  bool string(json::string_t& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) { return dom_.start_object(n); }
  bool key(json::string_t& v) { return dom_.key(v); }
  bool end_object() { return dom_.end_object(); }
  bool start_array(std::size_t n) { return dom_.start_array(n); }
  bool end_array() { return dom_.end_array(); }

  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& ex) {
    if constexpr (std::is_same_v<Exception, json::parse_error>) {
      syntax_.emplace(ex);
    } else if constexpr (std::is_same_v<Exception, json::out_of_range>) {
      range_.emplace(ex);
    } else {
      other_ = ex.what();
      has_other_ = true;
    }
    return dom_.parse_error(position, token, ex);
  }

  std::optional<json::parse_error> syntax_;
  std::optional<json::out_of_range> range_;
  std::string other_;
  bool has_other_ = false;
  /// Whether number literals standing for Infinity, -Infinity and NaN (see python_literals) are read
  /// back as those values.
  bool non_finite_ = false;

 private:
  nlohmann::detail::json_sax_dom_parser<json> dom_;
};

[[noreturn]] void syntax_error(std::string_view text, const SourceLocation& where, std::string_view invalid,
                               const nlohmann::json::parse_error& e) {
  // e.byte is 1-based and points just past the offending character.
  const size_t offset = e.byte > 0 ? e.byte - 1 : 0;
  std::string what = untagged(e.what());
  const size_t cut = what.find(": ", what.find("column"));
  if (what.find("column") != std::string::npos && cut != std::string::npos) what = what.substr(cut + 2);
  throw_input(locate_offset(text, offset, where), "{}: {}", invalid, what);
}

[[noreturn]] void range_error(std::string_view text, const SourceLocation& where,
                              const nlohmann::json::out_of_range& e) {
  // "number overflow parsing '1e400'": point at the first such number.
  const std::string what = untagged(e.what());
  size_t offset = 0;
  const size_t open = what.find('\'');
  const size_t close = what.rfind('\'');
  if (open != std::string::npos && close > open) {
    const std::string token = what.substr(open + 1, close - open - 1);
    if (const size_t at = text.find(token); at != std::string_view::npos) offset = at;
  }
  throw_input(locate_offset(text, offset, where), "a number outside the range of a double: {}", what);
}

}  // namespace

namespace {

nlohmann::json parse(std::string_view text, const SourceLocation& where, std::string_view invalid,
                     bool non_finite) {
  nlohmann::json result;
  QuietDom sax(result);
  sax.non_finite_ = non_finite;
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
  } catch (const nlohmann::json::parse_error& e) {
    syntax_error(text, where, invalid, e);
  } catch (const nlohmann::json::out_of_range& e) {
    range_error(text, where, e);
  } catch (const nlohmann::json::exception& e) {
    throw_input(where, "{}: {}", invalid, untagged(e.what()));
  }
  if (sax.syntax_) syntax_error(text, where, invalid, *sax.syntax_);
  if (sax.range_) range_error(text, where, *sax.range_);
  if (sax.has_other_) throw_input(where, "{}: {}", invalid, untagged(sax.other_.c_str()));
  LADLE_ASSERT(ok, "the JSON parser failed without saying why");
  return result;
}

}  // namespace

nlohmann::json parse_json(std::string_view text, const SourceLocation& where,
                          std::string_view invalid) {
  return parse(text, where, invalid, false);
}

nlohmann::json parse_json_with_non_finite(std::string_view text, const SourceLocation& where,
                                          std::string_view invalid) {
  const std::optional<std::string> swapped = swap_python_literals(text);
  if (!swapped) return parse(text, where, invalid, false);
  return parse(*swapped, where, invalid, true);
}

std::string show_json(const nlohmann::json& value) {
  if (value.is_number_float()) {
    const double v = value.get<double>();
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  }
  return value.dump();
}

}  // namespace ladle::util
