#pragma once
// json.hpp: the one way ladle parses JSON text, so every malformed or out-of-range input becomes
// one located Error line, never nlohmann's bare exception.

#include <nlohmann/json.hpp>
#include <string_view>

#include "ladle/util/error.hpp"

namespace ladle::util {

/// Parses `text`. `where` is where the text starts (file, and line when it is one line of a
/// larger file; line 0 means the text is the whole file). Throws Error(input) at the offending
/// line and column for a syntax error and for a number outside the range of a double ("1e400").
/// `invalid` starts the message of a syntax error ("invalid JSON: ...").
nlohmann::json parse_json(std::string_view text, const SourceLocation& where,
                          std::string_view invalid = "invalid JSON");

/// As parse_json, but also reads the bare `Infinity`, `-Infinity` and `NaN` that Python's json
/// module writes (Hugging Face config.json files hold them, e.g. `"time_step_limit": [0.0,
/// Infinity]`) as non-finite doubles; a reader that needs a finite number must check for them.
nlohmann::json parse_json_with_non_finite(std::string_view text, const SourceLocation& where,
                                          std::string_view invalid = "invalid JSON");

/// A JSON value as an error message shows it: its dump, but `Infinity`, `-Infinity` or `NaN` for
/// a non-finite double (nlohmann dumps those as null).
std::string show_json(const nlohmann::json& value);

/// The 1-based line and column of byte `offset` of `text`, added to `where`.
SourceLocation locate_offset(std::string_view text, size_t offset, const SourceLocation& where);

}  // namespace ladle::util
