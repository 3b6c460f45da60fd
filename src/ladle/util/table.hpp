#pragma once

#include <string>
#include <vector>

namespace ladle::util {

/// A plain-text table: a header row, then rows; numeric-looking cells are right-aligned.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  /// Renders with two spaces between columns and a dashed rule under the header.
  std::string render() const;
};

}  // namespace ladle::util
