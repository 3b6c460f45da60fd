#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ladle::util {

/// Levenshtein distance between two strings (bytes).
size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate nearest to `name` by case-insensitive edit distance, if it is close enough to be a
/// plausible misspelling (distance at most max(2, size/3)).
std::optional<std::string> nearest_name(std::string_view name, std::span<const std::string> candidates);

/// " (did you mean 'x'?)" for the nearest candidate, or "" when none is close.
std::string did_you_mean(std::string_view name, std::span<const std::string> candidates);

/// Lowercase ASCII copy.
std::string to_lower(std::string_view s);

/// `s` without leading and trailing ASCII whitespace.
std::string_view trim(std::string_view s);

/// Splits on `sep`, keeping empty parts.
std::vector<std::string> split(std::string_view s, char sep);

/// Joins with `sep`.
std::string join(std::span<const std::string> parts, std::string_view sep);

/// Fixed-point with `decimals` digits and thousands separators: 6178.46 -> "6,178.46".
std::string format_grouped(double value, int decimals);

/// An integer with thousands separators: 3579314176 -> "3,579,314,176".
std::string format_grouped(long long value);

/// `s` safe to print on a terminal: control characters other than newline and tab (ESC, BEL, CR,
/// C1 controls U+0080-U+009F) become visible "\xNN" / "\u00NN" escapes, so text from an input
/// cannot move the cursor, clear the screen or retitle the terminal.
std::string terminal_safe(std::string_view s);

/// terminal_safe for text that must stay on one line (a table cell): newline and tab are
/// escaped too ("\n", "\t"), so a value cannot break a row or push columns apart.
std::string terminal_safe_line(std::string_view s);

}  // namespace ladle::util
