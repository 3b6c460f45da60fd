#pragma once
// log_text.hpp: text that comes from a trial's log (or a scheduler's message) made safe to keep
// and show: a trial can print any bytes, and those bytes end up in the database, in
// `tune status` (a terminal, or JSON that must stay valid UTF-8) and in report.md.

#include <cstdint>
#include <string>
#include <string_view>

namespace ladle::tune {

/// `text` with every byte that is not part of a valid UTF-8 sequence written as "\xNN" and every
/// control character (ESC, CR, newline, tab, C1 controls, ...) as a visible escape
/// (util::terminal_safe_line): one line of valid UTF-8 that cannot move a terminal's cursor.
std::string visible_text(std::string_view text);

/// visible_text cut to at most `max_bytes` bytes on a character boundary, "..." marking a cut.
std::string visible_clip(std::string_view text, size_t max_bytes);

}  // namespace ladle::tune
