#pragma once
// UTF-8 checks and helpers: the one validator of the YAML reader, the log text tune shows, the
// tokenizer, the chat templates and the packer (Unicode Standard, table 3-7).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ladle::util {

/// The byte offset of the first byte that does not start a well-formed UTF-8 sequence (overlong
/// forms, surrogates and code points above U+10FFFF are ill-formed), or nullopt when `text` is
/// valid UTF-8.
std::optional<size_t> find_invalid_utf8(std::string_view text);

/// `bytes` with every ill-formed UTF-8 subsequence replaced by U+FFFD, one replacement per maximal
/// subpart (the Unicode "substitution of maximal subparts" practice, as Rust's
/// String::from_utf8_lossy does).
std::string decode_utf8_lossy(std::string_view bytes);

/// The length of the well-formed UTF-8 sequence that starts at text[at] (no overlong forms, no
/// surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one.
size_t well_formed_utf8_length(std::string_view text, size_t at);

/// The length in bytes of the UTF-8 sequence led by `lead` (1 for a stray or invalid byte).
size_t utf8_sequence_length(unsigned char lead);

/// Appends the UTF-8 encoding of `code_point` to `out`.
void append_utf8(std::string& out, char32_t code_point);

}  // namespace ladle::util
