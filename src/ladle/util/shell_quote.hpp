#pragma once
// shell_quote.hpp: the one way ladle writes a word into a shell script (a job, a trial, a Ray
// entry point): the literal text, quoted so that bash reads back exactly that text and expands
// nothing in it. Expansions a script is meant to make ($NAME of a job input) are written by the
// caller beside quoted words, never inside them.

#include <string>
#include <string_view>

namespace ladle::util {

/// `text` as one bash word that stands for exactly `text`: bare when every byte is plain (letters,
/// digits and `_./:,=+@%-`), single-quoted otherwise (a quote as '\''), and ANSI-C quoted
/// ($'...', control bytes as \n, \t or \xHH) when it holds a control character, so that the word
/// never spans lines (a comment or a header line stays one line). "" is ''. With `bare_when_plain`
/// false a plain word is single-quoted too.
std::string shell_quote(std::string_view text, bool bare_when_plain = true);

/// Whether shell_quote writes `text` bare (every byte plain, not empty).
bool is_plain_shell_word(std::string_view text);

}  // namespace ladle::util
