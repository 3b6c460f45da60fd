#pragma once
// shell_quote.hpp: the one way ladle writes a word into a shell script (a job, a trial, a Ray
// entry point): the literal text, quoted so that bash reads back exactly that text and expands
// nothing in it. Expansions a script is meant to make ($NAME of a job input) are written by the
// caller beside quoted words, never inside them.

#include <string>
#include <string_view>

namespace ladle::util {

/// How shell_quote writes a word.
enum class ShellQuoting {
  bash_line,  ///< bare when plain, '...' otherwise, $'...' for a control character: one line, for bash
  posix,      ///< always '...', newlines kept inside: for /bin/sh too (a Ray entry point runs under sh)
};

/// `text` as one shell word that stands for exactly `text`. bash_line: bare when every byte is
/// plain (letters, digits and `_./:,=+@%-`), single-quoted otherwise (a quote as '\''), and ANSI-C
/// quoted ($'...', control bytes as \n, \t or \xHH) when it holds a control character, so that the
/// word never spans lines (a comment or a header line stays one line). posix: single-quoted
/// always. "" is ''.
std::string shell_quote(std::string_view text, ShellQuoting how = ShellQuoting::bash_line);

/// Whether shell_quote writes `text` bare (every byte plain, not empty).
bool is_plain_shell_word(std::string_view text);

}  // namespace ladle::util
