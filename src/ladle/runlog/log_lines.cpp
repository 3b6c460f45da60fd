#include "ladle/runlog/log_lines.hpp"

#include <cctype>
#include <cstring>
#include <charconv>
#include <cmath>
#include <limits>

#include "ladle/util/text.hpp"

namespace ladle::runlog {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool digits_at(std::string_view s, size_t pos, size_t count) {
  if (pos + count > s.size()) return false;
  for (size_t i = 0; i < count; ++i) {
    if (!is_digit(s[pos + i])) return false;
  }
  return true;
}

// "YYYY-MM-DD?HH:MM:SS" at pos, with `sep` either ' ' or 'T'.
bool timestamp_at(std::string_view s, size_t pos) {
  return digits_at(s, pos, 4) && pos + 19 <= s.size() && s[pos + 4] == '-' && digits_at(s, pos + 5, 2) &&
         s[pos + 7] == '-' && digits_at(s, pos + 8, 2) && (s[pos + 10] == ' ' || s[pos + 10] == 'T') &&
         digits_at(s, pos + 11, 2) && s[pos + 13] == ':' && digits_at(s, pos + 14, 2) && s[pos + 16] == ':' &&
         digits_at(s, pos + 17, 2);
}

std::string_view strip_ansi_inplace(std::string& s) {
  size_t esc = s.find('\x1b');
  if (esc == std::string::npos) return s;
  // The text between escape sequences is copied a run at a time, not a character at a time.
  std::string out;
  out.reserve(s.size());
  size_t from = 0;
  while (esc != std::string::npos) {
    if (esc + 1 < s.size() && s[esc + 1] == '[') {
      size_t j = esc + 2;
      while (j < s.size() && (is_digit(s[j]) || s[j] == ';' || s[j] == '?')) ++j;
      if (j < s.size()) {  // the final letter goes too
        out.append(s, from, esc - from);
        from = j + 1;
        esc = s.find('\x1b', from);
        continue;
      }
    }
    esc = s.find('\x1b', esc + 1);
  }
  out.append(s, from, std::string::npos);
  s = std::move(out);
  return s;
}

// Ray appends " [repeated 3x across cluster]" when it folds identical lines of several actors.
void strip_ray_repeated(std::string& s) {
  if (find_text(s, " [repeated ") == std::string::npos) return;  // most lines: one memmem, not rfind's compare per byte
  const size_t at = s.rfind(" [repeated ");
  if (at == std::string::npos) return;
  if (s.find("x across cluster]", at) != std::string::npos) s.erase(at);
}

// Removes one launcher prefix from the start of `s`; returns whether it did.
bool strip_one_prefix(std::string_view& s) {
  // torchrun --tee: "[default0]:", torch elastic: "[rank3]:"
  if (s.size() > 3 && s[0] == '[') {
    for (std::string_view head : {std::string_view("[default"), std::string_view("[rank")}) {
      if (s.substr(0, head.size()) == head) {
        size_t j = head.size();
        if (j < s.size() && is_digit(s[j])) {
          while (j < s.size() && is_digit(s[j])) ++j;
          if (j + 1 < s.size() && s[j] == ']' && s[j + 1] == ':') {
            s.remove_prefix(j + 2);
            return true;
          }
        }
      }
    }
    // mpirun --tag-output: "[1,0]<stdout>:"
    size_t j = 1;
    while (j < s.size() && (is_digit(s[j]) || s[j] == ',')) ++j;
    if (j > 1 && j < s.size() && s[j] == ']') {
      const std::string_view rest = s.substr(j + 1);
      for (std::string_view tag : {std::string_view("<stdout>:"), std::string_view("<stderr>:")}) {
        if (rest.substr(0, tag.size()) == tag) {
          s.remove_prefix(j + 1 + tag.size());
          return true;
        }
      }
    }
  }
  // Ray: "(MegatronTrainRayActor pid=123, ip=10.0.0.1)" or "(pretraining, pid=4112)"
  if (!s.empty() && s[0] == '(') {
    const size_t close = s.find(')');
    if (close != std::string_view::npos && close < 200) {
      const std::string_view inside = s.substr(1, close - 1);
      if (inside.find('(') == std::string_view::npos && inside.find("pid=") != std::string_view::npos) {
        s.remove_prefix(close + 1);
        return true;
      }
    }
  }
  // srun -l: "1: " (task number, colon, blank)
  if (!s.empty() && is_digit(s[0])) {
    size_t j = 0;
    while (j < s.size() && is_digit(s[j])) ++j;
    if (j <= 6 && j + 1 < s.size() && s[j] == ':' && s[j + 1] == ' ') {
      s.remove_prefix(j + 2);
      return true;
    }
  }
  return false;
}

std::string_view trim_view(std::string_view s) { return util::trim(s); }

}  // namespace

std::optional<TimestampMatch> find_timestamp(std::string_view s) {
  // A timestamp has its first '-' four bytes in: only the dashes are looked at (memchr), in order,
  // instead of every byte of the line.
  for (size_t from = 4; from < s.size();) {
    const void* dash = memchr(s.data() + from, '-', s.size() - from);
    if (dash == nullptr) break;
    const size_t pos = static_cast<size_t>(static_cast<const char*>(dash) - s.data()) - 4;
    from = pos + 5;
    if (pos + 19 > s.size()) break;
    if (!is_digit(s[pos]) || (pos > 0 && is_digit(s[pos - 1]))) continue;
    if (!timestamp_at(s, pos)) continue;
    TimestampMatch m;
    m.begin = pos;
    size_t end = pos + 19;
    std::string value(s.substr(pos, 19));
    value[10] = ' ';
    if (end + 1 < s.size() && (s[end] == '.' || s[end] == ',') && is_digit(s[end + 1])) {
      size_t j = end + 1;
      while (j < s.size() && is_digit(s[j])) ++j;
      value += '.';
      value += s.substr(end + 1, j - end - 1);
      end = j;
    }
    m.value = std::move(value);
    m.end = end;
    return m;
  }
  return std::nullopt;
}

std::vector<LogLine> clean_lines(std::string_view text) {
  std::vector<LogLine> lines;
  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    lines.push_back(clean_line(raw, ++number));
  }
  return lines;
}

LogLine clean_line(std::string_view raw, int number) {
  if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  if (const void* cr = raw.empty() ? nullptr : memrchr(raw.data(), '\r', raw.size())) {
    raw.remove_prefix(static_cast<const char*>(cr) - raw.data() + 1);
  }

  LogLine line;
  line.line = number;
  std::string owned(raw);
  strip_ansi_inplace(owned);
  strip_ray_repeated(owned);
  if (auto any = find_timestamp(owned)) line.any_timestamp = any->value;

  std::string_view s = trim_view(owned);
  for (int guard = 0; guard < 4 && strip_one_prefix(s); ++guard) s = trim_view(s);
  // A leading timestamp, bracketed or not, and a Python logging location after it.
  const bool bracketed = !s.empty() && s[0] == '[';
  const std::string_view inner = bracketed ? s.substr(1) : s;
  if (timestamp_at(inner, 0)) {
    auto m = find_timestamp(inner);
    size_t after = m->end;
    if (bracketed) {
      const size_t close = inner.find(']', after);
      after = close == std::string_view::npos ? after : close;  // "[ts prefix]" (slime's prefix)
      s = inner.substr(after + (close == std::string_view::npos ? 0 : 1));
    } else {
      s = inner.substr(after);
    }
    line.timestamp = m->value;
    s = trim_view(s);
    // "model.py:612 - message" (slime/miles logging format)
    const size_t dash = find_text(s, " - ");
    if (dash != std::string_view::npos && dash < 80) {
      const std::string_view location = s.substr(0, dash);
      const size_t colon = location.rfind(':');
      if (location.find(".py:") != std::string_view::npos && colon != std::string_view::npos &&
          location.find(' ') == std::string_view::npos) {
        s = trim_view(s.substr(dash + 3));
      }
    }
  }
  line.text = std::string(s);
  const size_t found = line.text.empty() ? 0 : find_text(raw, line.text);
  if (found != std::string_view::npos) line.offset = static_cast<int>(found);
  return line;
}

size_t find_text(std::string_view s, std::string_view what, size_t pos) {
  if (pos > s.size()) return std::string_view::npos;
  if (what.empty()) return pos;
  const void* at = memmem(s.data() + pos, s.size() - pos, what.data(), what.size());
  return at == nullptr ? std::string_view::npos : static_cast<size_t>(static_cast<const char*>(at) - s.data());
}

std::optional<double> parse_number(std::string_view s) {
  s = util::trim(s);
  if (s.empty()) return std::nullopt;
  std::string_view body = s;
  bool negative = false;
  if (body[0] == '+' || body[0] == '-') {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  const std::string lower = util::to_lower(body);
  if (lower == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (lower == "inf" || lower == "infinity") {
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (body.empty() || !(is_digit(body[0]) || body[0] == '.')) return std::nullopt;
  double value = 0;
  const auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (ec != std::errc() || ptr != body.data() + body.size()) return std::nullopt;
  return negative ? -value : value;
}

std::optional<long long> parse_integer(std::string_view s) {
  const auto value = parse_number(s);
  if (!value || !std::isfinite(*value) || *value != std::floor(*value) || std::fabs(*value) > 9e15) {
    return std::nullopt;
  }
  return static_cast<long long>(*value);
}

}  // namespace ladle::runlog
