#include "ladle/args/launch_args.hpp"

#include "ladle/args/bridge_args.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>
#include <optional>

#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/shell_quote.hpp"
#include "ladle/util/text.hpp"

namespace ladle::args {

namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// ---------------------------------------------------------------------------------------------
// Pieces of an expanded word: the text the script fixes, and the expansions it leaves to the run
// kept as written ($HF_CKPT, $(nproc)). A word's text is its pieces' texts in order; a job writes
// the fixed text quoted and only the expansions as expansions (LaunchArg::shell).

struct Seg {
  std::string text;
  bool open = false;  ///< an expansion kept as written
};
using Segs = std::vector<Seg>;

void add_literal(Segs& segs, std::string_view text) {
  if (text.empty()) return;
  if (segs.empty() || segs.back().open) segs.push_back(Seg{});
  segs.back().text += text;
}

void add_segs(Segs& to, const Segs& from) {
  for (const Seg& seg : from) {
    if (seg.open) {
      to.push_back(seg);
    } else {
      add_literal(to, seg.text);
    }
  }
}

// The `$NAME` and `${NAME}` references of a text as open pieces, the rest literal: the reading of
// a value whose pieces were not kept (ladle's own defaults, a variable's word split in two).
Segs variable_segments(std::string_view text) {
  Segs segs;
  size_t i = 0;
  while (i < text.size()) {
    size_t end = std::string_view::npos;
    if (text[i] == '$' && i + 1 < text.size()) {
      const bool braced = text[i + 1] == '{';
      size_t j = i + (braced ? 2 : 1);
      const size_t start = j;
      while (j < text.size() && is_name_char(text[j])) ++j;
      const bool named = j > start && !std::isdigit(static_cast<unsigned char>(text[start]));
      if (named && !braced) end = j;
      if (named && braced && j < text.size() && text[j] == '}') end = j + 1;
    }
    if (end == std::string_view::npos) {
      add_literal(segs, text.substr(i, 1));
      ++i;
    } else {
      segs.push_back(Seg{std::string(text.substr(i, end - i)), true});
      i = end;
    }
  }
  return segs;
}

std::string text_of(const Segs& segs) {
  std::string text;
  for (const Seg& seg : segs) text += seg.text;
  return text;
}

std::string render_pieces(const Segs& segs);

// The first piece that expands to something the script does not say (not a plain variable).
const Seg* first_run_time(const Segs& segs) {
  for (const Seg& seg : segs) {
    if (seg.open && !is_variable_reference(seg.text)) return &seg;
  }
  return nullptr;
}

// The pieces as one bash word: literal runs through util::shell_quote, a variable in double
// quotes (one word, as ladle reads it), a command substitution as written (an export's value).
std::string render(const Segs& segs) {
  // Variables amid text that double quotes keep literal ("$OUTPUT_DIR/checkpoints"): one pair.
  bool one_pair = false;
  for (const Seg& seg : segs) {
    if (seg.open && !is_variable_reference(seg.text)) return render_pieces(segs);
    const bool quotable = seg.open || std::none_of(seg.text.begin(), seg.text.end(), [](char c) {
      return std::string_view("$`\"\\!").find(c) != std::string_view::npos || static_cast<unsigned char>(c) < 0x20 ||
             c == 0x7f;
    });
    if (!quotable) return render_pieces(segs);
    one_pair = one_pair || seg.open;
  }
  return one_pair ? "\"" + text_of(segs) + "\"" : render_pieces(segs);
}

// Piece by piece: each literal run quoted on its own, each expansion in its own quotes.
std::string render_pieces(const Segs& segs) {
  std::string out;
  for (const Seg& seg : segs) {
    if (!seg.open) {
      out += util::shell_quote(seg.text);
    } else if (seg.text.rfind("$(", 0) == 0 || seg.text.rfind('`', 0) == 0) {
      out += seg.text;
    } else {
      out += "\"" + seg.text + "\"";
    }
  }
  return out.empty() ? "''" : out;
}

// The pieces of text[from, to): a cut through an expansion leaves its part literal (never run).
Segs slice(const Segs& segs, size_t from, size_t to) {
  Segs out;
  size_t at = 0;
  for (const Seg& seg : segs) {
    const size_t begin = std::max(at, from);
    const size_t end = std::min(at + seg.text.size(), to);
    if (begin < end) {
      const std::string_view part = std::string_view(seg.text).substr(begin - at, end - begin);
      if (seg.open && begin == at && end == at + seg.text.size()) {
        out.push_back(seg);
      } else {
        add_literal(out, part);
      }
    }
    at += seg.text.size();
  }
  return out;
}

// Field splitting of an unquoted expansion: literal text splits at blanks, an expansion kept as
// written stays whole; empty fields are dropped.
std::vector<Segs> split_fields(const Segs& segs) {
  std::vector<Segs> fields(1);
  for (const Seg& seg : segs) {
    if (seg.open) {
      fields.back().push_back(seg);
      continue;
    }
    size_t start = 0;
    for (size_t i = 0; i <= seg.text.size(); ++i) {
      if (i < seg.text.size() && seg.text[i] != ' ' && seg.text[i] != '\t' && seg.text[i] != '\n') continue;
      add_literal(fields.back(), std::string_view(seg.text).substr(start, i - start));
      if (i < seg.text.size() && !fields.back().empty()) fields.emplace_back();
      start = i + 1;
    }
  }
  if (fields.back().empty()) fields.pop_back();
  return fields;
}

// ---------------------------------------------------------------------------------------------
// Splitting: the script into commands of words, as bash tokenizes it.

struct Word {
  std::string text;  ///< after quote removal
  std::string raw;   ///< as written
  int line = 0;
  int col = 0;  ///< 1-based column of its first character in the script (0: unknown)
  bool is_array_literal = false;  ///< `NAME=(...)`: `elements` hold the words between the parentheses
  std::vector<Word> elements;
};

struct Command {
  std::vector<Word> words;
  bool conditional = false;  ///< follows `&&` or `||`: runs only on the previous command's status
};

class Splitter {
 public:
  Splitter(std::string_view text, const std::string& path, int first_line = 1)
      : s_(text), path_(path), line_(first_line), columns_(first_line == 1) {}

  std::vector<Command> split() {
    std::vector<Command> commands;
    Command current;
    bool next_conditional = false;
    bool in_test = false;  ///< between `[[` and `]]`
    const auto finish = [&] {
      if (!current.words.empty()) {
        current.conditional = next_conditional;
        commands.push_back(std::move(current));
        next_conditional = false;
      }
      current = Command{};
    };
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\\' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {  // continuation
        pos_ += 2;
        ++line_;
        continue;
      }
      if (c == '\n') {
        ++line_;
        ++pos_;
        finish();
        next_conditional = false;
        skip_heredocs();
        continue;
      }
      if (c == ';' || c == '|' || c == '&') {
        const bool doubled = pos_ + 1 < s_.size() && s_[pos_ + 1] == c;
        if (in_test && doubled && c != ';') {  // `[[ a && b ]]`: an operator of the test, not a list
          pos_ += 2;
          continue;
        }
        const bool redirect = c == '&' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '>';
        if (redirect) {  // `&>file`: a redirection, kept as a word that is dropped later
          current.words.push_back(word());
          continue;
        }
        pos_ += doubled ? 2 : 1;
        finish();
        next_conditional = doubled && c != ';';
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
      current.words.push_back(word());
      // `[[ ... ]]` is one command: its && and || join expressions (bash's conditional command).
      if (current.words.back().raw == "[[") in_test = true;
      if (current.words.back().raw == "]]") in_test = false;
    }
    finish();
    return commands;
  }

 private:
  [[noreturn]] void unterminated(const char* what, int line) {
    throw_input(SourceLocation{path_, line, 0, ""}, "unterminated {} in the launch script", what);
  }

  // The bodies of here-documents opened on the line just ended.
  void skip_heredocs() {
    for (const auto& [tag, strip_tabs] : heredocs_) {
      const int start_line = line_;
      bool closed = false;
      while (pos_ < s_.size()) {
        const size_t end = s_.find('\n', pos_);
        std::string_view line = s_.substr(pos_, end == std::string_view::npos ? s_.size() - pos_ : end - pos_);
        pos_ = end == std::string_view::npos ? s_.size() : end + 1;
        ++line_;
        if (strip_tabs) {
          while (!line.empty() && line.front() == '\t') line.remove_prefix(1);
        }
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line == tag) {
          closed = true;
          break;
        }
      }
      if (!closed) unterminated(fmt::format("here-document '{}'", tag).c_str(), start_line - 1);
    }
    heredocs_.clear();
  }

  // `$(...)` or `${...}` starting at pos_ (on '$'), appended to both texts.
  void dollar_group(Word& w) {
    const char open = s_[pos_ + 1];
    const char close = open == '(' ? ')' : '}';
    const int start_line = line_;
    int depth = 0;
    char quote = 0;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\n') ++line_;
      if (quote == 0 && (c == '\'' || c == '"') && open == '(') {
        quote = c;
      } else if (quote != 0 && c == quote) {
        quote = 0;
      } else if (quote == 0 && c == '\\' && pos_ + 1 < s_.size()) {
        w.text += c;
        w.raw += c;
        ++pos_;
      } else if (quote == 0 && c == open) {
        ++depth;
      } else if (quote == 0 && c == close) {
        --depth;
      }
      w.text += s_[pos_];
      w.raw += s_[pos_];
      ++pos_;
      if (depth == 0 && quote == 0 && c == close) return;
    }
    unterminated(open == '(' ? "$(" : "${", start_line);
  }

  static bool is_array_start(const std::string& raw) {
    if (raw.size() < 2 || raw.back() != '=') return false;
    size_t end = raw.size() - 1;
    if (end > 0 && raw[end - 1] == '+') --end;
    if (end == 0 || std::isdigit(static_cast<unsigned char>(raw[0]))) return false;
    for (size_t i = 0; i < end; ++i) {
      if (!std::isalnum(static_cast<unsigned char>(raw[i])) && raw[i] != '_') return false;
    }
    return true;
  }

  void array_literal(Word& w) {
    const int start_line = line_;
    w.is_array_literal = true;
    w.raw += '(';
    ++pos_;
    ++array_depth_;
    while (true) {
      if (pos_ >= s_.size()) unterminated("array '('", start_line);
      const char c = s_[pos_];
      if (c == ')') {
        w.raw += ')';
        ++pos_;
        break;
      }
      if (c == '\n') {
        ++line_;
        ++pos_;
        continue;
      }
      if (c == '\\' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
        pos_ += 2;
        ++line_;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
        continue;
      }
      if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
        continue;
      }
      const size_t before = pos_;
      w.elements.push_back(word());
      // `;`, `|` or `&` inside `( ... )` ends no word: bash rejects it as a syntax error.
      if (pos_ == before) {
        throw_input(SourceLocation{path_, line_, 0, ""}, "unexpected '{}' inside the array begun at line {}", c,
                    start_line);
      }
    }
    --array_depth_;
  }

  // `...`: an old-style command substitution, kept whole (as `$(...)` is) and left to the run.
  void backtick_group(Word& w) {
    const int start_line = line_;
    size_t end = pos_ + 1;
    while (end < s_.size() && s_[end] != '`') end += s_[end] == '\\' ? 2 : 1;
    if (end >= s_.size()) unterminated("backtick", start_line);
    for (size_t i = pos_; i <= end; ++i) line_ += s_[i] == '\n' ? 1 : 0;
    w.text += s_.substr(pos_, end - pos_ + 1);
    w.raw += s_.substr(pos_, end - pos_ + 1);
    pos_ = end + 1;
  }

  Word word() {
    Word w;
    w.line = line_;
    if (columns_) {  // the script's own text (a `bash -c` string's columns are not the script's)
      // The line's start, found by scanning forward from the last word only: searching back from
      // each word made a one-line script of n words take n^2 steps.
      for (; col_scan_ < pos_; ++col_scan_) {
        if (s_[col_scan_] == '\n') line_start_ = col_scan_ + 1;
      }
      w.col = static_cast<int>(pos_ - line_start_) + 1;
    }
    if (++words_ > static_cast<size_t>(limits::kMaxArguments)) {
      throw_input(SourceLocation{path_, line_, w.col, ""},
                  "the launch script holds more than {} words (the limit of a launch's arguments)",
                  limits::kMaxArguments);
    }
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '|') break;
      if (c == '&' && !(pos_ + 1 < s_.size() && s_[pos_ + 1] == '>' && w.raw.empty())) {
        if (!(w.raw.size() > 0 && w.raw.back() == '>')) break;  // `2>&1` stays one word
      }
      if (c == ')' && array_depth_ > 0) break;
      if (c == '(' && is_array_start(w.raw)) {
        array_literal(w);
        continue;
      }
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
      if (c == '`') {
        backtick_group(w);
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
          if (d == '\\' && pos_ + 1 < s_.size() &&
              std::string_view("\"\\$`\n").find(s_[pos_ + 1]) != std::string_view::npos) {
            if (s_[pos_ + 1] != '\n') w.text += s_[pos_ + 1];
            if (s_[pos_ + 1] == '\n') ++line_;
            w.raw += s_.substr(pos_, 2);
            pos_ += 2;
            continue;
          }
          if (d == '$' && pos_ + 1 < s_.size() && (s_[pos_ + 1] == '(' || s_[pos_ + 1] == '{')) {
            dollar_group(w);
            continue;
          }
          if (d == '`') {
            backtick_group(w);
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
    note_heredoc(w);
    return w;
  }

  // `<<TAG`, `<<-TAG`, `<<'TAG'`, `<< "TAG"`: the body starts on the next line.
  void note_heredoc(const Word& w) {
    if (pending_tag_) {
      pending_tag_ = false;
      heredocs_.push_back({w.text, pending_strip_});
      return;
    }
    if (w.raw.rfind("<<", 0) != 0 || w.raw.rfind("<<<", 0) == 0) return;
    const bool strip = w.raw.size() > 2 && w.raw[2] == '-';
    std::string tag = w.text.substr(strip ? 3 : 2);
    if (tag.empty()) {
      pending_tag_ = true;
      pending_strip_ = strip;
      return;
    }
    heredocs_.push_back({tag, strip});
  }

  std::string_view s_;
  const std::string& path_;
  size_t pos_ = 0;
  int line_ = 1;
  bool columns_ = true;
  int array_depth_ = 0;
  size_t words_ = 0;       ///< words read so far (bounded by limits::kMaxArguments)
  size_t col_scan_ = 0;    ///< how far line_start_ has been looked for
  size_t line_start_ = 0;  ///< where the line of col_scan_ starts
  std::vector<std::pair<std::string, bool>> heredocs_;
  bool pending_tag_ = false;
  bool pending_strip_ = false;
};

// ---------------------------------------------------------------------------------------------
// Expansion: what a word becomes once the script's own variables are substituted.

struct Var {
  std::vector<std::string> words;  ///< one for a scalar
  std::vector<int> lines;          ///< the line of each word's definition
  std::vector<char> open;          ///< per word: it holds an expansion the script does not set
  std::vector<Segs> segs;          ///< per word: its pieces (missing: the word is literal)
  bool array = false;
  bool unresolved = false;  ///< its value is only known when the script runs ($(...), set in a branch)
};

// The pieces of a variable's k-th word.
Segs segs_of(const Var& v, size_t k) {
  if (k < v.segs.size()) return v.segs[k];
  Segs segs;
  add_literal(segs, v.words[k]);
  return segs;
}

struct XWord {
  std::string text;
  bool unresolved = false;
  bool placeholder = false;  ///< an array expansion of an array the script does not set
  int line = 0;
  Segs segs;  ///< the pieces of `text`
};

// What the expansions of one script have built so far, against its limits: variables and arrays
// that double each other (X="$X$X", A=("${A[@]}" "${A[@]}")) stop at a named limit, not at the
// machine's memory.
struct Budget {
  int64_t bytes = 0;
  int64_t words = 0;
};

class Expander {
 public:
  Expander(const std::map<std::string, Var>& vars, const std::string& path, Budget& budget)
      : vars_(vars), path_(path), budget_(budget) {}

  /// The words `raw` expands to (several when an unquoted expansion splits or an array expands);
  /// `col` is where the word starts, for errors.
  std::vector<XWord> expand(const std::string& raw, int line, int col = 0) {
    out_.clear();
    cur_ = XWord{};
    cur_.line = line;
    have_ = false;
    line_ = line;
    col_ = col;
    size_t i = 0;
    while (i < raw.size()) {
      const char c = raw[i];
      if (c == '\'') {
        // The splitter closed every quote of `raw`; were one open here, the rest is its text
        // (never `end + 1` of npos, which wrapped to 0 and expanded the word again and again).
        const size_t end = std::min(raw.find('\'', i + 1), raw.size());
        literal(std::string_view(raw).substr(i + 1, end - i - 1));
        i = end + 1;
      } else if (c == '"') {
        have_ = true;
        ++i;
        while (i < raw.size() && raw[i] != '"') {
          if (raw[i] == '\\' && i + 1 < raw.size() && std::string_view("\"\\$`\n").find(raw[i + 1]) != std::string_view::npos) {
            if (raw[i + 1] != '\n') literal(std::string_view(raw).substr(i + 1, 1));
            i += 2;
          } else if (raw[i] == '$') {
            i = dollar(raw, i, true);
          } else if (raw[i] == '`') {
            i = backtick(raw, i);
          } else {
            literal(std::string_view(raw).substr(i++, 1));
          }
        }
        ++i;
      } else if (c == '\\' && i + 1 < raw.size()) {
        literal(std::string_view(raw).substr(i + 1, 1));
        i += 2;
      } else if (c == '$') {
        i = dollar(raw, i, false);
      } else if (c == '`') {
        i = backtick(raw, i);
      } else {
        literal(std::string_view(raw).substr(i++, 1));
      }
    }
    if (have_ || !cur_.text.empty()) emit();
    return out_;
  }

  /// `raw` expanded as one word, as in an assignment (no splitting; arrays joined by spaces). The
  /// joined word is held to the word limit too, before it is built: words each under the limit
  /// would otherwise join into one of any size the script's budget allows.
  XWord expand_joined(const std::string& raw, int line, int col = 0) {
    std::vector<XWord> words = expand(raw, line, col);
    if (words.size() == 1) {  // one word: nothing to join (no copy)
      words[0].line = line;
      return std::move(words[0]);
    }
    size_t size = words.empty() ? 0 : words.size() - 1;
    for (const XWord& w : words) size += w.text.size();
    if (static_cast<int64_t>(size) > limits::kMaxLaunchScriptBytes) word_too_big();
    XWord joined;
    joined.line = line;
    for (size_t i = 0; i < words.size(); ++i) {
      if (i) add_literal(joined.segs, " ");
      joined.text += (i ? " " : "") + words[i].text;
      joined.unresolved = joined.unresolved || words[i].unresolved;
      add_segs(joined.segs, words[i].segs);
    }
    return joined;
  }

 private:
  [[noreturn]] void over(const std::string& what) {
    throw_input(SourceLocation{path_, line_, col_, ""}, "{}", what);
  }

  // One word stays within the size of a launch script, however its variables expand into each
  // other, inside quotes as outside.
  void check_word() {
    if (static_cast<int64_t>(cur_.text.size()) > limits::kMaxLaunchScriptBytes) word_too_big();
  }
  [[noreturn]] void word_too_big() {
    over(fmt::format("a word expands to more than {} bytes (the limit of a launch script)",
                     limits::kMaxLaunchScriptBytes));
  }

  void literal(std::string_view text) {
    cur_.text += text;
    add_literal(cur_.segs, text);
    have_ = true;
    check_word();
  }

  // The current word is done: it counts against the script's budget.
  void emit() {
    budget_.bytes += static_cast<int64_t>(cur_.text.size());
    if (++budget_.words > limits::kMaxArguments) {
      over(fmt::format("the launch script expands to more than {} words in all (the limit of a launch's "
                       "arguments)",
                       limits::kMaxArguments));
    }
    if (budget_.bytes > limits::kMaxLaunchExpansionBytes) {
      over(fmt::format("the launch script's expansions make more than {} bytes in all", limits::kMaxLaunchExpansionBytes));
    }
    out_.push_back(std::move(cur_));
  }

  void push_word() {
    emit();
    cur_ = XWord{};
    cur_.line = line_;
    have_ = false;
  }

  // Appends expanded words: the first joins the current word, the rest start new ones. `segs`,
  // when given, holds each word's pieces (else a word is literal).
  void append(const std::vector<std::string>& words, const std::vector<int>& lines, bool split, bool unresolved,
              const std::vector<char>& open = {}, const std::vector<Segs>* segs = nullptr) {
    std::vector<Segs> pieces;
    std::vector<int> piece_lines;
    std::vector<char> piece_open;
    for (size_t k = 0; k < words.size(); ++k) {
      const char word_open = k < open.size() ? open[k] : 0;
      Segs word_segs;
      if (segs != nullptr && k < segs->size()) {
        word_segs = (*segs)[k];
      } else {
        add_literal(word_segs, words[k]);
      }
      if (!split) {
        pieces.push_back(std::move(word_segs));
        piece_lines.push_back(k < lines.size() ? lines[k] : line_);
        piece_open.push_back(word_open);
        continue;
      }
      for (Segs& field : split_fields(word_segs)) {
        pieces.push_back(std::move(field));
        piece_lines.push_back(k < lines.size() ? lines[k] : line_);
        piece_open.push_back(word_open);
      }
    }
    for (size_t k = 0; k < pieces.size(); ++k) {
      if (k > 0) push_word();
      if (k > 0 || cur_.text.empty()) cur_.line = piece_lines[k];
      size_t size = cur_.text.size();
      for (const Seg& seg : pieces[k]) size += seg.text.size();
      if (static_cast<int64_t>(size) > limits::kMaxLaunchScriptBytes) word_too_big();  // before copying
      for (const Seg& seg : pieces[k]) cur_.text += seg.text;
      add_segs(cur_.segs, pieces[k]);
      cur_.unresolved = cur_.unresolved || unresolved || piece_open[k] != 0;
      have_ = true;
      check_word();
    }
    if (!split && !pieces.empty()) have_ = true;
  }

  void keep_as_written(const std::string& text) {
    cur_.text += text;
    cur_.segs.push_back(Seg{text, true});
    cur_.unresolved = true;
    have_ = true;
    check_word();
  }

  // A backtick substitution at raw[i]: kept as written, as `$(...)` is; returns the index after it.
  size_t backtick(const std::string& raw, size_t i) {
    size_t end = i + 1;
    while (end < raw.size() && raw[end] != '`') end += raw[end] == '\\' ? 2 : 1;
    end = std::min(end, raw.size() - 1);
    keep_as_written(raw.substr(i, end + 1 - i));
    return end + 1;
  }

  // The body of `$(cat <<TAG ... TAG)`, expanded as a double-quoted string, or nullopt.
  std::optional<std::string> heredoc_body(const std::string& inner) {
    const std::string_view trimmed = util::trim(inner);
    if (trimmed.rfind("cat <<", 0) != 0) return std::nullopt;
    const size_t nl = trimmed.find('\n');
    if (nl == std::string_view::npos) return std::nullopt;
    std::string tag(util::trim(trimmed.substr(6, nl - 6)));
    const bool quoted = !tag.empty() && (tag.front() == '\'' || tag.front() == '"');
    if (quoted) tag = tag.substr(1, tag.size() - 2);
    if (!tag.empty() && tag.front() == '-') tag = tag.substr(1);
    const std::string_view body_and_tag = trimmed.substr(nl + 1);
    const size_t end = body_and_tag.rfind(tag);
    if (tag.empty() || end == std::string_view::npos) return std::nullopt;
    std::string body(body_and_tag.substr(0, end));
    if (quoted) return body;
    std::string escaped;
    for (char ch : body) {
      if (ch == '"') escaped += '\\';
      escaped += ch;
    }
    Expander inner_expander(vars_, path_, budget_);
    const XWord w = inner_expander.expand_joined("\"" + escaped + "\"", line_);
    if (w.unresolved) return std::nullopt;
    return w.text;
  }

  // An expansion at raw[i] == '$'; returns the index after it.
  size_t dollar(const std::string& raw, size_t i, bool quoted) {
    if (i + 1 >= raw.size()) {
      literal("$");
      return i + 1;
    }
    const char next = raw[i + 1];
    if (next == '(') {
      const size_t j = std::min(matching_paren(raw, i + 1), raw.size() - 1);
      const std::string group = raw.substr(i, j + 1 - i);
      if (const auto body = group.size() >= 3 ? heredoc_body(group.substr(2, group.size() - 3)) : std::nullopt) {
        append({*body}, {}, !quoted, false);
      } else {
        keep_as_written(group);
      }
      return j + 1;
    }
    if (next == '{') {
      const size_t close = matching_brace(raw, i + 1);
      const std::string inner = raw.substr(i + 2, close - i - 2);
      braced(inner, raw.substr(i, close + 1 - i), quoted);
      return close + 1;
    }
    if (is_name_char(next) && !std::isdigit(static_cast<unsigned char>(next))) {
      size_t j = i + 1;
      while (j < raw.size() && is_name_char(raw[j])) ++j;
      const std::string name = raw.substr(i + 1, j - i - 1);
      substitute(name, false, std::nullopt, "", raw.substr(i, j - i), quoted);
      return j;
    }
    if (std::isdigit(static_cast<unsigned char>(next)) || next == '@' || next == '*' || next == '#' || next == '?' ||
        next == '$' || next == '!') {
      keep_as_written(raw.substr(i, 2));
      return i + 2;
    }
    literal("$");
    return i + 1;
  }

  // The ')' that closes the '(' at raw[open], found as the splitter found it (Splitter::dollar_group):
  // parentheses inside quotes or after a backslash do not count, so `$(echo ')')` is one group.
  static size_t matching_paren(const std::string& raw, size_t open) {
    int depth = 0;
    char quote = 0;
    for (size_t j = open; j < raw.size(); ++j) {
      const char c = raw[j];
      if (quote == 0 && (c == '\'' || c == '"')) {
        quote = c;
      } else if (quote != 0 && c == quote) {
        quote = 0;
      } else if (quote == 0 && c == '\\') {
        ++j;
      } else if (quote == 0 && c == '(') {
        ++depth;
      } else if (quote == 0 && c == ')' && --depth == 0) {
        return j;
      }
    }
    return raw.size();
  }

  static size_t matching_brace(const std::string& raw, size_t open) {
    int depth = 0;
    for (size_t j = open; j < raw.size(); ++j) {
      if (raw[j] == '{') ++depth;
      if (raw[j] == '}' && --depth == 0) return j;
    }
    return raw.size() - 1;
  }

  // `${inner}`: NAME, NAME[@], NAME:-word, NAME-word, NAME:=word, NAME:+word.
  void braced(const std::string& inner, const std::string& written, bool quoted) {
    size_t j = 0;
    while (j < inner.size() && is_name_char(inner[j])) ++j;
    const std::string name = inner.substr(0, j);
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) {
      keep_as_written(written);
      return;
    }
    bool all = false;
    if (inner.compare(j, 3, "[@]") == 0 || inner.compare(j, 3, "[*]") == 0) {
      all = true;
      j += 3;
    }
    std::optional<std::string> op;
    std::string word;
    if (j < inner.size()) {
      for (const char* candidate : {":-", ":=", ":+", "-", "=", "+"}) {
        const std::string_view cand(candidate);
        if (inner.compare(j, cand.size(), cand) == 0) {
          op = std::string(cand);
          word = inner.substr(j + cand.size());
          break;
        }
      }
      if (!op) {  // ${X#pattern}, ${X/a/b}, ${X[0]} ...: not followed
        keep_as_written(written);
        return;
      }
    }
    substitute(name, all, op, word, written, quoted);
  }

  void substitute(const std::string& name, bool all, const std::optional<std::string>& op, const std::string& word,
                  const std::string& written, bool quoted) {
    const auto it = vars_.find(name);
    const bool set = it != vars_.end();
    const bool empty = !set || it->second.words.empty() || (it->second.words.size() == 1 && it->second.words[0].empty());
    const bool null_test = op && (*op)[0] == ':';
    const char kind = op ? op->back() : 0;
    const bool missing = null_test ? empty : !set;
    if (set && it->second.unresolved) {
      if (kind == '-' || kind == '=') {
        keep_as_written(written);  // its value depends on the run
        return;
      }
      keep_as_written(written);
      return;
    }
    if (kind == '+') {
      if (missing) return;
      append_word(word, quoted);
      return;
    }
    if (missing && (kind == '-' || kind == '=')) {
      append_word(word, quoted);
      return;
    }
    if (!set) {
      keep_as_written(written);
      return;
    }
    const Var& v = it->second;
    if (v.array && !all) {  // $A is the first element
      const std::vector<Segs> first = {v.words.empty() ? Segs{} : segs_of(v, 0)};
      append({v.words.empty() ? std::string() : v.words[0]}, v.lines, !quoted, false, v.open, &first);
      return;
    }
    if (v.array && quoted) {  // "${A[@]}": one word per element
      append(v.words, v.lines, false, false, v.open, &v.segs);
      return;
    }
    append(v.words, v.lines, !quoted, false, v.open, &v.segs);
  }

  void append_word(const std::string& word_raw, bool quoted) {
    Expander inner(vars_, path_, budget_);
    const XWord w = inner.expand_joined(quoted ? "\"" + word_raw + "\"" : word_raw, line_, col_);
    const std::vector<Segs> segs = {w.segs};
    append({w.text}, {}, !quoted, w.unresolved, {}, &segs);
    if (w.unresolved) cur_.unresolved = true;
  }

  const std::map<std::string, Var>& vars_;
  const std::string& path_;
  Budget& budget_;
  std::vector<XWord> out_;
  XWord cur_;
  bool have_ = false;
  int line_ = 0;
  int col_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Interpretation: which commands set variables, which launch, and what each launch passes.

constexpr std::array<std::string_view, 52> kNotLaunches = {
    "echo",   "printf", "cd",    "pushd", "popd",  "set",    "shopt",  "source",  ".",     "mkdir",    "rm",
    "cp",     "mv",     "ln",    "ls",    "cat",   "grep",   "awk",    "sed",     "wait",  "sleep",    "pkill",
    "kill",   "killall", "trap", "test",  "[",     "[[",     "true",   "false",   ":",     "return",   "shift",
    "ssh",    "scp",    "rsync", "tee",   "touch", "chmod",  "chown",  "hostname", "nvidia-smi", "pip", "git",
    "wget",   "curl",   "ulimit", "umask", "eval", "logger", "date",   "env"};

bool is_assignment_raw(const std::string& raw) {
  const size_t eq = raw.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  size_t end = eq;
  if (raw[end - 1] == '+') --end;
  if (end == 0 || std::isdigit(static_cast<unsigned char>(raw[0]))) return false;
  for (size_t i = 0; i < end; ++i) {
    if (!is_name_char(raw[i])) return false;
  }
  return true;
}

bool is_flag_text(const std::string& t) {
  if (t.size() < 2 || t[0] != '-') return false;
  if (std::isdigit(static_cast<unsigned char>(t[1])) || t[1] == '.') return false;  // a negative number
  return true;
}

bool is_redirection(const std::string& t) {
  if (t.empty()) return false;
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i < t.size() && t[i] == '&' && i + 1 < t.size() && t[i + 1] == '>') return true;
  return i < t.size() && (t[i] == '>' || t[i] == '<');
}

std::string basename_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_python(const std::string& word) {
  const std::string name = basename_of(word);
  return name == "python" || (name.rfind("python3", 0) == 0 && name.find_first_not_of("python3.0123456789") == std::string::npos);
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A word that starts a program rather than a launcher option's value.
bool is_program_word(const std::string& t) {
  const std::string name = basename_of(t);
  return is_python(t) || ends_with(name, ".py") || ends_with(name, ".sh") || name == "torchrun" || name == "srun" ||
         name == "mpirun" || name == "mpiexec" || name == "deepspeed" || name == "bash" || name == "sh" ||
         name == "numactl" || name == "nsys" || name == "uv" || name == "ray";
}

struct Item {
  std::string text;
  bool unresolved = false;
  bool placeholder = false;
  int line = 0;
  int col = 0;  ///< where the script writes it (0: unknown, or expanded from elsewhere)
  Segs segs;    ///< the pieces of `text` (none kept: literal, or $NAME references when unresolved)
};

// The pieces of an item, or of a text whose pieces were not kept.
Segs item_segs(const std::string& text, const Segs& segs, bool unresolved) {
  if (!segs.empty() || text.empty()) return segs;
  if (unresolved) return variable_segments(text);
  return Segs{Seg{text, false}};
}

// `--flag=value` split at `eq`: the flag's and the value's shell words.
std::vector<std::string> split_shell(const Item& w, size_t eq) {
  const Segs segs = item_segs(w.text, w.segs, w.unresolved);
  return {render(slice(segs, 0, eq)), render(slice(segs, eq + 1, w.text.size()))};
}

class Interpreter {
 public:
  Interpreter(const std::string& path) : path_(path) {}

  void run(const std::vector<Command>& commands, const std::vector<std::string>& outer_launchers = {},
           std::vector<LaunchArg> outer_args = {}) {
    for (const Command& command : commands) one(command, outer_launchers, outer_args);
  }

  LaunchArgs take() { return std::move(out_); }

 private:
  std::vector<Item> expand_words(const std::vector<Word>& words, size_t from) {
    std::vector<Item> items;
    Expander expander(vars_, path_, budget_);
    for (size_t i = from; i < words.size(); ++i) {
      const Word& w = words[i];
      const auto var = is_array_expansion(w) ? vars_.find(array_name(w)) : vars_.end();
      if (is_array_expansion(w) && (var == vars_.end() || var->second.unresolved)) {
        std::string raw = w.raw;
        if (raw.front() == '"') raw = raw.substr(1, raw.size() - 2);
        items.push_back(Item{raw, true, true, w.line});
        continue;
      }
      for (XWord& x : expander.expand(w.raw, w.line, w.col)) {
        items.push_back(Item{std::move(x.text), x.unresolved, false, x.line, x.line == w.line ? w.col : 0,
                             std::move(x.segs)});
      }
    }
    return items;
  }

  // "${NAME[@]}" or "${NAME[*]}", quoted or not.
  static bool is_array_expansion(const Word& w) {
    std::string_view raw = w.raw;
    if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"') raw = raw.substr(1, raw.size() - 2);
    if (raw.size() < 7 || raw.substr(0, 2) != "${" || raw.back() != '}') return false;
    const std::string_view inner = raw.substr(2, raw.size() - 3);
    const size_t bracket = inner.find('[');
    if (bracket == std::string_view::npos || bracket == 0) return false;
    const std::string_view index = inner.substr(bracket);
    if (index != "[@]" && index != "[*]") return false;
    for (char c : inner.substr(0, bracket)) {
      if (!is_name_char(c)) return false;
    }
    return true;
  }
  static std::string array_name(const Word& w) {
    const size_t open = w.raw.find("${");
    return w.raw.substr(open + 2, w.raw.find('[') - open - 2);
  }

  void assign(const Word& w) {
    const size_t eq = w.raw.find('=');
    const bool append_to = w.raw[eq - 1] == '+';
    const std::string name = w.raw.substr(0, append_to ? eq - 1 : eq);
    Var v;
    Expander expander(vars_, path_, budget_);
    if (w.is_array_literal) {
      v.array = true;
      for (const Word& e : w.elements) {
        for (XWord& x : expander.expand(e.raw, e.line, e.col)) {
          v.words.push_back(std::move(x.text));
          v.lines.push_back(x.line);
          v.open.push_back(x.unresolved ? 1 : 0);
          v.segs.push_back(std::move(x.segs));
        }
      }
    } else {
      XWord x = expander.expand_joined(w.raw.substr(eq + 1), w.line, w.col);
      v.words = {std::move(x.text)};
      v.lines = {w.line};
      v.segs = {std::move(x.segs)};
      v.unresolved = x.unresolved;
    }
    if (!blocks_.empty()) v.unresolved = true;  // set in a branch or loop: known only when the script runs
    if (append_to && vars_.count(name)) {
      Var& old = vars_[name];
      for (size_t k = old.segs.size(); k < old.words.size(); ++k) old.segs.push_back(segs_of(old, k));
      if (v.array) {
        old.words.insert(old.words.end(), v.words.begin(), v.words.end());
        old.lines.insert(old.lines.end(), v.lines.begin(), v.lines.end());
        old.open.insert(old.open.end(), v.open.begin(), v.open.end());
        old.segs.insert(old.segs.end(), v.segs.begin(), v.segs.end());
      } else if (!old.words.empty()) {
        old.words.back() += v.words[0];
        add_segs(old.segs.back(), v.segs[0]);
      }
      old.unresolved = old.unresolved || v.unresolved;
      return;
    }
    vars_[name] = std::move(v);
  }

  std::string var_text(const std::string& name) const {
    const auto it = vars_.find(name);
    if (it == vars_.end()) return "";
    return util::join(it->second.words, " ");
  }

  // A variable's value as one bash word (its words joined by spaces).
  std::string var_shell(const std::string& name) const {
    const auto it = vars_.find(name);
    if (it == vars_.end()) return "''";
    Segs joined;
    for (size_t k = 0; k < it->second.words.size(); ++k) {
      if (k) add_literal(joined, " ");
      add_segs(joined, segs_of(it->second, k));
    }
    return render(joined);
  }

  // Control words; returns false when the rest of the command is not to be interpreted.
  bool control(std::vector<Word>& words) {
    while (!words.empty()) {
      const std::string& t = words.front().raw;
      if (!blocks_.empty() && blocks_.back() == 'c' && t.size() > 1 && t.back() == ')' && t != "$()") {
        words.erase(words.begin());  // a case arm's pattern
      } else if (t == "then" || t == "do" || t == "else" || t == "!" || t == "time" || t == "exec") {
        words.erase(words.begin());
      } else if (t == "if" || t == "while" || t == "until") {
        blocks_.push_back(t == "if" ? 'i' : 'l');
        return false;  // the condition is not a launch
      } else if (t == "elif") {
        return false;
      } else if (t == "for" || t == "select") {
        blocks_.push_back('l');
        return false;
      } else if (t == "case") {
        blocks_.push_back('c');
        return false;
      } else if (t == "fi" || t == "done" || t == "esac" || t == "}") {
        if (!blocks_.empty()) blocks_.pop_back();
        words.erase(words.begin());
      } else if (t == ";;") {
        words.erase(words.begin());
      } else if (t == "{") {
        if (function_brace_) {
          function_brace_ = false;
        } else {
          blocks_.push_back('{');
        }
        words.erase(words.begin());
      } else if (t == "function" || (ends_with(t, "()") && t.size() > 2 && !is_assignment_raw(t))) {
        blocks_.push_back('f');
        function_brace_ = true;
        const std::string head = t;  // `t` is the word erased next: `name() {` read it freed (fuzzing found it)
        words.erase(words.begin());
        if (head == "function" && !words.empty()) {
          functions_.push_back(words.front().text);
          words.erase(words.begin());
        } else {
          functions_.push_back(head.substr(0, head.size() - 2));
        }
        if (!words.empty() && words.front().raw == "()") words.erase(words.begin());
      } else {
        return true;
      }
    }
    return false;
  }

  void one(const Command& command, const std::vector<std::string>& outer_launchers,
           const std::vector<LaunchArg>& outer_args) {
    std::vector<Word> words = command.words;
    conditional_ = command.conditional;
    if (!control(words)) return;
    size_t first = 0;
    while (first < words.size() && is_assignment_raw(words[first].raw)) ++first;
    if (first == words.size()) {
      for (const Word& w : words) assign(w);
      return;
    }
    std::vector<LaunchExport> prefix;
    for (size_t i = 0; i < first; ++i) {
      const size_t eq = words[i].raw.find('=');
      Expander expander(vars_, path_, budget_);
      const XWord x = expander.expand_joined(words[i].raw.substr(eq + 1), words[i].line, words[i].col);
      prefix.push_back({words[i].raw.substr(0, eq), x.text, words[i].line, x.unresolved, "prefix", render(x.segs)});
    }
    const std::string name = words[first].text;
    if (name == "export" || name == "declare" || name == "local" || name == "typeset" || name == "readonly") {
      for (size_t i = first + 1; i < words.size(); ++i) {
        if (is_assignment_raw(words[i].raw)) {
          assign(words[i]);
          if (name == "export") {
            const std::string var = words[i].raw.substr(0, words[i].raw.find('='));
            const Var& v = vars_[var];
            out_.exports.push_back({var, v.unresolved ? words[i].text.substr(var.size() + 1) : var_text(var),
                                    words[i].line, v.unresolved, "export", var_shell(var)});
          }
        } else if (name == "export" && !is_flag_text(words[i].text) && vars_.count(words[i].text)) {
          out_.exports.push_back({words[i].text, var_text(words[i].text), words[i].line, vars_[words[i].text].unresolved,
                                  "export", var_shell(words[i].text)});
        }
      }
      return;
    }
    if (name == "read") {
      read_array(words, first);
      return;
    }
    if (name == "mapfile" || name == "readarray") {  // the array's words come from the command's input
      for (size_t i = words.size(); i-- > first + 1;) {
        if (!is_flag_text(words[i].text) && words[i].text.find('<') == std::string::npos) {
          vars_[words[i].text] = Var{{}, {}, {}, {}, true, true};
          break;
        }
      }
      return;
    }
    if (std::find(functions_.begin(), functions_.end(), name) != functions_.end()) return;  // the script's own function
    if (name == "unset") {
      for (size_t i = first + 1; i < words.size(); ++i) vars_.erase(words[i].text);
      return;
    }
    if (name == "exit") {
      if (blocks_.empty() && !command.conditional && exit_line_ == 0) exit_line_ = words[first].line;
      return;
    }
    std::vector<Item> items = expand_words(words, first);
    drop_redirections(items);
    if (items.empty()) return;
    launch(items, 0, prefix, outer_launchers, outer_args);
  }

  void read_array(const std::vector<Word>& words, size_t first) {
    std::string target;
    bool array = false;
    std::optional<Word> source;
    for (size_t i = first + 1; i < words.size(); ++i) {
      const std::string& t = words[i].text;
      if (t.rfind("<<<", 0) == 0) {
        if (t.size() > 3) {
          Word w = words[i];
          w.raw = w.raw.substr(3);
          source = w;
        } else if (i + 1 < words.size()) {
          source = words[i + 1];
        }
        break;
      }
      if (is_flag_text(t)) {
        array = array || t.find('a') != std::string::npos;
        continue;
      }
      if (target.empty()) target = t;
    }
    if (target.empty()) return;
    Var v;
    v.array = array;
    if (!source) {
      v.unresolved = true;
    } else {
      Expander expander(vars_, path_, budget_);
      const XWord x = expander.expand_joined(source->raw, source->line, source->col);
      v.unresolved = x.unresolved || !blocks_.empty();
      for (const std::string& part : util::split(x.text, ' ')) {
        if (!part.empty()) {
          v.words.push_back(part);
          v.lines.push_back(source->line);
          v.open.push_back(0);
        }
      }
    }
    vars_[target] = std::move(v);
  }

  static void drop_redirections(std::vector<Item>& items) {
    std::vector<Item> kept;
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string& t = items[i].text;
      if (!items[i].placeholder && is_redirection(t)) {
        const char last = t.back();
        if (last == '>' || last == '<') ++i;  // the file is the next word
        continue;
      }
      kept.push_back(items[i]);
    }
    items = std::move(kept);
  }

  // Arguments from items[k..end): flags start a new argument, other words are its values; a
  // Megatron-Bridge override or run_recipe.py option is the Megatron-LM arguments it sets.
  static std::vector<LaunchArg> arguments(const std::vector<Item>& items, size_t k, size_t end,
                                          const std::string& path, std::vector<LaunchArg>* unset = nullptr) {
    std::vector<LaunchArg> args;
    for (; k < end; ++k) {
      const Item& w = items[k];
      if (w.placeholder) {
        args.push_back(LaunchArg{w.text, {}, true, true, w.line, 0});
        continue;
      }
      const Seg* run_time = first_run_time(w.segs);
      if (is_bridge_override(w.text)) {
        std::vector<LaunchArg> set = bridge_override_args(w.text, path, w.line, w.unresolved, w.col);
        for (LaunchArg& a : set) {
          if (run_time) a.runs = run_time->text;
        }
        if (set.empty() && unset != nullptr) {
          LaunchArg word{w.text, {}, false, w.unresolved, w.line};
          word.col = w.col;
          word.bridge = true;
          unset->push_back(std::move(word));
        }
        for (LaunchArg& a : set) args.push_back(std::move(a));
        // A word after an override is no value of it.
        args.push_back(LaunchArg{"", {}, false, false, w.line});
        continue;
      }
      if (is_flag_text(w.text)) {
        const size_t eq = w.text.find('=');
        if (w.text.rfind("--", 0) == 0 && eq != std::string::npos) {
          args.push_back(LaunchArg{w.text.substr(0, eq), {w.text.substr(eq + 1)}, false, w.unresolved, w.line});
          args.back().shell = split_shell(w, eq);
        } else {
          args.push_back(LaunchArg{w.text, {}, false, false, w.line});
          args.back().shell = {render(item_segs(w.text, w.segs, w.unresolved))};
        }
        args.back().col = w.col;  // where errors about the argument point
        if (run_time) args.back().runs = run_time->text;
        continue;
      }
      if (args.empty()) continue;  // a word before any flag: part of the command
      LaunchArg& arg = args.back();
      arg.values.push_back(w.text);
      arg.unresolved = arg.unresolved || w.unresolved;
      if (run_time && arg.runs.empty()) arg.runs = run_time->text;
      if (arg.shell.size() == arg.values.size()) {  // a flag read word by word: its words kept
        arg.shell.push_back(render(item_segs(w.text, w.segs, w.unresolved)));
      } else {
        arg.shell.clear();
      }
    }
    std::vector<LaunchArg> out;
    for (LaunchArg& a : args) {
      if (a.flag.empty()) {
        // The end of an override: a word after it is no value of it (run_recipe.py refuses it).
        for (const std::string& word : a.values) out.push_back(LaunchArg{word, {}, false, a.unresolved, a.line});
        continue;
      }
      if (auto options = bridge_option_args(a, path)) {
        if (options->empty() && unset != nullptr) {
          a.bridge = true;  // a run_recipe.py option set to null: no argument, still Bridge's syntax
          unset->push_back(a);
        }
        for (LaunchArg& o : *options) {
          if (o.runs.empty()) o.runs = a.runs;
          out.push_back(std::move(o));
        }
        continue;
      }
      out.push_back(std::move(a));
    }
    settle_peft_defaults(out);  // peft.dim=8 after --mode lora: the launch's rank
    return out;
  }

  // A launcher's own options from items[k]: returns the index of the program it runs.
  static size_t launcher_options(const std::vector<Item>& items, size_t k, std::vector<LaunchArg>& args,
                                 bool until_separator) {
    while (k < items.size()) {
      const Item& w = items[k];
      if (w.text == "--") return k + 1;
      if (!is_flag_text(w.text) || w.placeholder) {
        if (until_separator && !is_program_word(w.text) && !args.empty()) {
          args.back().values.push_back(w.text);
          ++k;
          continue;
        }
        return k;
      }
      const size_t eq = w.text.find('=');
      if (w.text.rfind("--", 0) == 0 && eq != std::string::npos) {
        args.push_back(LaunchArg{w.text.substr(0, eq), {w.text.substr(eq + 1)}, false, w.unresolved, w.line});
      } else {
        args.push_back(LaunchArg{w.text, {}, false, false, w.line});
        if (k + 1 < items.size() && !is_flag_text(items[k + 1].text) && !is_program_word(items[k + 1].text) &&
            items[k + 1].text != "--") {
          args.back().values.push_back(items[k + 1].text);
          args.back().unresolved = items[k + 1].unresolved;
          ++k;
        }
      }
      ++k;
    }
    return k;
  }

  void runtime_env(const LaunchArg& arg, Launch& launch) {
    if (arg.flag != "--runtime-env-json" || arg.values.size() != 1) return;
    try {
      const nlohmann::ordered_json j = nlohmann::ordered_json::parse(arg.values[0]);
      if (!j.is_object() || !j.contains("env_vars") || !j["env_vars"].is_object()) return;
      for (const auto& [key, value] : j["env_vars"].items()) {
        const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
        launch.env.push_back({key, text, arg.line, text.find('$') != std::string::npos, "runtime-env"});
      }
    } catch (const nlohmann::json::exception&) {
      // Not JSON ladle can read: the env vars stay unknown.
    }
  }

  void launch(const std::vector<Item>& items, size_t k, const std::vector<LaunchExport>& prefix,
              std::vector<std::string> launchers, std::vector<LaunchArg> launcher_args) {
    Launch l;
    l.env = prefix;
    l.line = items[k].line;
    while (k < items.size()) {
      const std::string program = basename_of(items[k].text);
      if (program == "ray" && k + 1 < items.size() &&
          (items[k + 1].text == "start" || items[k + 1].text == "stop" || items[k + 1].text == "status")) {
        Launch setup;
        setup.launchers = launchers;
        setup.launchers.push_back("ray " + items[k + 1].text);
        setup.launcher_args = launcher_args;
        const std::vector<LaunchArg> own = arguments(items, k + 2, items.size(), path_);
        setup.launcher_args.insert(setup.launcher_args.end(), own.begin(), own.end());
        setup.line = items[k].line;
        out_.setup.push_back(std::move(setup));
        return;
      }
      if (program == "ray" && k + 2 < items.size() && items[k + 1].text == "job" && items[k + 2].text == "submit") {
        launchers.push_back("ray job submit");
        std::vector<LaunchArg> own;
        k = launcher_options(items, k + 3, own, true);
        for (const LaunchArg& a : own) runtime_env(a, l);
        launcher_args.insert(launcher_args.end(), own.begin(), own.end());
        continue;
      }
      if (program == "torchrun" || program == "srun" || program == "mpirun" || program == "mpiexec" ||
          program == "deepspeed" || program == "numactl" || program == "nsys") {
        launchers.push_back(program);
        k = launcher_options(items, k + 1, launcher_args, false);
        if (program == "nsys" && k < items.size() && items[k].text == "profile") {
          k = launcher_options(items, k + 1, launcher_args, false);
        }
        continue;
      }
      if (program == "uv" && k + 1 < items.size() && items[k + 1].text == "run") {
        launchers.push_back("uv run");
        k = launcher_options(items, k + 2, launcher_args, false);
        continue;
      }
      if ((program == "bash" || program == "sh") && k + 2 < items.size() && items[k + 1].text == "-c") {
        launchers.push_back(program + " -c");
        const std::vector<Command> inner = Splitter(items[k + 2].text, path_, items[k + 2].line).split();
        const int saved_exit = exit_line_;
        run(inner, launchers, launcher_args);
        exit_line_ = saved_exit;
        return;
      }
      if (is_python(items[k].text)) {
        size_t j = k + 1;
        std::string module;
        while (j < items.size() && is_flag_text(items[j].text) && items[j].text != "-m") ++j;
        if (j < items.size() && items[j].text == "-m" && j + 1 < items.size()) {
          module = items[j + 1].text;
          if (module == "torch.distributed.run" || module == "torch.distributed.launch") {
            launchers.push_back("python -m " + module);
            k = launcher_options(items, j + 2, launcher_args, false);
            continue;
          }
          l.command = items[k].text + " -m " + module;
          l.entry = "python -m " + module;
          j += 2;
        } else if (j < items.size()) {
          l.command = items[k].text + " " + items[j].text;
          l.entry = "python " + basename_of(items[j].text);
          ++j;
        } else {
          return;  // an interactive interpreter: no launch
        }
        finish(l, items, j, launchers, launcher_args);
        return;
      }
      if (ends_with(program, ".py")) {
        l.command = items[k].text;
        l.entry = "python " + program;
        finish(l, items, k + 1, launchers, launcher_args);
        return;
      }
      break;
    }
    if (k >= items.size()) return;
    const std::string program = basename_of(items[k].text);
    bool skipped = launchers.empty() && (program == "bash" || program == "sh");
    for (std::string_view name : kNotLaunches) skipped = skipped || program == name;
    if (skipped) return;
    // Another program: an engine call when it passes flags (the words before the first are its name).
    size_t first_flag = k;
    while (first_flag < items.size() && !is_flag_text(items[first_flag].text) && !items[first_flag].placeholder &&
           !is_bridge_override(items[first_flag].text)) {
      ++first_flag;
    }
    if (first_flag == items.size() && launchers.empty()) return;
    // A flag without a program after && or ||: the rest of a test (`[[ -f x && -f y ]]`). A line of
    // flags alone is a job's arguments (predict --args).
    if (first_flag == k && launchers.empty() && conditional_) return;
    std::vector<std::string> head;
    for (size_t i = k; i < first_flag; ++i) head.push_back(items[i].text);
    l.command = util::join(head, " ");
    l.entry = l.command;
    if (head.empty() && launchers.empty()) {
      // A line of arguments alone: `mixed_precision=bf16_mixed model.x=1` reads to bash as a
      // prefix assignment, but it is the job's first override.
      std::vector<Item> with = items;
      size_t at = first_flag;
      for (const LaunchExport& e : prefix) {
        const std::string word = e.name + "=" + e.value;
        if (e.how != "prefix" || !is_bridge_override(word)) continue;
        with.insert(with.begin() + static_cast<std::ptrdiff_t>(at++), Item{word, e.unresolved, false, e.line});
        l.env.erase(std::remove(l.env.begin(), l.env.end(), e), l.env.end());
      }
      finish(l, with, first_flag, launchers, launcher_args);
      return;
    }
    finish(l, items, first_flag, launchers, launcher_args);
  }

  void finish(Launch& l, const std::vector<Item>& items, size_t k, const std::vector<std::string>& launchers,
              const std::vector<LaunchArg>& launcher_args) {
    if (exit_line_ > 0) {
      throw_input(SourceLocation{path_, l.line, 0, ""},
                  "the launch of '{}' is never reached: the script exits at line {}", l.command, exit_line_);
    }
    l.launchers = launchers;
    l.launcher_args = launcher_args;
    for (LaunchArg& a : l.launcher_args) a.command = kLauncherArg;
    l.args = arguments(items, k, items.size(), path_, &out_.unset_overrides);
    for (const Item& item : items) {
      if (item.placeholder) continue;
      if (const Seg* seg = first_run_time(item.segs)) {
        out_.run_time_words.push_back(RunTimeWord{item.text, seg->text, item.line, item.col});
      }
    }
    for (LaunchArg& a : l.args) a.command = out_.launches.size();
    out_.commands.push_back(l.command);
    out_.args.insert(out_.args.end(), l.launcher_args.begin(), l.launcher_args.end());
    out_.args.insert(out_.args.end(), l.args.begin(), l.args.end());
    out_.launches.push_back(std::move(l));
  }

  const std::string& path_;
  std::map<std::string, Var> vars_;
  Budget budget_;
  LaunchArgs out_;
  std::vector<char> blocks_;  ///< open if (i), loop (l), case (c), function (f), brace ({) blocks
  std::vector<std::string> functions_;
  bool function_brace_ = false;
  bool conditional_ = false;  ///< the command being read follows && or ||
  int exit_line_ = 0;
};

}  // namespace

bool is_variable_reference(std::string_view written) {
  if (written.size() < 2 || written[0] != '$') return false;
  const bool braced = written[1] == '{';
  size_t j = braced ? 2 : 1;
  const size_t start = j;
  while (j < written.size() && is_name_char(written[j])) ++j;
  if (j == start || std::isdigit(static_cast<unsigned char>(written[start]))) return false;
  if (!braced) return j == written.size();
  if (written.back() != '}') return false;
  std::string_view rest = written.substr(j, written.size() - 1 - j);
  if (rest.starts_with("[@]") || rest.starts_with("[*]")) rest.remove_prefix(3);
  if (rest.empty()) return true;
  for (std::string_view op : {":-", ":=", ":+", "-", "=", "+"}) {
    if (rest.starts_with(op)) {
      // The word after the operator may name variables ($HOME); one that runs a command, or is
      // quoted or escaped, is read differently by the run than by ladle.
      for (const Seg& seg : variable_segments(rest.substr(op.size()))) {
        if (!seg.open && seg.text.find_first_of("$`\\'\"") != std::string::npos) return false;
      }
      return true;
    }
  }
  return false;
}

std::string variable_shell_word(std::string_view text) { return render(variable_segments(text)); }

LaunchArgs parse_launch_args(std::string_view script, const std::string& path) {
  Interpreter interpreter(path);
  interpreter.run(Splitter(script, path).split());
  return interpreter.take();
}

}  // namespace ladle::args
