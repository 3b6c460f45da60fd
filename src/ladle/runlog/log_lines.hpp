#pragma once
// log_lines.hpp: a log split into lines with the noise that launchers and terminals add taken off,
// the common ground of every reader.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ladle::runlog {

/// One physical line of a log, cleaned.
struct LogLine {
  std::string text;  ///< without launcher prefixes, ANSI colours, Ray notices, leading timestamp
  std::optional<std::string> timestamp;      ///< the leading timestamp, normalised, if any
  std::optional<std::string> any_timestamp;  ///< the first timestamp anywhere on the line
  int line = 0;                              ///< 1-based
  /// Where `text` starts in the raw line (bytes), or -1 when cleaning changed it inside (ANSI).
  int offset = -1;

  /// The 1-based column in the raw line of text[index], or 0 when unknown.
  int column(size_t index) const { return offset < 0 ? 0 : offset + static_cast<int>(index) + 1; }
};

/// Splits `text` into cleaned lines. Removes, in this order: a trailing CR and anything before the
/// last CR of a line (terminal progress redraws); ANSI escape sequences; Ray's
/// " [repeated Nx across cluster]" suffix; launcher prefixes, repeatedly: "[default0]:" (torchrun
/// --tee), "[rank3]:", "(ActorName pid=123, ip=10.0.0.1)" and "(name, pid=123)" (Ray), "1: "
/// (srun -l), "[1,0]<stdout>:" (mpirun); then surrounding blanks and a leading timestamp
/// "[YYYY-MM-DD HH:MM:SS(.ffffff)]" or "YYYY-MM-DD HH:MM:SS(,fff)" with what follows it up to " - "
/// when that is a Python logging location ("model.py:612 - ").
std::vector<LogLine> clean_lines(std::string_view text);

/// One line of clean_lines: `raw` is the physical line without its '\n', `number` its 1-based line.
LogLine clean_line(std::string_view raw, int number);

/// The first "YYYY-MM-DD[ T]HH:MM:SS[.,]fff" in `s` as "YYYY-MM-DD HH:MM:SS[.fff]", and where it
/// starts and ends; nullopt when there is none.
struct TimestampMatch {
  std::string value;
  size_t begin = 0;
  size_t end = 0;
};
std::optional<TimestampMatch> find_timestamp(std::string_view s);

/// `s.find(what, pos)`, the same answer, in one memmem: std::string_view::find compares at every
/// occurrence of `what`'s first letter, which on a long line of blanks or of that letter is a
/// comparison per byte (and under the fuzzer's instrumentation a traced call per byte).
size_t find_text(std::string_view s, std::string_view what, size_t pos = 0);

/// Parses a decimal number as Python or printf prints it, including "nan", "inf", "-inf",
/// "NaN", "Infinity"; nullopt when `s` (trimmed) is not exactly one number.
std::optional<double> parse_number(std::string_view s);

/// Parses a whole decimal integer (optionally written as "12.0"); nullopt otherwise.
std::optional<long long> parse_integer(std::string_view s);

}  // namespace ladle::runlog
