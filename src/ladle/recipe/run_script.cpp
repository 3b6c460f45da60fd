#include "ladle/recipe/run_script.hpp"

namespace ladle::recipe {

const RunArg* RunScript::find(std::string_view flag) const {
  for (const RunArg& arg : args) {
    if (arg.flag == flag) return &arg;
  }
  return nullptr;
}

namespace {

struct Word {
  std::string text;
  int line = 0;
  bool quoted_expansion = false;  // "${X[@]}" or $X unquoted: may stand for several words
};

// Splits one logical shell line (continuations already joined) into words, removing quotes.
// $(...) and ${...} are kept as written inside the word.
std::vector<Word> split_words(std::string_view text, const std::vector<int>& line_of) {
  std::vector<Word> words;
  Word current;
  bool in_word = false;
  char quote = 0;
  int paren_depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!in_word && (c == ' ' || c == '\t')) continue;
    if (!in_word) {
      in_word = true;
      current = Word{"", line_of[i], false};
    }
    if (quote) {
      if (c == quote && paren_depth == 0) {
        quote = 0;
        continue;
      }
    } else if (paren_depth == 0) {
      if (c == '#' && current.text.empty()) break;  // a comment
      if (c == ' ' || c == '\t') {
        words.push_back(current);
        in_word = false;
        continue;
      }
      if (c == '"' || c == '\'') {
        quote = c;
        continue;
      }
    }
    if (c == '$' && i + 1 < text.size() && (text[i + 1] == '(' || text[i + 1] == '{')) {
      if (text[i + 1] == '{' && text.substr(i).find("[@]}") != std::string_view::npos) {
        current.quoted_expansion = true;
      }
    }
    if (c == '(' || c == '{') ++paren_depth;
    if ((c == ')' || c == '}') && paren_depth > 0) --paren_depth;
    current.text += c;
  }
  if (in_word) words.push_back(current);
  return words;
}

}  // namespace

RunScript parse_run_script(std::string_view script) {
  RunScript out;
  // Join backslash-continued lines, remembering the physical line of every character.
  std::string logical;
  std::vector<int> line_of;
  int line = 1;
  const auto flush = [&] {
    const std::vector<Word> words = split_words(logical, line_of);
    logical.clear();
    line_of.clear();
    if (words.empty()) return;
    if (words[0].text == "export" && words.size() >= 2) {
      const std::string& assignment = words[1].text;
      const size_t eq = assignment.find('=');
      if (eq != std::string::npos) {
        out.exports.push_back({assignment.substr(0, eq), assignment.substr(eq + 1), words[1].line});
      }
      return;
    }
    for (size_t i = 0; i < words.size(); ++i) {
      const Word& w = words[i];
      if (w.quoted_expansion) out.has_opaque_args = true;
      if (!w.text.starts_with("--") || w.text.size() < 3) continue;
      RunArg arg{w.text, std::nullopt, w.line};
      const size_t eq = w.text.find('=');
      if (eq != std::string::npos) {
        arg.flag = w.text.substr(0, eq);
        arg.value = w.text.substr(eq + 1);
      } else if (i + 1 < words.size() && !words[i + 1].text.starts_with("--")) {
        arg.value = words[i + 1].text;
        ++i;
      }
      out.args.push_back(std::move(arg));
    }
  };
  for (size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    if (c == '\\' && i + 1 < script.size() && script[i + 1] == '\n') {
      logical += ' ';
      line_of.push_back(line);
      ++i;
      ++line;
      continue;
    }
    if (c == '\n') {
      flush();
      ++line;
      continue;
    }
    logical += c;
    line_of.push_back(line);
  }
  flush();
  return out;
}

}  // namespace ladle::recipe
