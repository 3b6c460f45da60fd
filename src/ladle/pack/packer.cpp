#include "ladle/pack/packer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <vector>

#include "ladle/pack/conversation.hpp"
#include "ladle/pack/permutation.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/parallel.hpp"

namespace ladle::pack {

namespace {

// Conversations tokenized per batch. Fixed, so the work done (not only the output) is the same
// for every thread count.
constexpr size_t kBatch = 256;
constexpr size_t kReadBuffer = 1 << 20;

struct LineRef {
  uint64_t offset = 0;
  uint32_t length = 0;
  uint32_t line = 0;
};

// Streams the file once and records where each non-blank line is.
std::vector<LineRef> index_lines(const std::string& path) {
  util::check_input_file(path, limits::FileKind::streamed);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error(ErrorKind::io, fmt::format("cannot open: {}", std::strerror(errno)), {path});
  std::vector<LineRef> lines;
  std::vector<char> buffer(kReadBuffer);
  uint64_t pos = 0;
  uint64_t line_start = 0;
  uint32_t line_no = 1;
  bool blank = true;
  auto finish = [&](uint64_t end) {
    if (!blank) {
      if (end - line_start > static_cast<uint64_t>(limits::kMaxLineBytes)) {
        std::fclose(f);
        throw_input(SourceLocation{path, static_cast<int>(line_no)},
                    "a line longer than {} bytes (the limit for one conversation)", limits::kMaxLineBytes);
      }
      lines.push_back(LineRef{line_start, static_cast<uint32_t>(end - line_start), line_no});
    }
  };
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), f)) > 0) {
    for (size_t i = 0; i < n; ++i, ++pos) {
      const char c = buffer[i];
      if (c == '\n') {
        finish(pos);
        line_start = pos + 1;
        ++line_no;
        blank = true;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        blank = false;
      }
    }
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw Error(ErrorKind::io, "read failed", {path});
  finish(pos);
  return lines;
}

struct Tokenized {
  TokenizedConversation conversation;
  std::optional<Error> error;
};

}  // namespace

double PackStats::supervised_token_ratio(int64_t row_tokens) const {
  if (rows == 0 || row_tokens == 0) return 0.0;
  return static_cast<double>(supervised_tokens) / (static_cast<double>(rows) * static_cast<double>(row_tokens));
}

PackStats pack_rows(const Tokenizer& tokenizer, const PackOptions& options, const RowSink& sink,
                    const ProgressSink& progress) {
  if (options.row_tokens < 1) throw_usage("--row-tokens must be at least 1, got {}", options.row_tokens);
  if (options.row_tokens > limits::kMaxSequenceTokens) {
    throw_usage("--row-tokens {} is more than the {} tokens a row may hold", options.row_tokens,
                limits::kMaxSequenceTokens);
  }
  if (options.rows < 1) throw_usage("--rows must be at least 1, got {}", options.rows);
  const std::string_view separator = separator_token(options.family);
  const auto separator_id = tokenizer.token_to_id(separator);
  if (!separator_id) {
    throw_input(SourceLocation{}, "the tokenizer has no '{}' token, which template '{}' separates "
                "conversations with", separator, to_string(options.family));
  }
  const std::vector<LineRef> lines = index_lines(options.input_path);
  if (lines.size() > UINT32_MAX) throw_input(SourceLocation{options.input_path}, "too many lines");
  const std::vector<uint32_t> order =
      seeded_permutation(static_cast<uint32_t>(lines.size()), options.seed);

  PackStats stats;
  stats.source_conversations = static_cast<int64_t>(lines.size());
  const auto row_tokens = static_cast<size_t>(options.row_tokens);
  std::vector<int32_t> row_ids(row_tokens);
  std::vector<uint8_t> row_mask(row_tokens);
  size_t fill = 0;
  int64_t row_supervised = 0;
  bool done = false;
  auto push = [&](int32_t id, uint8_t mask) {
    row_ids[fill] = id;
    row_mask[fill] = mask;
    row_supervised += mask;
    if (++fill < row_tokens) return;
    if (row_supervised > 0) {
      sink(row_ids, row_mask);
      ++stats.rows;
      stats.supervised_tokens += row_supervised;
      if (progress) progress(stats.rows, options.rows);
      done = stats.rows == options.rows;
    } else {
      ++stats.rows_skipped;
    }
    fill = 0;
    row_supervised = 0;
  };

  std::FILE* f = std::fopen(options.input_path.c_str(), "rb");
  if (!f) {
    throw Error(ErrorKind::io, fmt::format("cannot open: {}", std::strerror(errno)),
                {options.input_path});
  }
  struct Closer {
    std::FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{f};

  // More threads than conversations in a batch would idle: the count is clamped, never an abort.
  const int threads = std::clamp(options.threads, 1, static_cast<int>(kBatch));
  bool first = true;
  bool previous_ends_with_assistant = false;
  std::vector<std::string> texts;
  std::vector<Tokenized> results;
  for (size_t batch_start = 0; batch_start < order.size() && !done; batch_start += kBatch) {
    const size_t batch_end = std::min(order.size(), batch_start + kBatch);
    texts.assign(batch_end - batch_start, std::string());
    for (size_t k = batch_start; k < batch_end; ++k) {
      const LineRef& ref = lines[order[k]];
      std::string& text = texts[k - batch_start];
      text.resize(ref.length);
      if (std::fseek(f, static_cast<long>(ref.offset), SEEK_SET) != 0 ||
          std::fread(text.data(), 1, ref.length, f) != ref.length) {
        throw Error(ErrorKind::io, "read failed", {options.input_path});
      }
    }
    results.assign(texts.size(), Tokenized{});
    // Each line's error stays with its line (the first in file order is thrown below).
    util::parallel_for(texts.size(), threads, [&](int, size_t k) {
      const LineRef& ref = lines[order[batch_start + k]];
      try {
        const Conversation c = parse_conversation(
            texts[k], SourceLocation{options.input_path, static_cast<int>(ref.line)});
        results[k].conversation = encode_conversation(tokenizer, options.family, c,
                                                      options.chat_template ? &*options.chat_template : nullptr);
      } catch (const Error& e) {
        if (e.where().file.empty()) {
          results[k].error = Error(e.kind(), e.message(),
                                   SourceLocation{options.input_path, static_cast<int>(ref.line)});
        } else {
          results[k].error = e;
        }
      } catch (const std::exception& e) {  // nothing may leave a worker thread
        results[k].error = Error(ErrorKind::internal, e.what(),
                                 SourceLocation{options.input_path, static_cast<int>(ref.line)});
      }
    });

    for (size_t k = 0; k < results.size() && !done; ++k) {
      if (results[k].error) throw *results[k].error;
      const TokenizedConversation& c = results[k].conversation;
      if (!first) {
        push(*separator_id, previous_ends_with_assistant && separator_closes_turn(options.family));
        if (done) break;
      }
      first = false;
      ++stats.conversations_used;
      for (size_t i = 0; i < c.ids.size() && !done; ++i) push(c.ids[i], c.mask[i]);
      previous_ends_with_assistant = c.ends_with_assistant;
    }
  }
  if (!done) {
    throw_input(SourceLocation{options.input_path},
                "fewer source tokens than the rows asked for: {} conversations gave {} rows of {} "
                "tokens with a supervised token ({} skipped without one), {} asked for",
                stats.source_conversations, stats.rows, options.row_tokens, stats.rows_skipped,
                options.rows);
  }
  return stats;
}

}  // namespace ladle::pack
