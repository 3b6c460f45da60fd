#include "ladle/util/table.hpp"

#include <algorithm>

#include "ladle/util/text.hpp"

namespace ladle::util {

namespace {
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A number as tables print it: optional sign and '$', digits with ',' and '.', an optional
// exponent and an optional trailing '%' ("-1,234.5", "$0.36", "1.0000e-05", "4.69%"), or nan/inf.
bool looks_numeric(const std::string& cell) {
  if (cell == "nan" || cell == "inf" || cell == "-inf") return true;
  size_t i = 0;
  if (i < cell.size() && (cell[i] == '-' || cell[i] == '+')) ++i;
  if (i < cell.size() && cell[i] == '$') ++i;
  if (i >= cell.size() || !is_digit(cell[i])) return false;
  for (; i < cell.size(); ++i) {
    const char c = cell[i];
    if (is_digit(c) || c == ',' || c == '.') continue;
    if ((c == 'e' || c == 'E') && i + 1 < cell.size() &&
        (is_digit(cell[i + 1]) || cell[i + 1] == '-' || cell[i + 1] == '+')) {
      ++i;
      continue;
    }
    if (c == '%' && i + 1 == cell.size()) continue;
    return false;
  }
  return true;
}

// Columns count characters, not bytes: UTF-8 continuation bytes take no column.
size_t display_width(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}
}  // namespace

std::string Table::render() const {
  // Cells hold names and values read from files: escaped, so that none moves the cursor or breaks
  // its row, and measured after escaping so that the columns still line up.
  Table safe;
  for (const std::string& cell : header) safe.header.push_back(terminal_safe_line(cell));
  for (const auto& row : rows) {
    std::vector<std::string>& escaped = safe.rows.emplace_back();
    for (const std::string& cell : row) escaped.push_back(terminal_safe_line(cell));
  }
  return safe.render_escaped();
}

std::string Table::render_escaped() const {
  const size_t columns = header.size();
  std::vector<size_t> width(columns, 0);
  // A column is right-aligned when every cell in it that holds a value ("-" holds none) is a number.
  std::vector<bool> numeric(columns, false);
  std::vector<bool> other(columns, false);
  for (size_t c = 0; c < columns; ++c) width[c] = display_width(header[c]);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size() && c < columns; ++c) {
      width[c] = std::max(width[c], display_width(row[c]));
      if (row[c].empty() || row[c] == "-") continue;
      (looks_numeric(row[c]) ? numeric : other)[c] = true;
    }
  }
  std::string out;
  const auto emit_row = [&](const std::vector<std::string>& row, bool is_header) {
    std::string line;
    for (size_t c = 0; c < columns; ++c) {
      const std::string cell = c < row.size() ? row[c] : "";
      const size_t pad = width[c] - display_width(cell);
      if (c) line += "  ";
      if (!is_header && numeric[c] && !other[c]) {
        line += std::string(pad, ' ') + cell;
      } else {
        line += cell + std::string(pad, ' ');
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  emit_row(header, true);
  std::string rule;
  for (size_t c = 0; c < columns; ++c) rule += (c ? "  " : "") + std::string(width[c], '-');
  while (!rule.empty() && rule.back() == ' ') rule.pop_back();
  out += rule + "\n";
  for (const auto& row : rows) emit_row(row, false);
  return out;
}

}  // namespace ladle::util
