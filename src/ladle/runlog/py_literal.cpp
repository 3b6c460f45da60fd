#include "ladle/runlog/py_literal.hpp"

#include <cctype>
#include <cstring>

#include "ladle/runlog/log_lines.hpp"

namespace ladle::runlog {

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text, size_t pos) : text_(text), pos_(pos) {}

  size_t pos() const { return pos_; }
  size_t error_at() const { return error_at_; }
  const std::string& error() const { return error_; }

  std::optional<PyDict> dict() {
    if (!expect('{')) return std::nullopt;
    PyDict out;
    skip_blanks();
    if (peek() == '}') {
      ++pos_;
      return out;
    }
    while (true) {
      skip_blanks();
      PyValue key;
      if (!value(key, 0)) return std::nullopt;
      std::string key_text = key.kind == PyValue::Kind::string ? key.text : key.text;
      if (key.kind == PyValue::Kind::number && key_text.empty()) key_text = std::to_string(key.number);
      skip_blanks();
      if (!expect(':')) return std::nullopt;
      skip_blanks();
      PyValue item;
      if (!value(item, 0)) return std::nullopt;
      out[key_text] = std::move(item);
      skip_blanks();
      if (peek() == ',') {
        ++pos_;
        skip_blanks();
        if (peek() == '}') {
          ++pos_;
          return out;
        }
        continue;
      }
      if (!expect('}')) return std::nullopt;
      return out;
    }
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_blanks() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool fail(std::string what) {
    if (error_.empty()) {
      error_at_ = pos_;
      error_ = std::move(what);
    }
    return false;
  }

  bool expect(char c) {
    if (peek() == c) {
      ++pos_;
      return true;
    }
    if (pos_ >= text_.size()) return fail(std::string("the dict is not closed: expected '") + c + "'");
    return fail(std::string("expected '") + c + "', found '" + peek() + "'");
  }

  bool string_value(PyValue& out) {
    const char quote = text_[pos_++];
    std::string value;
    const char* const base = text_.data();
    while (pos_ < text_.size()) {
      // The run up to the next quote or backslash, copied at once.
      const void* close = memchr(base + pos_, quote, text_.size() - pos_);
      const size_t close_at = close ? static_cast<size_t>(static_cast<const char*>(close) - base) : text_.size();
      const void* escape = memchr(base + pos_, '\\', close_at - pos_);
      const size_t run_end = escape ? static_cast<size_t>(static_cast<const char*>(escape) - base) : close_at;
      value.append(base + pos_, run_end - pos_);
      pos_ = run_end;
      if (pos_ >= text_.size() || text_[pos_] == quote) break;
      if (pos_ + 1 < text_.size()) {  // a backslash and the character it escapes
        ++pos_;
        const char e = text_[pos_];
        value += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        value += text_[pos_];
      }
      ++pos_;
    }
    if (pos_ >= text_.size()) return fail("the string is not closed");
    ++pos_;
    out.kind = PyValue::Kind::string;
    out.text = std::move(value);
    return true;
  }

  // Skips a balanced (), [] or {} group, strings included, keeping its text.
  bool skip_group(PyValue& out) {
    const size_t begin = pos_;
    int depth = 0;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\'' || c == '"') {
        PyValue ignored;
        if (!string_value(ignored)) return false;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      ++pos_;
      if (depth == 0) {
        out.kind = PyValue::Kind::other;
        out.text = std::string(text_.substr(begin, pos_ - begin));
        return true;
      }
    }
    return fail("the dict is not closed: a bracket is left open");
  }

  bool value(PyValue& out, int depth) {
    if (depth > 4) return fail("nesting too deep");
    const char c = peek();
    if (c == '\0') return fail("the dict is not closed: expected a value");
    if (c == '\'' || c == '"') return string_value(out);
    if (c == '[' || c == '(' || c == '{') return skip_group(out);
    // A word: a number, nan/inf, True/False/None, or a call like np.float64(1.5).
    const size_t begin = pos_;
    while (pos_ < text_.size()) {
      const char d = text_[pos_];
      if (std::isalnum(static_cast<unsigned char>(d)) || d == '.' || d == '_' || d == '+' || d == '-') {
        ++pos_;
      } else {
        break;
      }
    }
    const std::string_view word = text_.substr(begin, pos_ - begin);
    if (word.empty()) return fail(std::string("expected a value, found '") + c + "'");
    if (peek() == '(') {
      // np.float64(x), np.int64(x), np.float32(x), torch/tensor(x, ...): the first argument.
      ++pos_;
      skip_blanks();
      PyValue inner;
      if (!value(inner, depth + 1)) return false;
      skip_blanks();
      if (peek() == ',') {  // tensor(1.5, device='cuda:0'): drop the keyword arguments
        PyValue rest;
        size_t d = 0;
        while (pos_ < text_.size()) {
          const char e = text_[pos_];
          if (e == '\'' || e == '"') {
            if (!string_value(rest)) return false;
            continue;
          }
          if (e == '(') ++d;
          if (e == ')') {
            if (d == 0) break;
            --d;
          }
          ++pos_;
        }
      }
      if (!expect(')')) return false;
      if (inner.kind == PyValue::Kind::number) {
        out = inner;
      } else {
        out.kind = PyValue::Kind::other;
        out.text = std::string(text_.substr(begin, pos_ - begin));
      }
      return true;
    }
    if (word == "True" || word == "False") {
      out.kind = PyValue::Kind::boolean;
      out.boolean = word == "True";
      out.text = std::string(word);
      return true;
    }
    if (word == "None") {
      out.kind = PyValue::Kind::none;
      out.text = "None";
      return true;
    }
    if (const auto number = parse_number(word)) {
      out.kind = PyValue::Kind::number;
      out.number = *number;
      out.text = std::string(word);
      return true;
    }
    pos_ = begin;
    return fail("'" + std::string(word) + "' is not a number, string, True, False or None");
  }

  std::string_view text_;
  size_t pos_;
  size_t error_at_ = 0;
  std::string error_;
};

}  // namespace

std::optional<PyDict> parse_py_dict(std::string_view text, size_t& pos, size_t& error_at, std::string& error) {
  Parser parser(text, pos);
  auto out = parser.dict();
  if (!out) {
    error_at = parser.error_at();
    error = parser.error();
    return std::nullopt;
  }
  pos = parser.pos();
  return out;
}

}  // namespace ladle::runlog
