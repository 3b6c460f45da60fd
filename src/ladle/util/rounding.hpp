#pragma once
// rounding.hpp: the one rounding of figures that reports print and recipes record.

#include <cmath>

namespace ladle::util {

/// `value` rounded to `decimals` decimal places (half away from zero, as std::round).
inline double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

/// `value` rounded to `digits` significant digits; 0 stays 0.
inline double round_significant(double value, int digits) {
  if (value == 0) return 0;
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  return round_to(value, digits - 1 - magnitude);
}

}  // namespace ladle::util
