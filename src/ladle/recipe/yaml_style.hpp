#pragma once
// Scalar styles of a YAML 1.1 emitter in the manner of PyYAML, so files written by ladle match
// files written by Python tools byte for byte.

#include <string>
#include <string_view>

namespace ladle::recipe::detail {

/// Whether a plain scalar with this text would load as something other than a string under
/// YAML 1.1 implicit typing (null, bool, int, float, timestamp).
bool resolves_as_non_string(std::string_view text);

/// Whether `text` may be written as a plain scalar in block context.
bool plain_allowed(std::string_view text);

/// Python's repr() of a float: shortest round trip, always with '.' or an exponent.
std::string python_float_repr(double value);

/// Appends ` text` as a scalar value after "key:" on a line whose current length is `column`,
/// folding at single spaces so lines end by column 120 where they can, continuation lines indented
/// by `indent`; chooses plain, single- or
/// double-quoted style. `force_plain` writes plain regardless of implicit typing (dates).
void append_scalar(std::string& out, std::string_view text, size_t column, size_t indent,
                   bool force_plain = false);

/// Appends ` |` (with chomping indicator) and the text as a literal block indented by `indent`.
void append_literal(std::string& out, std::string_view text, size_t indent);

}  // namespace ladle::recipe::detail
