#pragma once
// finding.hpp: one violated rule at one place, what `ladle check` reports. The recipe rules
// (check/rules.hpp) and the layout block's agreement with its script (layout/recipe_layout.hpp)
// both give findings.

#include <string>

namespace ladle::recipe {

/// One violated rule at one place.
struct Finding {
  std::string rule;     ///< "R1"
  std::string file;
  int line = 0;
  std::string field;    ///< the field path it concerns ("layout.tp")
  std::string message;  ///< one line, lowercase, no final period
  bool operator==(const Finding&) const = default;
};

}  // namespace ladle::recipe
