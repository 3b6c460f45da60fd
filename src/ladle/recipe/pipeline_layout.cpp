#include "ladle/recipe/pipeline_layout.hpp"

#include <fmt/format.h>

#include <cctype>
#include <string>

#include "ladle/util/error.hpp"

namespace ladle::recipe {

namespace {

constexpr int64_t kMaxExpanded = int64_t{1} << 20;

[[noreturn]] void fail(std::string_view text, const std::string& why) {
  throw Error(ErrorKind::usage, fmt::format("'{}': {}", text, why),
              SourceLocation{"", 0, 0, "layout.pipeline_layout"});
}

// Reads "*n" at `pos` (after a group or a symbol); returns 1 when there is no '*'.
int64_t read_count(std::string_view original, const std::string& s, size_t& pos) {
  if (pos >= s.size() || s[pos] != '*') return 1;
  ++pos;
  size_t digits = 0;
  int64_t n = 0;
  while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])) != 0) {
    n = n * 10 + (s[pos] - '0');
    if (n > kMaxExpanded) fail(original, "a repeat count is too large");
    ++pos;
    ++digits;
  }
  if (digits == 0) fail(original, "expected a count after '*'");
  return n;
}

void append(std::string_view original, std::string& out, const std::string& piece, int64_t times) {
  if (static_cast<int64_t>(out.size() + piece.size() * static_cast<size_t>(times)) > kMaxExpanded) {
    fail(original, "expands to too many layers");
  }
  for (int64_t i = 0; i < times; ++i) out += piece;
}

}  // namespace

std::vector<VirtualStage> parse_pipeline_layout(std::string_view text) {
  std::string s;
  for (char c : text) {
    if (c != ',' && c != ' ') s += c;
  }
  if (s.empty()) fail(text, "the layout is empty");
  // Unroll "(...)*n" (no nesting, as Megatron-LM's pattern), then "x*n".
  std::string groups;
  for (size_t pos = 0; pos < s.size();) {
    if (s[pos] == ')') fail(text, "')' without '('");
    if (s[pos] != '(') {
      groups += s[pos++];
      continue;
    }
    const size_t close = s.find(')', pos);
    if (close == std::string::npos) fail(text, "'(' without ')'");
    const std::string inner = s.substr(pos + 1, close - pos - 1);
    if (inner.find('(') != std::string::npos) fail(text, "nested parentheses");
    if (inner.empty()) fail(text, "an empty group '()'");
    pos = close + 1;
    append(text, groups, inner, read_count(text, s, pos));
  }
  std::string flat;
  for (size_t pos = 0; pos < groups.size();) {
    const char c = groups[pos++];
    if (c == '*') fail(text, "'*' must follow a layer or a group");
    append(text, flat, std::string(1, c), read_count(text, groups, pos));
  }
  std::vector<VirtualStage> stages(1);
  for (char c : flat) {
    switch (c) {
      case '|':
        stages.emplace_back();
        break;
      case 't':
        ++stages.back().decoder;
        break;
      case 'm':
        ++stages.back().mtp;
        break;
      case 'E':
        ++stages.back().embedding;
        break;
      case 'L':
        ++stages.back().loss;
        break;
      default:
        fail(text,
             fmt::format(
                 "unknown layer '{}'; expected E (embedding), t (decoder), m (MTP), L (loss), "
                 "'|' between stages",
                 c));
    }
  }
  return stages;
}

}  // namespace ladle::recipe
