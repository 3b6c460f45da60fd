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

/// The 1-based line and column of byte `offset` of `text`, added to `where`.
SourceLocation locate_offset(std::string_view text, size_t offset, const SourceLocation& where);

}  // namespace ladle::util
