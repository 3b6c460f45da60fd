#pragma once
// py_literal.hpp: reads the Python literal dicts that slime and miles print with
// `logger.info(f"step {i}: {log_dict}")`: repr() of a dict, not JSON.

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ladle::runlog {

/// One value of a printed dict. Numbers cover int, float, nan, inf, -inf and numpy / torch scalars
/// (np.float64(1.5), np.int64(3), tensor(2.0)); True and False are booleans; anything nested
/// (lists, tuples, dicts, other calls) is kept as `other` with its text.
struct PyValue {
  enum class Kind { number, boolean, none, string, other };
  Kind kind = Kind::none;
  double number = 0;
  bool boolean = false;
  std::string text;  ///< the string's value, or the source text of an `other`

  bool operator==(const PyValue&) const = default;
};

/// Keys in print order are not needed by any reader; a map keeps lookups simple.
using PyDict = std::map<std::string, PyValue, std::less<>>;

/// Parses the dict that starts at text[pos] == '{'. On success returns it and sets `pos` past the
/// closing brace. On failure returns nullopt and sets `error_at` (offset into `text`) and `error`
/// (what was expected). A dict that is not closed before the end of `text` reports
/// error_at == text.size().
std::optional<PyDict> parse_py_dict(std::string_view text, size_t& pos, size_t& error_at, std::string& error);

}  // namespace ladle::runlog
