#include "ladle/recipe/launch_args.hpp"

#include <array>
#include <cctype>

#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::recipe {

namespace {

struct Word {
  std::string text;  ///< after quote removal
  std::string raw;   ///< as written
  int line = 0;
};

using Command = std::vector<Word>;

constexpr std::array<std::string_view, 24> kBuiltins = {
    "export", "read",  "echo", "printf", "cd",    "set",   "source", ".",     "local", "declare", "if",    "then",
    "else",   "elif",  "fi",   "for",    "while", "do",    "done",   "case",  "esac",  "mkdir",   "unset", "trap"};

class Splitter {
 public:
  Splitter(std::string_view text, const std::string& path) : s_(text), path_(path) {}

  std::vector<Command> split() {
    std::vector<Command> commands;
    Command current;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\\' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {  // continuation
        pos_ += 2;
        ++line_;
        continue;
      }
      if (c == '\n' || c == ';' || c == '|' || c == '&') {
        if (c == '\n') ++line_;
        ++pos_;
        if (!current.empty()) commands.push_back(std::move(current));
        current.clear();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
        continue;
      }
      if (c == '#') {  // a comment runs to the end of the line
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
        continue;
      }
      current.push_back(word());
    }
    if (!current.empty()) commands.push_back(std::move(current));
    return commands;
  }

 private:
  [[noreturn]] void unterminated(const char* what, int line) {
    throw_input(SourceLocation{path_, line, 0, ""}, "unterminated {} in the launch script", what);
  }

  // `$(...)` or `${...}` starting at pos_ (on '$'), appended to both texts.
  void dollar_group(Word& w) {
    const char open = s_[pos_ + 1];
    const char close = open == '(' ? ')' : '}';
    const int start_line = line_;
    int depth = 0;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\n') ++line_;
      if (c == open) ++depth;
      if (c == close) --depth;
      w.text += c;
      w.raw += c;
      ++pos_;
      if (depth == 0 && c == close) return;
    }
    unterminated(open == '(' ? "$(" : "${", start_line);
  }

  Word word() {
    Word w;
    w.line = line_;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '|' || c == '&') break;
      if (c == '\\' && pos_ + 1 < s_.size()) {
        if (s_[pos_ + 1] == '\n') break;  // a continuation ends the word
        w.text += s_[pos_ + 1];
        w.raw += s_.substr(pos_, 2);
        pos_ += 2;
        continue;
      }
      if (c == '$' && pos_ + 1 < s_.size() && (s_[pos_ + 1] == '(' || s_[pos_ + 1] == '{')) {
        dollar_group(w);
        continue;
      }
      if (c == '\'') {
        const size_t end = s_.find('\'', pos_ + 1);
        if (end == std::string_view::npos) unterminated("single quote", line_);
        for (size_t i = pos_; i <= end; ++i) line_ += s_[i] == '\n' ? 1 : 0;
        w.text += s_.substr(pos_ + 1, end - pos_ - 1);
        w.raw += s_.substr(pos_, end - pos_ + 1);
        pos_ = end + 1;
        continue;
      }
      if (c == '"') {
        const int start_line = line_;
        w.raw += c;
        ++pos_;
        bool closed = false;
        while (pos_ < s_.size()) {
          const char d = s_[pos_];
          if (d == '"') {
            w.raw += d;
            ++pos_;
            closed = true;
            break;
          }
          if (d == '\\' && pos_ + 1 < s_.size() && std::string_view("\"\\$`\n").find(s_[pos_ + 1]) != std::string_view::npos) {
            if (s_[pos_ + 1] != '\n') w.text += s_[pos_ + 1];
            w.raw += s_.substr(pos_, 2);
            pos_ += 2;
            continue;
          }
          if (d == '$' && pos_ + 1 < s_.size() && (s_[pos_ + 1] == '(' || s_[pos_ + 1] == '{')) {
            dollar_group(w);
            continue;
          }
          if (d == '\n') ++line_;
          w.text += d;
          w.raw += d;
          ++pos_;
        }
        if (!closed) unterminated("double quote", start_line);
        continue;
      }
      w.text += c;
      w.raw += c;
      ++pos_;
    }
    return w;
  }

  std::string_view s_;
  const std::string& path_;
  size_t pos_ = 0;
  int line_ = 1;
};

// "${NAME[@]}" or "${NAME[*]}", quoted or not.
bool is_array_expansion(const Word& w) {
  std::string_view raw = w.raw;
  if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"') raw = raw.substr(1, raw.size() - 2);
  if (raw.size() < 7 || raw.substr(0, 2) != "${" || raw.back() != '}') return false;
  const std::string_view inner = raw.substr(2, raw.size() - 3);
  const size_t bracket = inner.find('[');
  if (bracket == std::string_view::npos || bracket == 0) return false;
  const std::string_view index = inner.substr(bracket);
  if (index != "[@]" && index != "[*]") return false;
  for (char c : inner.substr(0, bracket)) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool is_flag(const Word& w) {
  const std::string& t = w.text;
  if (t.size() < 2 || t[0] != '-') return false;
  if (std::isdigit(static_cast<unsigned char>(t[1])) || t[1] == '.') return false;  // a negative number
  return true;
}

bool is_assignment(const Word& w) {
  const size_t eq = w.text.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  for (size_t i = 0; i < eq; ++i) {
    const char c = w.text[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return !std::isdigit(static_cast<unsigned char>(w.text[0]));
}

}  // namespace

LaunchArgs parse_launch_args(std::string_view script, const std::string& path) {
  LaunchArgs out;
  for (const Command& command : Splitter(script, path).split()) {
    size_t first = 0;
    while (first < command.size() && is_assignment(command[first])) ++first;
    if (first == command.size()) continue;
    const std::string& name = command[first].text;
    if (name == "export") {
      for (size_t i = first + 1; i < command.size(); ++i) {
        const size_t eq = command[i].text.find('=');
        if (is_assignment(command[i])) {
          out.exports.push_back({command[i].text.substr(0, eq), command[i].text.substr(eq + 1), command[i].line});
        }
      }
      continue;
    }
    bool builtin = false;
    for (std::string_view b : kBuiltins) builtin = builtin || name == b;
    if (builtin) continue;
    size_t k = first;
    while (k < command.size() && !is_flag(command[k]) && !is_array_expansion(command[k])) ++k;
    if (k == command.size()) continue;  // no arguments: not an engine call
    std::vector<std::string> head;
    for (size_t i = first; i < k; ++i) head.push_back(command[i].text);
    out.commands.push_back(util::join(head, " "));
    for (; k < command.size(); ++k) {
      const Word& w = command[k];
      if (is_array_expansion(w)) {
        std::string raw = w.raw;
        if (raw.front() == '"') raw = raw.substr(1, raw.size() - 2);
        out.args.push_back(LaunchArg{raw, {}, true, w.line, out.commands.size() - 1});
        continue;
      }
      if (is_flag(w)) {
        const size_t eq = w.text.find('=');
        if (w.text.rfind("--", 0) == 0 && eq != std::string::npos) {
          out.args.push_back(LaunchArg{w.text.substr(0, eq), {w.text.substr(eq + 1)}, false, w.line, out.commands.size() - 1});
        } else {
          out.args.push_back(LaunchArg{w.text, {}, false, w.line, out.commands.size() - 1});
        }
        continue;
      }
      if (out.args.empty() || out.args.back().placeholder) {
        // A word after an expansion: it belongs to the unseen arguments; keep it as a value of it.
        if (!out.args.empty()) out.args.back().values.push_back(w.text);
        continue;
      }
      out.args.back().values.push_back(w.text);
    }
  }
  return out;
}

}  // namespace ladle::recipe
