#include "ladle/tune/log_text.hpp"

#include <fmt/format.h>

#include "ladle/util/text.hpp"
#include "ladle/util/utf8.hpp"

namespace ladle::tune {

std::string visible_text(std::string_view text) {
  std::string valid;
  valid.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t length = util::well_formed_utf8_length(text, i);
    if (length == 0) {
      valid += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    valid.append(text.substr(i, length));
    i += length;
  }
  return util::terminal_safe_line(valid);
}

std::string visible_clip(std::string_view text, size_t max_bytes) {
  std::string out = visible_text(text);
  if (out.size() <= max_bytes) return out;
  size_t cut = max_bytes;
  // visible_text's output is valid UTF-8: back off continuation bytes to a character's start.
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80) --cut;
  out.resize(cut);
  return out + "...";
}

}  // namespace ladle::tune
