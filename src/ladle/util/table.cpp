#include "ladle/util/table.hpp"

#include <algorithm>

namespace ladle::util {

namespace {
bool looks_numeric(const std::string& cell) {
  if (cell.empty()) return false;
  const char first = cell[0];
  return std::isdigit(static_cast<unsigned char>(first)) || first == '$' ||
         (first == '-' && cell.size() > 1 && std::isdigit(static_cast<unsigned char>(cell[1])));
}
}  // namespace

std::string Table::render() const {
  std::vector<size_t> width(header.size(), 0);
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  const auto emit_row = [&](const std::vector<std::string>& row, bool is_header) {
    std::string line;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < row.size() ? row[c] : "";
      const size_t pad = width[c] - cell.size();
      if (c) line += "  ";
      if (!is_header && looks_numeric(cell)) {
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
  for (size_t c = 0; c < width.size(); ++c) rule += (c ? "  " : "") + std::string(width[c], '-');
  out += rule + "\n";
  for (const auto& row : rows) emit_row(row, false);
  return out;
}

}  // namespace ladle::util
