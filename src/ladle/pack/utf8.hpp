#pragma once
// UTF-8 checks and helpers shared by the tokenizer, the chat templates and the packer.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ladle::pack {

/// The byte offset of the first byte that does not start a well-formed UTF-8 sequence (overlong
/// forms, surrogates and code points above U+10FFFF are ill-formed), or nullopt when `text` is
/// valid UTF-8.
std::optional<size_t> find_invalid_utf8(std::string_view text);

/// `bytes` with every ill-formed UTF-8 subsequence replaced by U+FFFD, one replacement per maximal
/// subpart (the Unicode "substitution of maximal subparts" practice, as Rust's
/// String::from_utf8_lossy does).
std::string decode_utf8_lossy(std::string_view bytes);

/// The length in bytes of the UTF-8 sequence led by `lead` (1 for a stray or invalid byte).
size_t utf8_sequence_length(unsigned char lead);

/// Appends the UTF-8 encoding of `code_point` to `out`.
void append_utf8(std::string& out, char32_t code_point);

}  // namespace ladle::pack
