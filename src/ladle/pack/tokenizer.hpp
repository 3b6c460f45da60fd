#pragma once
// A Hugging Face `tokenizer.json` of the byte-level BPE kind (GLM, Qwen, DeepSeek, Llama 3): added
// and special tokens matched first, then the normalizer, the pre-tokenizer's split patterns (PCRE2
// with Unicode properties, JIT-compiled), the byte-level alphabet, and BPE merges by rank.

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ladle::pack {

/// The most bytes of text `ladle tokenize` reads from standard input: one line of a conversation
/// file (limits::kMaxLineBytes, 64 MiB), the longest text ladle tokenizes in one piece.
inline constexpr int64_t kMaxTokenizeInputBytes = int64_t{64} << 20;

/// Reads `in` to its end, at most `max_bytes`. Throws Error(input) naming `name` when there is
/// more (`ladle tokenize < /dev/zero` read until memory ran out), and Error(io) when reading fails.
std::string read_bounded_text(std::istream& in, const std::string& name, int64_t max_bytes);

/// Token ids of a text and, for each token, the byte offset of its first byte in the text.
struct Encoding {
  std::vector<int32_t> ids;
  std::vector<uint32_t> offsets;
  bool operator==(const Encoding&) const = default;
};

/// A loaded tokenizer. Immutable after loading and safe to share between threads: encode() keeps
/// its scratch space (regex match data, a BPE cache) per thread.
///
/// Supported: model BPE (merges as "a b" strings or [a, b] pairs, `ignore_merges`, `byte_fallback`,
/// `unk_token`); normalizer null, NFC, or a Sequence of those; pre-tokenizer Split (Regex or
/// String pattern; behaviours Isolated, Removed, MergedWithPrevious, MergedWithNext; `invert`),
/// ByteLevel (`add_prefix_space`, `use_regex`) or a Sequence of those; decoder ByteLevel,
/// ByteFallback, Fuse or a Sequence of those. Added tokens honour `lstrip`, `rstrip` and
/// `single_word`. The post-processor is not applied: ladle never adds BOS/EOS implicitly (the
/// same as `add_special_tokens=False` in Hugging Face tokenizers).
class Tokenizer {
 public:
  /// Parses tokenizer.json text. `source` names it in errors. Throws Error(input) for malformed
  /// JSON or an unsupported model, normalizer, pre-tokenizer or regex.
  static Tokenizer from_json(std::string_view json, const std::string& source);
  /// from_json on a file's contents; throws Error(io) when it cannot be read.
  static Tokenizer from_file(const std::string& path);

  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;
  ~Tokenizer();

  /// Token ids of `text`, special and added tokens included where they occur in the text.
  /// Offsets are byte offsets into `text` (exact where the normalizer leaves the text unchanged;
  /// inside a segment that NFC changes, tokens carry the segment's start). Throws Error(input)
  /// with the byte offset when `text` is not valid UTF-8.
  Encoding encode(std::string_view text) const;
  /// encode(text).ids.
  std::vector<int32_t> encode_ids(std::string_view text) const;

  /// The text of `ids` through the decoder; ill-formed UTF-8 becomes U+FFFD. Throws Error(input)
  /// for an id outside the vocabulary or a decoder ladle does not support.
  std::string decode(std::span<const int32_t> ids) const;

  /// The normalizer applied to `text` (identity when the tokenizer has none).
  std::string normalize(std::string_view text) const;

  /// The id of a vocabulary or added token, or nullopt.
  std::optional<int32_t> token_to_id(std::string_view token) const;
  /// The token string of `id` (as stored in tokenizer.json), or nullopt.
  std::optional<std::string> id_to_token(int32_t id) const;
  /// One more than the largest id (vocabulary and added tokens).
  size_t vocab_size() const;
  /// Lowercase hex SHA-256 of the tokenizer.json bytes it was loaded from.
  const std::string& sha256() const;

  struct Impl;

 private:
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ladle::pack
