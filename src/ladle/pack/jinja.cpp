#include "ladle/pack/jinja.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "ladle/util/error.hpp"

// Semantics follow Python's Jinja 3 as transformers configures it for chat templates
// (transformers/utils/chat_template_utils.py: trim_blocks, lstrip_blocks, a `tojson` filter that
// calls json.dumps with ensure_ascii=False by default) and Python's str methods.

namespace ladle::pack {

using Json = nlohmann::ordered_json;

namespace detail {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind { literal, name, attr, item, slice, call, filter, test, unary, binary, cond, list, dict };
  Kind kind = Kind::literal;
  Json value;                 // literal
  std::string name;           // name, attr, filter, test, unary/binary operator
  std::vector<ExprPtr> args;  // operands, call/filter/test arguments, list items, dict keys/values
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  bool negated = false;       // test: `is not`
  bool has[3] = {false, false, false};  // slice: which of start/stop/step are given
  int depth = 1;              // levels of the tree below and including this node
  int line = 1;
  int col = 1;
};

struct JinjaNode {
  enum class Kind { block, text, output, if_, for_, set, macro };
  Kind kind = Kind::block;
  std::string text;                 // text; set: variable; macro: name
  std::string attr;                 // set: namespace attribute
  std::vector<std::string> names;   // for: targets; macro: parameters
  std::vector<ExprPtr> exprs;       // output/set: the value; if: conditions; for: iterable; macro: defaults
  std::vector<std::unique_ptr<JinjaNode>> children;  // block: statements; if: one body per condition + else
  std::unique_ptr<JinjaNode> else_body;
  int line = 1;
  int col = 1;
};

}  // namespace detail

namespace {

using detail::Expr;
using detail::ExprPtr;
using detail::JinjaNode;

// --- Lexing of the template into text and tags ---------------------------------------------------

struct Segment {
  enum class Kind { text, output, statement };
  Kind kind;
  std::string body;  // text, or the tag's inside without delimiters and `-`
  int line;
  int col;
};

struct Position {
  int line = 1;
  int col = 1;
};

// Positions asked for in increasing order, each found from the last: counting from the start each
// time made a template of many tags or tokens quadratic.
class PositionCursor {
 public:
  explicit PositionCursor(std::string_view text) : text_(text) {}
  Position at(std::size_t offset) {
    if (offset < at_) {
      at_ = 0;
      p_ = Position{};
    }
    for (; at_ < offset && at_ < text_.size(); ++at_) {
      if (text_[at_] == '\n') {
        ++p_.line;
        p_.col = 1;
      } else {
        ++p_.col;
      }
    }
    return p_;
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
  Position p_;
};

[[noreturn]] void syntax_error(const std::string& name, int line, int col, const std::string& message) {
  throw_input(SourceLocation{name, line, col, ""}, "chat template: {}", message);
}

// The first `needle` in `text` at or after `from`, or npos. glibc's memmem (the two-way
// algorithm) is linear in the text: std::string::find takes time in both lengths for some needles
// ('a' * 10**7 ~ 'b' in 'a' * 6 * 10**7 ran for hours), and libstdc++'s boyer_moore_searcher
// builds its table in time quadratic in the needle.
std::size_t find_text(std::string_view text, std::string_view needle, std::size_t from) {
  if (from > text.size()) return std::string_view::npos;
  if (needle.empty()) return from;
  const void* at = ::memmem(text.data() + from, text.size() - from, needle.data(), needle.size());
  return at == nullptr ? std::string_view::npos : static_cast<std::size_t>(static_cast<const char*>(at) - text.data());
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Finds the end of a tag opened at `from`, skipping quoted strings; npos when unterminated.
std::size_t find_close(std::string_view src, std::size_t from, std::string_view close) {
  char quote = 0;
  for (std::size_t i = from; i < src.size(); ++i) {
    const char c = src[i];
    if (quote != 0) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (src.compare(i, close.size(), close) == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

std::vector<Segment> split_segments(std::string_view src, const std::string& name) {
  std::vector<Segment> out;
  std::string text;
  bool strip_next = false;  // a `-` closer: drop leading whitespace of the next text
  bool trim_next = false;   // trim_blocks: drop one newline after a block tag
  std::size_t i = 0;
  auto flush_text = [&](const std::string& t, Position p) {
    if (!t.empty()) out.push_back({Segment::Kind::text, t, p.line, p.col});
  };
  Position text_start;
  PositionCursor cursor(src);
  while (i <= src.size()) {
    const std::size_t open = src.find('{', i);
    std::size_t tag = std::string_view::npos;
    for (std::size_t at = open; at != std::string_view::npos && at + 1 < src.size(); at = src.find('{', at + 1)) {
      const char next = src[at + 1];
      if (next == '{' || next == '%' || next == '#') {
        tag = at;
        break;
      }
    }
    std::string chunk(src.substr(i, tag == std::string_view::npos ? std::string_view::npos : tag - i));
    if (strip_next) {
      std::size_t k = 0;
      while (k < chunk.size() && is_space(chunk[k])) ++k;
      chunk.erase(0, k);
    } else if (trim_next && !chunk.empty() && chunk[0] == '\n') {
      chunk.erase(0, 1);
    }
    strip_next = trim_next = false;
    if (tag == std::string_view::npos) {
      flush_text(chunk, text_start);
      break;
    }
    const char kind = src[tag + 1];
    const bool minus_open = tag + 2 < src.size() && src[tag + 2] == '-';
    const bool plus_open = tag + 2 < src.size() && src[tag + 2] == '+';
    if (minus_open) {
      while (!chunk.empty() && is_space(chunk.back())) chunk.pop_back();
    } else if (kind != '{' && !plus_open) {
      // lstrip_blocks: a block or comment tag preceded on its line by blanks only takes them.
      std::size_t k = tag;
      while (k > i && (src[k - 1] == ' ' || src[k - 1] == '\t')) --k;
      if (k == 0 || src[k - 1] == '\n') chunk.resize(chunk.size() - std::min(chunk.size(), tag - k));
    }
    flush_text(chunk, text_start);
    const std::string_view close = kind == '{' ? "}}" : kind == '%' ? "%}" : "#}";
    const std::size_t body_start = tag + 2 + ((minus_open || plus_open) ? 1 : 0);
    const std::size_t end = find_close(src, body_start, close);
    const Position p = cursor.at(tag);
    if (end == std::string_view::npos) syntax_error(name, p.line, p.col, fmt::format("unclosed '{{{}'", kind));
    bool minus_close = end > body_start && src[end - 1] == '-';
    std::string body(src.substr(body_start, end - body_start - (minus_close ? 1 : 0)));
    if (kind == '{') out.push_back({Segment::Kind::output, body, p.line, p.col});
    if (kind == '%') out.push_back({Segment::Kind::statement, body, p.line, p.col});
    strip_next = minus_close;
    trim_next = !minus_close && kind != '{';
    i = end + 2;
    text_start = cursor.at(i);
  }
  return out;
}

// --- Expression tokens and parser ------------------------------------------------------------------

struct Token {
  enum class Kind { name, string, integer, number, op, end };
  Kind kind;
  std::string text;
  int line;
  int col;
};

std::vector<Token> tokenize(const std::string& src, const std::string& name, int line, int col) {
  std::vector<Token> out;
  std::size_t i = 0;
  PositionCursor cursor(src);
  auto where = [&](std::size_t at) {
    Position p = cursor.at(at);
    return std::pair<int, int>{line + p.line - 1, p.line == 1 ? col + p.col + 1 : p.col};
  };
  while (i < src.size()) {
    const char c = src[i];
    if (is_space(c)) {
      ++i;
      continue;
    }
    const auto [l, cl] = where(i);
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < src.size() && (std::isalnum(static_cast<unsigned char>(src[j])) || src[j] == '_')) ++j;
      out.push_back({Token::Kind::name, src.substr(i, j - i), l, cl});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) ++j;
      bool real = false;
      if (j + 1 < src.size() && src[j] == '.' && std::isdigit(static_cast<unsigned char>(src[j + 1]))) {
        real = true;
        ++j;
        while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) ++j;
      }
      out.push_back({real ? Token::Kind::number : Token::Kind::integer, src.substr(i, j - i), l, cl});
      i = j;
    } else if (c == '\'' || c == '"') {
      std::string value;
      std::size_t j = i + 1;
      for (; j < src.size() && src[j] != c; ++j) {
        if (src[j] == '\\' && j + 1 < src.size()) {
          const char e = src[++j];
          switch (e) {
            case 'n': value += '\n'; break;
            case 't': value += '\t'; break;
            case 'r': value += '\r'; break;
            case '\\': value += '\\'; break;
            case '\'': value += '\''; break;
            case '"': value += '"'; break;
            default: value += '\\'; value += e; break;
          }
        } else {
          value += src[j];
        }
      }
      if (j >= src.size()) syntax_error(name, l, cl, "unterminated string");
      out.push_back({Token::Kind::string, value, l, cl});
      i = j + 1;
    } else {
      static const char* const kOps[] = {"==", "!=", "<=", ">=", "//", "**", "(", ")", "[", "]", "{", "}",
                                         ",", ":", ".", "|", "~", "+", "-", "*", "/", "%", "<", ">", "="};
      bool matched = false;
      for (const char* op : kOps) {
        const std::size_t n = std::char_traits<char>::length(op);
        if (src.compare(i, n, op) == 0) {
          out.push_back({Token::Kind::op, op, l, cl});
          i += n;
          matched = true;
          break;
        }
      }
      if (!matched) syntax_error(name, l, cl, fmt::format("unexpected character '{}'", c));
    }
  }
  out.push_back({Token::Kind::end, "", line, col});
  return out;
}

class ExprParser {
 public:
  ExprParser(std::vector<Token> tokens, const std::string& name) : t_(std::move(tokens)), name_(name) {}

  const Token& peek(std::size_t ahead = 0) const { return t_[std::min(pos_ + ahead, t_.size() - 1)]; }
  bool at_end() const { return peek().kind == Token::Kind::end; }
  bool is_op(const char* op, std::size_t ahead = 0) const {
    return peek(ahead).kind == Token::Kind::op && peek(ahead).text == op;
  }
  bool is_name(const char* word, std::size_t ahead = 0) const {
    return peek(ahead).kind == Token::Kind::name && peek(ahead).text == word;
  }
  Token next() { return t_[std::min(pos_++, t_.size() - 1)]; }
  [[noreturn]] void fail(const std::string& message) const {
    syntax_error(name_, peek().line, peek().col, message);
  }
  void expect_op(const char* op) {
    if (!is_op(op)) fail(fmt::format("expected '{}', got '{}'", op, peek().text));
    ++pos_;
  }
  std::string expect_name() {
    if (peek().kind != Token::Kind::name) fail(fmt::format("expected a name, got '{}'", peek().text));
    return next().text;
  }
  void expect_end() {
    if (!at_end()) fail(fmt::format("unexpected '{}'", peek().text));
  }

  ExprPtr expression() {
    const Nest nest(*this);
    ExprPtr value = or_expr();
    if (is_name("if")) {
      ++pos_;
      auto e = make(Expr::Kind::cond);
      ExprPtr cond = or_expr();
      ExprPtr otherwise;
      if (is_name("else")) {
        ++pos_;
        otherwise = expression();
      } else {
        otherwise = make(Expr::Kind::literal);  // undefined-like: renders as ''
        otherwise->value = "";
      }
      e->args.push_back(std::move(value));
      e->args.push_back(std::move(cond));
      e->args.push_back(std::move(otherwise));
      return settle(std::move(e));
    }
    return value;
  }

 private:
  // The parser recurses once per level of nesting and evaluation once per level of the tree, so
  // both are bounded (kMaxJinjaNesting) to keep a hostile template from overflowing the stack.
  struct Nest {
    explicit Nest(ExprParser& parser) : p(parser) {
      if (++p.nesting_ > kMaxJinjaNesting) {
        p.fail(fmt::format("expression nested deeper than {} levels", kMaxJinjaNesting));
      }
    }
    ~Nest() { --p.nesting_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    ExprParser& p;
  };
  // Sets the depth of `e` from its operands; a chain (a + b + ... or x|f|g...) deepens the tree
  // without recursing in the parser, so it is checked here.
  ExprPtr settle(ExprPtr e) const {
    int below = 0;
    for (const ExprPtr& arg : e->args) {
      if (arg) below = std::max(below, arg->depth);
    }
    for (const auto& kv : e->kwargs) {
      if (kv.second) below = std::max(below, kv.second->depth);
    }
    e->depth = below + 1;
    if (e->depth > kMaxJinjaNesting) {
      syntax_error(name_, e->line, e->col, fmt::format("expression nested deeper than {} levels", kMaxJinjaNesting));
    }
    return e;
  }
  ExprPtr make(Expr::Kind kind) const {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->line = peek().line;
    e->col = peek().col;
    return e;
  }
  ExprPtr binary(std::string op, ExprPtr a, ExprPtr b) const {
    auto e = make(Expr::Kind::binary);
    e->name = std::move(op);
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    return settle(std::move(e));
  }
  ExprPtr or_expr() {
    ExprPtr a = and_expr();
    while (is_name("or")) {
      ++pos_;
      a = binary("or", std::move(a), and_expr());
    }
    return a;
  }
  ExprPtr and_expr() {
    ExprPtr a = not_expr();
    while (is_name("and")) {
      ++pos_;
      a = binary("and", std::move(a), not_expr());
    }
    return a;
  }
  ExprPtr not_expr() {
    if (is_name("not")) {
      const Nest nest(*this);
      ++pos_;
      auto e = make(Expr::Kind::unary);
      e->name = "not";
      e->args.push_back(not_expr());
      return settle(std::move(e));
    }
    return compare();
  }
  ExprPtr compare() {
    ExprPtr a = concat();
    while (true) {
      std::string op;
      if (is_op("==") || is_op("!=") || is_op("<") || is_op(">") || is_op("<=") || is_op(">=")) {
        op = next().text;
      } else if (is_name("in")) {
        ++pos_;
        op = "in";
      } else if (is_name("not") && is_name("in", 1)) {
        pos_ += 2;
        op = "not in";
      } else {
        return a;
      }
      a = binary(op, std::move(a), concat());
    }
  }
  ExprPtr concat() {
    ExprPtr a = sum();
    while (is_op("~")) {
      ++pos_;
      a = binary("~", std::move(a), sum());
    }
    return a;
  }
  ExprPtr sum() {
    ExprPtr a = product();
    while (is_op("+") || is_op("-")) {
      const std::string op = next().text;
      a = binary(op, std::move(a), product());
    }
    return a;
  }
  ExprPtr product() {
    ExprPtr a = unary();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      const std::string op = next().text;
      a = binary(op, std::move(a), unary());
    }
    return a;
  }
  ExprPtr unary() {
    if (is_op("-") || is_op("+")) {
      const Nest nest(*this);
      auto e = make(Expr::Kind::unary);
      e->name = next().text;
      e->args.push_back(unary());
      return settle(std::move(e));
    }
    return filters(postfix(primary()));
  }
  void call_args(Expr& e) {
    expect_op("(");
    while (!is_op(")")) {
      if (peek().kind == Token::Kind::name && is_op("=", 1)) {
        std::string key = next().text;
        ++pos_;
        e.kwargs.emplace_back(std::move(key), expression());
      } else {
        e.args.push_back(expression());
      }
      if (!is_op(")")) expect_op(",");
    }
    expect_op(")");
  }
  ExprPtr postfix(ExprPtr node) {
    while (true) {
      if (is_op(".")) {
        ++pos_;
        auto e = make(Expr::Kind::attr);
        e->name = expect_name();
        e->args.push_back(std::move(node));
        node = settle(std::move(e));
      } else if (is_op("[")) {
        ++pos_;
        ExprPtr parts[3];
        bool has[3] = {false, false, false};
        bool slice = false;
        for (int k = 0; k < 3; ++k) {
          if (!is_op(":") && !is_op("]")) {
            parts[k] = expression();
            has[k] = true;
          }
          if (is_op(":") && k < 2) {
            ++pos_;
            slice = true;
          } else {
            break;
          }
        }
        expect_op("]");
        auto e = make(slice ? Expr::Kind::slice : Expr::Kind::item);
        e->args.push_back(std::move(node));
        if (!slice && !has[0]) fail("expected an index");
        for (int k = 0; k < 3; ++k) {
          e->has[k] = has[k];
          if (has[k]) e->args.push_back(std::move(parts[k]));
        }
        node = settle(std::move(e));
      } else if (is_op("(")) {
        auto e = make(Expr::Kind::call);
        e->args.push_back(std::move(node));
        call_args(*e);
        node = settle(std::move(e));
      } else {
        return node;
      }
    }
  }
  ExprPtr filters(ExprPtr node) {
    while (true) {
      if (is_op("|")) {
        ++pos_;
        auto e = make(Expr::Kind::filter);
        e->name = expect_name();
        e->args.push_back(std::move(node));
        if (is_op("(")) call_args(*e);
        node = settle(std::move(e));
      } else if (is_name("is")) {
        ++pos_;
        auto e = make(Expr::Kind::test);
        if (is_name("not")) {
          ++pos_;
          e->negated = true;
        }
        e->name = expect_name();
        e->args.push_back(std::move(node));
        if (is_op("(")) call_args(*e);
        node = settle(std::move(e));
      } else {
        return node;
      }
    }
  }
  ExprPtr primary() {
    const Token& tok = peek();
    if (tok.kind == Token::Kind::string) {
      auto e = make(Expr::Kind::literal);
      std::string s = next().text;
      while (peek().kind == Token::Kind::string) s += next().text;  // adjacent literals join
      e->value = s;
      return e;
    }
    if (tok.kind == Token::Kind::integer) {
      auto e = make(Expr::Kind::literal);
      int64_t value = 0;
      const std::string& digits = tok.text;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (ec != std::errc() || end != digits.data() + digits.size()) {
        fail(fmt::format("integer {} does not fit in 64 bits", digits));
      }
      ++pos_;
      e->value = value;
      return e;
    }
    if (tok.kind == Token::Kind::number) {
      auto e = make(Expr::Kind::literal);
      double value = 0;
      const std::string& digits = tok.text;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(value)) {
        fail(fmt::format("number {} is out of range", digits));
      }
      ++pos_;
      e->value = value;
      return e;
    }
    if (tok.kind == Token::Kind::name) {
      const std::string word = tok.text;
      auto e = make(Expr::Kind::literal);
      if (word == "true" || word == "True") {
        ++pos_;
        e->value = true;
        return e;
      }
      if (word == "false" || word == "False") {
        ++pos_;
        e->value = false;
        return e;
      }
      if (word == "none" || word == "None") {
        ++pos_;
        e->value = nullptr;
        return e;
      }
      e->kind = Expr::Kind::name;
      e->name = next().text;
      return e;
    }
    if (is_op("(")) {
      ++pos_;
      ExprPtr inner = expression();
      expect_op(")");
      return inner;
    }
    if (is_op("[")) {
      ++pos_;
      auto e = make(Expr::Kind::list);
      while (!is_op("]")) {
        e->args.push_back(expression());
        if (!is_op("]")) expect_op(",");
      }
      expect_op("]");
      return settle(std::move(e));
    }
    if (is_op("{")) {
      ++pos_;
      auto e = make(Expr::Kind::dict);
      while (!is_op("}")) {
        e->args.push_back(expression());
        expect_op(":");
        e->args.push_back(expression());
        if (!is_op("}")) expect_op(",");
      }
      expect_op("}");
      return settle(std::move(e));
    }
    fail(tok.kind == Token::Kind::end ? "unexpected end of expression" : fmt::format("unexpected '{}'", tok.text));
  }

  std::vector<Token> t_;
  std::size_t pos_ = 0;
  int nesting_ = 0;
  const std::string& name_;
};

// --- Statement tree ---------------------------------------------------------------------------------

class TreeBuilder {
 public:
  TreeBuilder(const std::vector<Segment>& segments, const std::string& name) : s_(segments), name_(name) {}

  std::unique_ptr<JinjaNode> build() {
    auto root = std::make_unique<JinjaNode>();
    const std::string end = body(*root, {});
    if (!end.empty()) fail_at(s_[i_ - 1], fmt::format("unexpected '{}'", end));
    return root;
  }

 private:
  [[noreturn]] void fail_at(const Segment& seg, const std::string& message) const {
    syntax_error(name_, seg.line, seg.col, message);
  }

  // Appends statements to `block` until one of `stops` (returned, consumed) or the end ("").
  // Each nested if/for/macro recurses here, so the nesting is bounded (kMaxJinjaNesting).
  std::string body(JinjaNode& block, const std::vector<std::string>& stops) {
    if (depth_ > kMaxJinjaNesting) {
      fail_at(s_[i_ - 1], fmt::format("statements nested deeper than {} levels", kMaxJinjaNesting));
    }
    ++depth_;
    std::string end = body_items(block, stops);
    --depth_;
    return end;
  }

  std::string body_items(JinjaNode& block, const std::vector<std::string>& stops) {
    while (i_ < s_.size()) {
      const Segment& seg = s_[i_++];
      if (seg.kind == Segment::Kind::text) {
        auto n = std::make_unique<JinjaNode>();
        n->kind = JinjaNode::Kind::text;
        n->text = seg.body;
        n->line = seg.line;
        block.children.push_back(std::move(n));
        continue;
      }
      ExprParser p(tokenize(seg.body, name_, seg.line, seg.col), name_);
      if (seg.kind == Segment::Kind::output) {
        auto n = std::make_unique<JinjaNode>();
        n->kind = JinjaNode::Kind::output;
        n->line = seg.line;
        n->exprs.push_back(p.expression());
        p.expect_end();
        block.children.push_back(std::move(n));
        continue;
      }
      const std::string word = p.expect_name();
      if (std::find(stops.begin(), stops.end(), word) != stops.end()) {
        current_ = std::make_unique<ExprParser>(std::move(p));
        return word;
      }
      if (word == "if") {
        block.children.push_back(parse_if(p, seg));
      } else if (word == "for") {
        block.children.push_back(parse_for(p, seg));
      } else if (word == "set") {
        block.children.push_back(parse_set(p, seg));
      } else if (word == "macro") {
        block.children.push_back(parse_macro(p, seg));
      } else {
        fail_at(seg, fmt::format("unsupported statement '{}'", word));
      }
    }
    if (!stops.empty()) {
      const int line = s_.empty() ? 1 : s_.back().line;
      syntax_error(name_, line, 1, fmt::format("missing '{{% {} %}}'", stops.back()));
    }
    return "";
  }

  std::unique_ptr<JinjaNode> parse_if(ExprParser& p, const Segment& seg) {
    auto n = std::make_unique<JinjaNode>();
    n->kind = JinjaNode::Kind::if_;
    n->line = seg.line;
    n->exprs.push_back(p.expression());
    p.expect_end();
    while (true) {
      auto branch = std::make_unique<JinjaNode>();
      const std::string end = body(*branch, {"elif", "else", "endif"});
      n->children.push_back(std::move(branch));
      if (end == "elif") {
        n->exprs.push_back(current_->expression());
        current_->expect_end();
        continue;
      }
      if (end == "else") {
        current_->expect_end();
        n->else_body = std::make_unique<JinjaNode>();
        body(*n->else_body, {"endif"});
      }
      current_->expect_end();
      return n;
    }
  }

  std::unique_ptr<JinjaNode> parse_for(ExprParser& p, const Segment& seg) {
    auto n = std::make_unique<JinjaNode>();
    n->kind = JinjaNode::Kind::for_;
    n->line = seg.line;
    n->names.push_back(p.expect_name());
    while (p.is_op(",")) {
      p.next();
      n->names.push_back(p.expect_name());
    }
    if (!p.is_name("in")) p.fail("expected 'in'");
    p.next();
    n->exprs.push_back(p.expression());
    p.expect_end();
    auto loop_body = std::make_unique<JinjaNode>();
    const std::string end = body(*loop_body, {"else", "endfor"});
    n->children.push_back(std::move(loop_body));
    if (end == "else") {
      current_->expect_end();
      n->else_body = std::make_unique<JinjaNode>();
      body(*n->else_body, {"endfor"});
    }
    current_->expect_end();
    return n;
  }

  std::unique_ptr<JinjaNode> parse_set(ExprParser& p, const Segment& seg) {
    auto n = std::make_unique<JinjaNode>();
    n->kind = JinjaNode::Kind::set;
    n->line = seg.line;
    n->text = p.expect_name();
    if (p.is_op(".")) {
      p.next();
      n->attr = p.expect_name();
    }
    if (!p.is_op("=")) fail_at(seg, "block {% set %} is not supported; expected '='");
    p.next();
    n->exprs.push_back(p.expression());
    p.expect_end();
    return n;
  }

  std::unique_ptr<JinjaNode> parse_macro(ExprParser& p, const Segment& seg) {
    auto n = std::make_unique<JinjaNode>();
    n->kind = JinjaNode::Kind::macro;
    n->line = seg.line;
    n->text = p.expect_name();
    p.expect_op("(");
    while (!p.is_op(")")) {
      n->names.push_back(p.expect_name());
      if (p.is_op("=")) {
        p.next();
        n->exprs.push_back(p.expression());
      } else {
        n->exprs.push_back(nullptr);
      }
      if (!p.is_op(")")) p.expect_op(",");
    }
    p.expect_op(")");
    p.expect_end();
    auto macro_body = std::make_unique<JinjaNode>();
    body(*macro_body, {"endmacro"});
    current_->expect_end();
    n->children.push_back(std::move(macro_body));
    return n;
  }

  const std::vector<Segment>& s_;
  const std::string& name_;
  std::size_t i_ = 0;
  int depth_ = 0;
  std::unique_ptr<ExprParser> current_;  // the parser of the tag that ended the last body
};

// --- Values and evaluation ----------------------------------------------------------------------------

struct Value {
  enum class Kind { undefined, data, ns, macro };
  Kind kind = Kind::undefined;
  // Shared and immutable: a variable read (`messages`, in a loop over the messages) is not a copy,
  // which made templates that read the conversation once per message quadratic.
  std::shared_ptr<const Json> data;
  std::shared_ptr<Json> ns;          // namespace(): shared, so `set ns.x` is seen everywhere
  const JinjaNode* macro = nullptr;

  static Value of(Json j) {
    Value v;
    v.kind = Kind::data;
    v.data = std::make_shared<const Json>(std::move(j));
    return v;
  }
  const Json& json() const {
    static const Json kNull = nullptr;
    if (kind == Kind::ns) return *ns;
    return kind == Kind::data ? *data : kNull;
  }
};

class Renderer {
 public:
  Renderer(const std::string& name, const Json& context, const JinjaLimits& limits)
      : name_(name), limits_(limits) {
    scopes_.emplace_back();
    for (const auto& [key, value] : context.items()) scopes_.back()[key] = Value::of(value);
  }

  void run(const JinjaNode& node, std::string& out) {
    const Deeper deeper(*this, node.line);
    step(node.line);
    run_node(node, out);
  }

 private:
  // Levels of run() and eval() in progress. The parser bounds each template's nesting, and this
  // bounds their sum across macro calls (a macro's body nests again inside the call), so the C++
  // stack stays within a few megabytes whatever the template.
  static constexpr int kMaxRenderDepth = 2 * kMaxJinjaNesting + 4 * kMaxJinjaMacroDepth;
  struct Deeper {
    Deeper(Renderer& r, int line) : renderer(r) {
      if (++renderer.depth_ > kMaxRenderDepth) {
        renderer.fail(line, fmt::format("template nested deeper than {} levels (macro calls included)", kMaxRenderDepth));
      }
    }
    ~Deeper() { --renderer.depth_; }
    Deeper(const Deeper&) = delete;
    Deeper& operator=(const Deeper&) = delete;
    Renderer& renderer;
  };

  void step(int line, int64_t count = 1) {
    steps_ += count;
    if (steps_ > limits_.max_steps) {
      fail(line, fmt::format("the render exceeds its budget of {} steps (a loop too long?)", limits_.max_steps));
    }
  }

  // Charges the bytes a value takes (strings' bytes, 16 per entry) to the render's budget, and
  // refuses a value nested deeper than kMaxJinjaValueDepth (printing, comparing and copying one
  // recurse once per level).
  void charge(const Json& j, int line) { charge_bytes(weigh(j, 0, line), line); }
  void charge_bytes(int64_t bytes, int line) {
    value_bytes_ += bytes;
    if (value_bytes_ > limits_.max_value_bytes) {
      fail(line, fmt::format("the render exceeds its budget of {} bytes of values evaluated",
                             limits_.max_value_bytes));
    }
  }
  int64_t weigh(const Json& j, int depth, int line) const {
    constexpr int64_t kEntryBytes = 16;
    if (j.is_string()) return kEntryBytes + static_cast<int64_t>(j.get_ref<const std::string&>().size());
    if (!j.is_structured()) return kEntryBytes;
    if (depth >= kMaxJinjaValueDepth) fail(line, fmt::format("a value nested deeper than {} levels", kMaxJinjaValueDepth));
    int64_t total = kEntryBytes;
    for (const Json& item : j) total += weigh(item, depth + 1, line);
    if (j.is_object()) {
      for (const auto& item : j.items()) total += static_cast<int64_t>(item.key().size());
    }
    return total;
  }

  // A string the template builds, or the rendered text, may not exceed the output budget.
  void check_size(std::size_t bytes, int line) const {
    if (bytes > static_cast<std::size_t>(limits_.max_output_bytes)) {
      fail(line, fmt::format("the text would exceed {} bytes (the render's output budget)", limits_.max_output_bytes));
    }
  }
  void append(std::string& out, std::string_view text, int line) const {
    check_size(out.size() + text.size(), line);
    out += text;
  }

  void run_node(const JinjaNode& node, std::string& out) {
    switch (node.kind) {
      case JinjaNode::Kind::block:
        for (const auto& child : node.children) run(*child, out);
        return;
      case JinjaNode::Kind::text:
        append(out, node.text, node.line);
        return;
      case JinjaNode::Kind::output:
        append(out, to_text(eval(*node.exprs[0])), node.line);
        return;
      case JinjaNode::Kind::if_:
        for (std::size_t k = 0; k < node.exprs.size(); ++k) {
          if (truthy(eval(*node.exprs[k]))) {
            run(*node.children[k], out);
            return;
          }
        }
        if (node.else_body) run(*node.else_body, out);
        return;
      case JinjaNode::Kind::for_:
        run_for(node, out);
        return;
      case JinjaNode::Kind::set: {
        Value value = eval(*node.exprs[0]);
        if (node.attr.empty()) {
          scopes_.back()[node.text] = std::move(value);
        } else {
          Value* target = lookup(node.text);
          if (target == nullptr || target->kind != Value::Kind::ns) {
            fail(node.line, fmt::format("'{}' is not a namespace", node.text));
          }
          (*target->ns)[node.attr] = value.json();
        }
        return;
      }
      case JinjaNode::Kind::macro: {
        Value m;
        m.kind = Value::Kind::macro;
        m.macro = &node;
        scopes_.back()[node.text] = m;
        return;
      }
    }
  }

  [[noreturn]] void fail(int line, const std::string& message) const {
    throw_input(SourceLocation{name_, line, 1, ""}, "chat template: {}", message);
  }

  Value* lookup(const std::string& key) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(key);
      if (found != it->end()) return &found->second;
    }
    return nullptr;
  }

  void run_for(const JinjaNode& node, std::string& out) {
    const Value iterable = eval(*node.exprs[0]);
    std::vector<Json> items;
    const Json& j = iterable.json();
    // Each iteration is a step, charged before the items are copied out (a string's characters
    // are at most its bytes).
    if (j.is_structured()) step(node.line, static_cast<int64_t>(j.size()));
    charge(j, node.line);  // the items are copied out
    if (j.is_string()) step(node.line, static_cast<int64_t>(j.get_ref<const std::string&>().size()));
    if (j.is_array()) {
      for (const Json& item : j) items.push_back(item);
    } else if (j.is_object()) {
      for (const auto& [key, value] : j.items()) items.push_back(key);
    } else if (j.is_string()) {
      for (const std::string& ch : utf8_chars(j.get<std::string>())) items.push_back(ch);
    } else if (iterable.kind != Value::Kind::undefined && !j.is_null()) {
      fail(node.line, "for: the value is not iterable");
    }
    if (items.empty()) {
      if (node.else_body) run(*node.else_body, out);
      return;
    }
    scopes_.emplace_back();
    const int64_t n = static_cast<int64_t>(items.size());
    for (int64_t k = 0; k < n; ++k) {
      auto& scope = scopes_.back();
      scope.clear();
      if (node.names.size() == 1) {
        scope[node.names[0]] = Value::of(items[k]);
      } else {
        if (!items[k].is_array() || items[k].size() != node.names.size()) {
          fail(node.line, fmt::format("for: cannot unpack into {} names", node.names.size()));
        }
        for (std::size_t m = 0; m < node.names.size(); ++m) scope[node.names[m]] = Value::of(items[k][m]);
      }
      Json loop = Json::object();
      loop["index0"] = k;
      loop["index"] = k + 1;
      loop["revindex"] = n - k;
      loop["revindex0"] = n - k - 1;
      loop["first"] = k == 0;
      loop["last"] = k == n - 1;
      loop["length"] = n;
      if (k > 0) loop["previtem"] = items[k - 1];
      if (k + 1 < n) loop["nextitem"] = items[k + 1];
      scope["loop"] = Value::of(loop);
      run(*node.children[0], out);
    }
    scopes_.pop_back();
  }

  // The characters of `s` one string each: 16 bytes of budget per byte of `s`, charged before
  // they are made (a 64 MiB string would take gigabytes).
  std::vector<std::string> charged_chars(const std::string& s, int line) {
    charge_bytes(16 * static_cast<int64_t>(s.size()), line);
    return utf8_chars(s);
  }

  // The number of characters utf8_chars gives, without making them.
  static std::size_t utf8_length(const std::string& s) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < s.size(); ++count) i += utf8_sequence_length_of(static_cast<unsigned char>(s[i]));
    return count;
  }
  static std::size_t utf8_sequence_length_of(unsigned char c) { return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

  static std::vector<std::string> utf8_chars(const std::string& s) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < s.size();) {
      const std::size_t n = utf8_sequence_length_of(static_cast<unsigned char>(s[i]));
      out.push_back(s.substr(i, n));
      i += n;
    }
    return out;
  }

  static bool truthy(const Value& v) {
    if (v.kind == Value::Kind::undefined) return false;
    if (v.kind != Value::Kind::data) return true;
    const Json& j = *v.data;
    if (j.is_null()) return false;
    if (j.is_boolean()) return j.get<bool>();
    if (j.is_number_integer()) return j.get<int64_t>() != 0;
    if (j.is_number()) return j.get<double>() != 0.0;
    if (j.is_string()) return !j.get_ref<const std::string&>().empty();
    return !j.empty();
  }

  // Python's json.dumps(ensure_ascii=False) layout: ", " and ": " separators, or with an indent
  // one entry a line, "," and ": ". The text is checked against the output budget as it grows.
  std::string python_json(const Json& j, std::optional<int64_t> indent = std::nullopt, int line = 1) const {
    std::string out;
    write_json(j, indent, 0, out, line);
    return out;
  }
  void write_json(const Json& j, std::optional<int64_t> indent, int64_t level, std::string& out, int line) const {
    if (!j.is_structured() || j.empty()) {
      append(out, j.dump(-1, ' ', false), line);
      return;
    }
    const bool object = j.is_object();
    append(out, object ? "{" : "[", line);
    auto newline = [&](int64_t at) {
      if (!indent) return;
      const int64_t spaces = std::max<int64_t>(0, *indent) * at;
      check_size(out.size() + 1 + static_cast<std::size_t>(spaces), line);
      out += '\n';
      out.append(static_cast<std::size_t>(spaces), ' ');
    };
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) append(out, indent ? "," : ", ", line);
      first = false;
      newline(level + 1);
      if (object) append(out, Json(it.key()).dump(-1, ' ', false) + ": ", line);
      write_json(it.value(), indent, level + 1, out, line);
    }
    newline(level);
    append(out, object ? "}" : "]", line);
  }

  std::string to_text(const Value& v) const {
    if (v.kind == Value::Kind::undefined) return "";
    const Json& j = v.json();
    if (j.is_string()) return j.get<std::string>();
    if (j.is_null()) return "None";
    if (j.is_boolean()) return j.get<bool>() ? "True" : "False";
    if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
    if (j.is_number()) {
      const double d = j.get<double>();
      if (std::floor(d) == d && std::abs(d) < 1e16) return fmt::format("{:.1f}", d);
      return fmt::format("{}", d);
    }
    // Python prints lists and dicts with repr(); templates rarely do, tojson is the norm.
    return python_json(j);
  }

  static std::string strip_chars(const std::string& s, const std::optional<std::string>& chars, bool left,
                                 bool right) {
    // A table of the bytes to strip: looking each byte up in `chars` took time in both lengths.
    std::array<bool, 256> strip{};
    for (const char c : chars ? *chars : std::string(" \t\n\r\f\v")) strip[static_cast<unsigned char>(c)] = true;
    auto stripped = [&](char c) { return strip[static_cast<unsigned char>(c)]; };
    std::size_t b = 0;
    std::size_t e = s.size();
    if (left) {
      while (b < e && stripped(s[b])) ++b;
    }
    if (right) {
      while (e > b && stripped(s[e - 1])) --e;
    }
    return s.substr(b, e - b);
  }

  static Json split(const std::string& s, const std::optional<std::string>& sep) {
    Json out = Json::array();
    if (!sep) {
      std::size_t i = 0;
      while (i < s.size()) {
        while (i < s.size() && is_space(s[i])) ++i;
        if (i >= s.size()) break;
        std::size_t j = i;
        while (j < s.size() && !is_space(s[j])) ++j;
        out.push_back(s.substr(i, j - i));
        i = j;
      }
      return out;
    }
    std::size_t start = 0;
    while (true) {
      const std::size_t at = sep->empty() ? std::string::npos : find_text(s, *sep, start);
      if (at == std::string::npos) {
        out.push_back(s.substr(start));
        return out;
      }
      out.push_back(s.substr(start, at - start));
      start = at + sep->size();
    }
  }

  std::optional<std::string> string_arg(const std::vector<Value>& args, std::size_t k, int line) const {
    if (k >= args.size() || args[k].json().is_null()) return std::nullopt;
    if (!args[k].json().is_string()) fail(line, "expected a string argument");
    return args[k].json().get<std::string>();
  }

  Value call_method(const Value& self, const std::string& method, const std::vector<Value>& args, int line) {
    const Json& j = self.json();
    if (j.is_string()) {
      const std::string& s = j.get_ref<const std::string&>();
      if (method == "startswith") return Value::of(s.starts_with(string_arg(args, 0, line).value_or("")));
      if (method == "endswith") return Value::of(s.ends_with(string_arg(args, 0, line).value_or("")));
      if (method == "strip") return Value::of(strip_chars(s, string_arg(args, 0, line), true, true));
      if (method == "lstrip") return Value::of(strip_chars(s, string_arg(args, 0, line), true, false));
      if (method == "rstrip") return Value::of(strip_chars(s, string_arg(args, 0, line), false, true));
      if (method == "split") return Value::of(split(s, string_arg(args, 0, line)));
      if (method == "upper" || method == "lower") {
        std::string out = s;
        for (char& ch : out) ch = static_cast<char>(method == "upper" ? std::toupper(ch) : std::tolower(ch));
        return Value::of(out);
      }
      if (method == "replace") {
        const std::string from = string_arg(args, 0, line).value_or("");
        const std::string to = string_arg(args, 1, line).value_or("");
        std::string out;
        std::size_t start = 0;
        for (std::size_t at = from.empty() ? std::string::npos : find_text(s, from, 0); at != std::string::npos;
             at = find_text(s, from, start)) {
          append(out, std::string_view(s).substr(start, at - start), line);
          append(out, to, line);
          start = at + from.size();
        }
        return Value::of(out + s.substr(start));
      }
      if (method == "title") {
        std::string out = s;
        bool word_start = true;
        for (char& ch : out) {
          ch = static_cast<char>(word_start ? std::toupper(ch) : std::tolower(ch));
          word_start = !std::isalpha(static_cast<unsigned char>(ch));
        }
        return Value::of(out);
      }
    }
    if (j.is_object()) {
      if (method == "items") {
        Json out = Json::array();
        for (const auto& [key, value] : j.items()) out.push_back(Json::array({key, value}));
        return Value::of(out);
      }
      if (method == "keys" || method == "values") {
        Json out = Json::array();
        for (const auto& [key, value] : j.items()) out.push_back(method == "keys" ? Json(key) : value);
        return Value::of(out);
      }
      if (method == "get") {
        const std::string key = string_arg(args, 0, line).value_or("");
        if (j.contains(key)) return Value::of(j[key]);
        return args.size() > 1 ? args[1] : Value::of(nullptr);
      }
    }
    fail(line, fmt::format("unsupported method '{}'", method));
  }

  Value call_macro(const JinjaNode& macro, const std::vector<Value>& args,
                   const std::map<std::string, Value>& kwargs, int line) {
    std::map<std::string, Value> frame;
    for (std::size_t k = 0; k < macro.names.size(); ++k) {
      if (k < args.size()) {
        frame[macro.names[k]] = args[k];
      } else if (auto it = kwargs.find(macro.names[k]); it != kwargs.end()) {
        frame[macro.names[k]] = it->second;
      } else if (macro.exprs[k]) {
        frame[macro.names[k]] = eval(*macro.exprs[k]);
      }
    }
    if (args.size() > macro.names.size()) fail(line, fmt::format("macro '{}' takes {} arguments", macro.text, macro.names.size()));
    if (macro_depth_ >= kMaxJinjaMacroDepth) {
      fail(line, fmt::format("macro '{}': calls nested deeper than {} (a recursion without end?)", macro.text,
                             kMaxJinjaMacroDepth));
    }
    ++macro_depth_;
    scopes_.push_back(std::move(frame));
    std::string out;
    run(*macro.children[0], out);
    scopes_.pop_back();
    --macro_depth_;
    return Value::of(out);
  }

  Value eval_call(const Expr& e) {
    std::vector<Value> args;
    std::map<std::string, Value> kwargs;
    for (std::size_t k = 1; k < e.args.size(); ++k) args.push_back(eval(*e.args[k]));
    for (const auto& [key, value] : e.kwargs) kwargs[key] = eval(*value);
    const Expr& callee = *e.args[0];
    if (callee.kind == Expr::Kind::attr) return call_method(eval(*callee.args[0]), callee.name, args, e.line);
    if (callee.kind == Expr::Kind::name) {
      if (callee.name == "namespace") {
        Value v;
        v.kind = Value::Kind::ns;
        v.ns = std::make_shared<Json>(Json::object());
        for (const auto& [key, value] : kwargs) (*v.ns)[key] = value.json();
        return v;
      }
      if (callee.name == "raise_exception") {
        fail(e.line, fmt::format("raise_exception: {}", args.empty() ? "" : to_text(args[0])));
      }
      const Value* target = lookup(callee.name);
      if (target != nullptr && target->kind == Value::Kind::macro) return call_macro(*target->macro, args, kwargs, e.line);
      fail(e.line, fmt::format("unknown function '{}'", callee.name));
    }
    fail(e.line, "this value cannot be called");
  }

  Value eval_filter(const Expr& e) {
    const Value v = eval(*e.args[0]);
    std::vector<Value> args;
    for (std::size_t k = 1; k < e.args.size(); ++k) args.push_back(eval(*e.args[k]));
    const Json& j = v.json();
    const std::string& f = e.name;
    if (f == "length" || f == "count") {
      if (j.is_string()) {
        charge_bytes(static_cast<int64_t>(j.get_ref<const std::string&>().size()), e.line);
        return Value::of(static_cast<int64_t>(utf8_length(j.get_ref<const std::string&>())));
      }
      if (j.is_array() || j.is_object()) return Value::of(static_cast<int64_t>(j.size()));
      fail(e.line, "length of a value that has none");
    }
    if (f == "trim") return Value::of(strip_chars(to_text(v), std::nullopt, true, true));
    if (f == "string") return Value::of(to_text(v));
    if (f == "lower" || f == "upper") return call_method(Value::of(to_text(v)), f, {}, e.line);
    if (f == "tojson") {
      std::optional<int64_t> indent;
      for (const auto& [key, value] : e.kwargs) {
        if (key != "indent") continue;
        const Json amount = eval(*value).json();
        if (amount.is_null()) continue;
        if (!amount.is_number_integer()) fail(e.line, "tojson: indent must be an integer");
        indent = amount.get<int64_t>();
        if (*indent > kMaxJinjaJsonIndent) {
          fail(e.line, fmt::format("tojson: indent {} is more than {} spaces", *indent, kMaxJinjaJsonIndent));
        }
      }
      return Value::of(python_json(j, indent, e.line));
    }
    if (f == "first" || f == "last") {
      if (j.is_array() && !j.empty()) return Value::of(f == "first" ? j.front() : j.back());
      return Value{};
    }
    if (f == "reverse") {
      if (j.is_string()) {
        auto chars = charged_chars(j.get_ref<const std::string&>(), e.line);
        std::string out;
        for (auto it = chars.rbegin(); it != chars.rend(); ++it) out += *it;
        return Value::of(out);
      }
      Json out = Json::array();
      for (auto it = j.rbegin(); it != j.rend(); ++it) out.push_back(*it);
      return Value::of(out);
    }
    if (f == "join") {
      const std::string sep = args.empty() ? "" : to_text(args[0]);
      std::string out;
      for (std::size_t k = 0; k < j.size(); ++k) {
        if (k) append(out, sep, e.line);
        append(out, to_text(Value::of(j[k])), e.line);
      }
      return Value::of(out);
    }
    if (f == "default" || f == "d") {
      if (v.kind == Value::Kind::undefined) return args.empty() ? Value::of("") : args[0];
      return v;
    }
    if (f == "list") {
      if (j.is_array()) return v;
      Json out = Json::array();
      if (j.is_string()) {
        for (const std::string& ch : charged_chars(j.get_ref<const std::string&>(), e.line)) out.push_back(ch);
      }
      return Value::of(out);
    }
    if (f == "items") return call_method(v, "items", {}, e.line);
    fail(e.line, fmt::format("unsupported filter '{}'", f));
  }

  bool eval_test(const Expr& e) {
    const Value v = eval(*e.args[0]);
    const Json& j = v.json();
    const std::string& t = e.name;
    const bool data = v.kind != Value::Kind::undefined;
    if (t == "defined") return data;
    if (t == "undefined") return !data;
    if (t == "none") return data && j.is_null() && v.kind == Value::Kind::data;
    if (t == "string") return data && j.is_string();
    if (t == "number") return data && j.is_number();
    if (t == "integer") return data && j.is_number_integer();
    if (t == "boolean") return data && j.is_boolean();
    if (t == "mapping") return data && (j.is_object() || v.kind == Value::Kind::ns);
    if (t == "iterable") return data && (j.is_array() || j.is_object() || j.is_string());
    if (t == "sequence") return data && (j.is_array() || j.is_string());
    if (t == "true") return data && j.is_boolean() && j.get<bool>();
    if (t == "false") return data && j.is_boolean() && !j.get<bool>();
    if (t == "even" || t == "odd") {
      if (!j.is_number_integer()) fail(e.line, "even/odd of a value that is not an integer");
      return (j.get<int64_t>() % 2 == 0) == (t == "even");
    }
    fail(e.line, fmt::format("unsupported test '{}'", t));
  }

  static bool equal(const Value& a, const Value& b) {
    if (a.kind == Value::Kind::undefined || b.kind == Value::Kind::undefined) {
      return a.kind == b.kind;
    }
    return a.json() == b.json();
  }

  // Integer + - * // % as Python computes them (// rounds toward negative infinity, % takes the
  // divisor's sign), checked: where Python would give an integer beyond 64 bits, an error.
  int64_t integer_op(const std::string& op, int64_t p, int64_t q, int line) const {
    int64_t out = 0;
    bool overflow = false;
    if (op == "+") {
      overflow = __builtin_add_overflow(p, q, &out);
    } else if (op == "-") {
      overflow = __builtin_sub_overflow(p, q, &out);
    } else if (op == "*") {
      overflow = __builtin_mul_overflow(p, q, &out);
    } else {
      if (q == 0) fail(line, "division by zero");
      if (q == -1) {  // INT64_MIN / -1 traps in C++; Python's answer is -p and remainder 0
        if (op == "%") return 0;
        overflow = __builtin_sub_overflow(int64_t{0}, p, &out);
      } else {
        int64_t quotient = p / q;
        int64_t remainder = p % q;
        if (remainder != 0 && ((remainder < 0) != (q < 0))) {
          --quotient;
          remainder += q;
        }
        out = op == "%" ? remainder : quotient;
      }
    }
    if (overflow) fail(line, fmt::format("{} {} {} does not fit in 64 bits", p, op, q));
    return out;
  }

  Value eval_binary(const Expr& e) {
    const std::string& op = e.name;
    if (op == "and") {
      Value a = eval(*e.args[0]);
      return truthy(a) ? eval(*e.args[1]) : a;
    }
    if (op == "or") {
      Value a = eval(*e.args[0]);
      return truthy(a) ? a : eval(*e.args[1]);
    }
    const Value a = eval(*e.args[0]);
    const Value b = eval(*e.args[1]);
    const Json& x = a.json();
    const Json& y = b.json();
    if (op == "==" || op == "!=" || op == "in" || op == "not in") {
      // Comparing and searching take time in the size of the operands, which may be variables
      // (not charged when read).
      charge(x, e.line);
      charge(y, e.line);
    }
    if (op == "==") return Value::of(equal(a, b));
    if (op == "!=") return Value::of(!equal(a, b));
    if (op == "in" || op == "not in") {
      bool found = false;
      if (y.is_string()) {
        if (!x.is_string()) fail(e.line, "'in <string>' needs a string on the left");
        found = find_text(y.get_ref<const std::string&>(), x.get_ref<const std::string&>(), 0) != std::string::npos;
      } else if (y.is_array()) {
        found = std::find(y.begin(), y.end(), x) != y.end();
      } else if (y.is_object()) {
        found = x.is_string() && y.contains(x.get<std::string>());
      } else if (b.kind != Value::Kind::undefined) {
        fail(e.line, "'in' needs a string, list or mapping on the right");
      }
      return Value::of(op == "in" ? found : !found);
    }
    if (op == "~") {
      std::string out = to_text(a);
      append(out, to_text(b), e.line);
      return Value::of(out);
    }
    if (op == "+" && x.is_string() && y.is_string()) {
      std::string out = x.get<std::string>();
      append(out, y.get_ref<const std::string&>(), e.line);
      return Value::of(out);
    }
    if (op == "+" && x.is_array() && y.is_array()) {
      Json out = x;
      for (const Json& item : y) out.push_back(item);
      return Value::of(out);
    }
    if (x.is_number() && y.is_number()) {
      const bool ints = x.is_number_integer() && y.is_number_integer();
      if (ints) {
        const int64_t p = x.get<int64_t>();
        const int64_t q = y.get<int64_t>();
        if (op == "+" || op == "-" || op == "*" || op == "//" || op == "%") return Value::of(integer_op(op, p, q, e.line));
        if (op == "<") return Value::of(p < q);
        if (op == ">") return Value::of(p > q);
        if (op == "<=") return Value::of(p <= q);
        if (op == ">=") return Value::of(p >= q);
        if (op == "/" && q == 0) fail(e.line, "division by zero");
      }
      const double p = x.get<double>();
      const double q = y.get<double>();
      if (op == "+") return Value::of(p + q);
      if (op == "-") return Value::of(p - q);
      if (op == "*") return Value::of(p * q);
      if (op == "/") {
        if (q == 0) fail(e.line, "division by zero");
        return Value::of(p / q);
      }
      if (op == "<") return Value::of(p < q);
      if (op == ">") return Value::of(p > q);
      if (op == "<=") return Value::of(p <= q);
      if (op == ">=") return Value::of(p >= q);
    }
    if (x.is_string() && y.is_string()) {
      if (op == "<") return Value::of(x < y);
      if (op == ">") return Value::of(x > y);
      if (op == "<=") return Value::of(x <= y);
      if (op == ">=") return Value::of(x >= y);
    }
    if (op == "*" && x.is_string() && y.is_number_integer()) {
      // Checked before building: 'x' * 10**11 must not try.
      const std::string& unit = x.get_ref<const std::string&>();
      const int64_t times = std::max<int64_t>(0, y.get<int64_t>());
      if (!unit.empty() && times > limits_.max_output_bytes / static_cast<int64_t>(unit.size())) {
        check_size(static_cast<std::size_t>(limits_.max_output_bytes) + 1, e.line);
      }
      std::string out;
      if (unit.empty()) return Value::of(out);  // '' * 10**9 is '' at once, not 10**9 appends
      out.reserve(unit.size() * static_cast<std::size_t>(times));
      for (int64_t k = 0; k < times; ++k) out += unit;
      return Value::of(out);
    }
    fail(e.line, fmt::format("operator '{}' does not apply to these values", op));
  }

  Value eval_index(const Value& obj, const Value& key, int line) {
    const Json& j = obj.json();
    const Json& k = key.json();
    if (j.is_array() && k.is_number_integer()) {
      int64_t i = k.get<int64_t>();
      if (i < 0) i += static_cast<int64_t>(j.size());
      if (i < 0 || i >= static_cast<int64_t>(j.size())) return Value{};
      return Value::of(j[static_cast<std::size_t>(i)]);
    }
    if (j.is_string() && k.is_number_integer()) {
      // Walks to the character, charging the walk (the string may be a variable, read for free).
      const std::string& s = j.get_ref<const std::string&>();
      charge_bytes(static_cast<int64_t>(s.size()), line);
      int64_t i = k.get<int64_t>();
      if (i < 0) i += static_cast<int64_t>(utf8_length(s));
      if (i < 0) return Value{};
      std::size_t at = 0;
      for (; at < s.size() && i > 0; --i) at += utf8_sequence_length_of(static_cast<unsigned char>(s[at]));
      if (at >= s.size()) return Value{};
      return Value::of(s.substr(at, utf8_sequence_length_of(static_cast<unsigned char>(s[at]))));
    }
    if (j.is_object() && k.is_string()) {
      const auto it = j.find(k.get<std::string>());
      if (it == j.end()) return Value{};
      return Value::of(*it);
    }
    return Value{};
  }

  Value eval_slice(const Expr& e) {
    const Value obj = eval(*e.args[0]);
    std::optional<int64_t> part[3];
    std::size_t next = 1;
    for (int k = 0; k < 3; ++k) {
      if (!e.has[k]) continue;
      const Value bound = eval(*e.args[next++]);  // held: json() refers into it
      const Json& j = bound.json();
      if (!j.is_null()) {
        if (!j.is_number_integer()) fail(e.line, "slice bounds must be integers");
        part[k] = j.get<int64_t>();
      }
    }
    const int64_t step = part[2].value_or(1);
    if (step == 0) fail(e.line, "slice step cannot be zero");
    std::vector<Json> items;
    const Json& j = obj.json();
    const bool text = j.is_string();
    if (text) {
      for (const std::string& ch : charged_chars(j.get_ref<const std::string&>(), e.line)) items.emplace_back(ch);
    } else if (j.is_array()) {
      charge(j, e.line);  // the items are copied out
      for (const Json& item : j) items.push_back(item);
    } else {
      fail(e.line, "only lists and strings can be sliced");
    }
    const int64_t n = static_cast<int64_t>(items.size());
    // Python's slice.indices.
    auto clamp = [&](std::optional<int64_t> v, int64_t fallback, bool is_stop) {
      if (!v) return fallback;
      int64_t x = *v;
      if (x < 0) x += n;
      if (step > 0) return std::clamp<int64_t>(x, 0, n);
      (void)is_stop;
      return std::clamp<int64_t>(x, -1, n - 1);
    };
    const int64_t start = clamp(part[0], step > 0 ? 0 : n - 1, false);
    const int64_t stop = clamp(part[1], step > 0 ? n : -1, true);
    Json out = Json::array();
    std::string s;
    for (int64_t i = start; step > 0 ? i < stop : i > stop;) {
      if (text) {
        s += items[static_cast<std::size_t>(i)].get<std::string>();
      } else {
        out.push_back(items[static_cast<std::size_t>(i)]);
      }
      if (__builtin_add_overflow(i, step, &i)) break;  // a step near 2^63 ends the slice
    }
    return text ? Value::of(s) : Value::of(out);
  }

  Value eval(const Expr& e) {
    const Deeper deeper(*this, e.line);
    step(e.line);
    Value v = eval_node(e);
    // A variable's value is shared, not copied; what it holds was charged when it was built.
    if (e.kind != Expr::Kind::name) charge(v.json(), e.line);
    return v;
  }

  Value eval_node(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::literal:
        return Value::of(e.value);
      case Expr::Kind::name: {
        const Value* v = lookup(e.name);
        return v == nullptr ? Value{} : *v;
      }
      case Expr::Kind::attr: {
        const Value obj = eval(*e.args[0]);
        if (obj.kind == Value::Kind::ns) {
          const auto it = obj.ns->find(e.name);
          return it == obj.ns->end() ? Value{} : Value::of(*it);
        }
        return eval_index(obj, Value::of(e.name), e.line);
      }
      case Expr::Kind::item:
        return eval_index(eval(*e.args[0]), eval(*e.args[1]), e.line);
      case Expr::Kind::slice:
        return eval_slice(e);
      case Expr::Kind::call:
        return eval_call(e);
      case Expr::Kind::filter:
        return eval_filter(e);
      case Expr::Kind::test: {
        const bool result = eval_test(e);
        return Value::of(e.negated ? !result : result);
      }
      case Expr::Kind::unary: {
        const Value v = eval(*e.args[0]);
        if (e.name == "not") return Value::of(!truthy(v));
        const Json& j = v.json();
        if (!j.is_number()) fail(e.line, fmt::format("unary '{}' of a value that is not a number", e.name));
        if (e.name == "+") return v;
        if (j.is_number_integer()) return Value::of(integer_op("-", 0, j.get<int64_t>(), e.line));
        return Value::of(-j.get<double>());
      }
      case Expr::Kind::binary:
        return eval_binary(e);
      case Expr::Kind::cond:
        return truthy(eval(*e.args[1])) ? eval(*e.args[0]) : eval(*e.args[2]);
      case Expr::Kind::list: {
        Json out = Json::array();
        for (const auto& item : e.args) out.push_back(eval(*item).json());
        return Value::of(out);
      }
      case Expr::Kind::dict: {
        Json out = Json::object();
        for (std::size_t k = 0; k + 1 < e.args.size(); k += 2) {
          out[to_text(eval(*e.args[k]))] = eval(*e.args[k + 1]).json();
        }
        return Value::of(out);
      }
    }
    return Value{};
  }

  const std::string& name_;
  const JinjaLimits& limits_;
  std::vector<std::map<std::string, Value>> scopes_;
  int depth_ = 0;
  int macro_depth_ = 0;
  int64_t steps_ = 0;
  int64_t value_bytes_ = 0;
};

}  // namespace

JinjaTemplate::JinjaTemplate(std::string_view source, std::string name) : name_(std::move(name)) {
  root_ = TreeBuilder(split_segments(source, name_), name_).build();
}

JinjaTemplate::~JinjaTemplate() = default;
JinjaTemplate::JinjaTemplate(JinjaTemplate&&) noexcept = default;
JinjaTemplate& JinjaTemplate::operator=(JinjaTemplate&&) noexcept = default;

std::string JinjaTemplate::render(const nlohmann::ordered_json& context, const JinjaLimits& limits) const {
  if (!context.is_object()) throw_usage("chat template '{}': the context must be a JSON object", name_);
  Renderer renderer(name_, context, limits);
  std::string out;
  try {
    renderer.run(*root_, out);
  } catch (const nlohmann::json::exception& e) {
    // A value the JSON library refuses (a string of invalid UTF-8 to print as JSON, a type it
    // cannot convert) is the template's error, not ladle's.
    throw_input(SourceLocation{name_, 0, 0, ""}, "chat template: {}", e.what());
  }
  return out;
}

}  // namespace ladle::pack
