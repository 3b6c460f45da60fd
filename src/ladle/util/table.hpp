#pragma once

#include <string>
#include <vector>

namespace ladle::util {

/// A plain-text table: a header row, then rows. A column whose cells are all numbers ("-" for none)
/// is right-aligned; widths count UTF-8 characters.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  /// Renders with two spaces between columns and a dashed rule under the header.
  /// Control characters in cells are shown escaped (terminal_safe_line).
  std::string render() const;

 private:
  std::string render_escaped() const;
};

}  // namespace ladle::util
