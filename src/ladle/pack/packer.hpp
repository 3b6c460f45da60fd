#pragma once
// Packing conversations into fixed-length rows: a seeded permutation of the source conversations,
// each rendered by the family's chat template and tokenized, concatenated with the family's EOS
// token between them and cut into consecutive rows of exactly `row_tokens`; rows without a
// supervised token are skipped, until `rows` rows are built. No padding.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "ladle/pack/chat_template.hpp"
#include "ladle/pack/tokenizer.hpp"

namespace ladle::pack {

/// What to pack.
struct PackOptions {
  std::string input_path;  ///< JSONL, one conversation per line (blank lines are ignored)
  TemplateFamily family = TemplateFamily::glm5;
  int64_t row_tokens = 8192;
  int64_t rows = 0;
  uint64_t seed = 0;
  int threads = 1;  ///< tokenizer threads; the output does not depend on it
  /// The model's own chat template (find_model_chat_template): renders every conversation and
  /// must agree with `family`'s rule, whose loss mask applies; without it the rule renders.
  std::optional<ModelChatTemplate> chat_template;
};

/// Figures of a finished packing run.
struct PackStats {
  int64_t source_conversations = 0;  ///< non-blank lines of the input
  int64_t conversations_used = 0;    ///< conversations whose tokens reached a row (wholly or partly)
  int64_t rows = 0;                  ///< rows written
  int64_t rows_skipped = 0;          ///< rows cut but skipped: no supervised token
  int64_t supervised_tokens = 0;     ///< mask-1 tokens in the written rows
  int64_t padding_tokens = 0;        ///< always 0: rows are cut from a continuous stream
  bool operator==(const PackStats&) const = default;

  /// supervised_tokens / (rows * row_tokens), 0 when there are no rows.
  double supervised_token_ratio(int64_t row_tokens) const;
};

/// Receives each row in order: `row_tokens` ids and their 0/1 mask.
using RowSink = std::function<void(std::span<const int32_t> ids, std::span<const uint8_t> mask)>;
/// Receives progress: rows built so far and rows asked for.
using ProgressSink = std::function<void(int64_t rows_done, int64_t rows_total)>;

/// Packs `options.input_path` and calls `sink` for each row. Reads the input twice, streaming: once
/// to index line offsets, then conversation by conversation in permuted order, in batches that
/// `threads` workers parse and tokenize in parallel. Throws Error(input) at file:line for a bad
/// conversation (see parse_conversation) when the packer reaches it, Error(input) when the input
/// holds fewer tokens than `rows` rows need, Error(usage) for row_tokens or rows below 1, and
/// Error(io) when the input cannot be read.
PackStats pack_rows(const Tokenizer& tokenizer, const PackOptions& options, const RowSink& sink,
                    const ProgressSink& progress = {});

}  // namespace ladle::pack
