#include "ladle/runlog/memory_report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>

#include "ladle/util/error.hpp"

namespace ladle::runlog {

namespace {

constexpr std::string_view kMarker = "memory (MB)";
constexpr double kMibPerGib = 1024.0;

// The number after `key` ("allocated:") at or after `from`, or nullopt; `at` receives where the
// number starts.
std::optional<double> number_after(std::string_view s, std::string_view key, size_t from,
                                   size_t& at) {
  const size_t k = s.find(key, from);
  if (k == std::string_view::npos) return std::nullopt;
  size_t i = k + key.size();
  while (i < s.size() && s[i] == ' ') ++i;
  at = i;
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data() + i, s.data() + s.size(), value);
  if (ec != std::errc() || end == s.data() + i || !std::isfinite(value) || value < 0)
    return std::nullopt;
  return value;
}

std::optional<int64_t> integer_after(std::string_view s, std::string_view key, size_t limit) {
  const size_t k = s.find(key);
  if (k == std::string_view::npos || k > limit) return std::nullopt;
  int64_t value = 0;
  const char* begin = s.data() + k + key.size();
  const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), value);
  if (ec != std::errc() || end == begin) return std::nullopt;
  return value;
}

}  // namespace

bool is_memory_report(std::string_view text) { return text.find(kMarker) != std::string_view::npos; }

std::vector<MemoryReport> read_memory_reports(const std::vector<LogLine>& lines,
                                              const std::string& path) {
  std::vector<MemoryReport> out;
  for (const LogLine& line : lines) {
    const std::string_view s = line.text;
    const size_t marker = s.find(kMarker);
    if (marker == std::string_view::npos) continue;
    MemoryReport r;
    r.line = line.line;
    r.rank = integer_after(s, "[Rank ", marker).value_or(-1);
    r.after_iterations = integer_after(s, "(after ", marker).value_or(0);
    // "max allocated:" contains "allocated:", so read the max figures first and the plain ones
    // after the marker's own "| allocated:" and "| reserved:".
    struct Field {
      std::string_view key;
      double MemoryReport::*value;
    };
    const Field fields[] = {{"| allocated:", &MemoryReport::allocated_mib},
                            {"| max allocated:", &MemoryReport::max_allocated_mib},
                            {"| reserved:", &MemoryReport::reserved_mib},
                            {"| max reserved:", &MemoryReport::max_reserved_mib}};
    for (const Field& f : fields) {
      size_t at = 0;
      const std::optional<double> v = number_after(s, f.key, marker, at);
      if (!v) {
        throw_input(SourceLocation{path, line.line, line.column(at == 0 ? marker : at), "memory"},
                    "expected a number after '{}' in the memory line", f.key.substr(2));
      }
      r.*f.value = *v;
    }
    out.push_back(r);
  }
  return out;
}

double peak_reserved_gib(const std::vector<MemoryReport>& reports) {
  double peak = 0;
  for (const MemoryReport& r : reports) peak = std::max(peak, r.max_reserved_mib);
  return peak / kMibPerGib;
}

double peak_allocated_gib(const std::vector<MemoryReport>& reports) {
  double peak = 0;
  for (const MemoryReport& r : reports) peak = std::max(peak, r.max_allocated_mib);
  return peak / kMibPerGib;
}

}  // namespace ladle::runlog
