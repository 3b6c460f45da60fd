#include "ladle/util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ladle::util {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<std::string> nearest_name(std::string_view name,
                                        std::span<const std::string> candidates) {
  const std::string lowered = to_lower(name);
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(2, name.size() / 3) + 1;
  for (const std::string& candidate : candidates) {
    // The distance is at least the difference in length: a candidate that cannot come nearer is
    // not compared, so a name of a megabyte costs its length, not its length times each candidate's.
    const size_t longer = std::max(lowered.size(), candidate.size());
    if (longer - std::min(lowered.size(), candidate.size()) >= best_distance) continue;
    const size_t d = edit_distance(lowered, to_lower(candidate));
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view name, std::span<const std::string> candidates) {
  const auto best = nearest_name(name, candidates);
  return best ? fmt::format(" (did you mean '{}'?)", *best) : std::string();
}

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t at = s.find(sep, start);
    parts.emplace_back(s.substr(start, at - start));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return parts;
}

std::string join(std::span<const std::string> parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

namespace {
std::string group_digits(std::string_view digits) {
  std::string out;
  const size_t lead = digits.size() % 3;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (i % 3) == lead % 3 && !(lead == 0 && i == 0)) out += ',';
    out += digits[i];
  }
  return out;
}
}  // namespace

std::string format_grouped(double value, int decimals) {
  std::string text = fmt::format("{:.{}f}", std::fabs(value), decimals);
  const size_t dot = text.find('.');
  const std::string whole = group_digits(text.substr(0, dot));
  const std::string fraction = dot == std::string::npos ? "" : text.substr(dot);
  const bool negative = value < 0 && text.find_first_not_of("0.") != std::string::npos;
  return (negative ? "-" : "") + whole + fraction;
}

std::string format_grouped(long long value) {
  const std::string digits = fmt::format("{}", value < 0 ? -value : value);
  return (value < 0 ? "-" : "") + group_digits(digits);
}

namespace {

std::string escape_controls(std::string_view s, bool keep_line_breaks) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto byte = static_cast<unsigned char>(s[i]);
    if (!keep_line_breaks && (byte == '\n' || byte == '\t')) {
      out += byte == '\n' ? "\\n" : "\\t";
    } else if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else if (byte == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      out += fmt::format("\\u00{:02x}", static_cast<unsigned char>(s[i + 1]));
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::string terminal_safe(std::string_view s) { return escape_controls(s, true); }

std::string terminal_safe_line(std::string_view s) { return escape_controls(s, false); }

}  // namespace ladle::util
