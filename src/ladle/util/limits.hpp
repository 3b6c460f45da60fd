#pragma once
// limits.hpp: the one place for the bounds ladle puts on sizes read from input. Each is a named
// constant with the reason it is safe: far above every published model or real file, and low
// enough that what ladle allocates or computes from it stays within memory and int64.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ladle::limits {

// --- model shapes (config.json, layout specs, numerics --shape) ---------------------------------
/// Transformer layers. The deepest published LLMs have about 128 (Llama 3.1 405B: 126).
inline constexpr int64_t kMaxLayers = 1024;
/// Routed experts per MoE layer. The most published: 384 (Kimi K2), 512 (Qwen3.5-397B-A17B).
inline constexpr int64_t kMaxExperts = 4096;
/// Vocabulary size, and so any token id + 1. The largest published: 262,144 (Gemma 3).
inline constexpr int64_t kMaxVocabulary = int64_t{1} << 22;  // 4,194,304
/// Any other width: hidden size, FFN size, heads, head dims, LoRA ranks. The largest published
/// FFN is 53,248 (Llama 3.1 405B). With kMaxLayers and kMaxExperts the parameter count of any
/// model stays below 2^60, so int64 arithmetic on it cannot overflow.
inline constexpr int64_t kMaxModelDimension = int64_t{1} << 18;  // 262,144
/// Tokens in one sequence or row (row tokens, sequence length, tokens per rank).
inline constexpr int64_t kMaxSequenceTokens = int64_t{1} << 24;  // 16,777,216
/// Rows of one optimizer step (global batch). Published runs use at most a few thousand rows
/// (e.g. DeepSeek-V3: 15,360 sequences of 4K); with kMaxSequenceTokens the tokens of a step stay
/// below 2^48.
inline constexpr int64_t kMaxGlobalBatchRows = int64_t{1} << 24;
/// Elements one `numerics adam` run updates: 5x the default unscaled layer (819,990,528), which
/// takes minutes already.
inline constexpr int64_t kMaxNumericsElements = int64_t{1} << 32;

// --- counts on the command line -----------------------------------------------------------------
/// Worker threads a command accepts; more are clamped to the machine's hardware threads.
inline constexpr int64_t kMaxThreads = 4096;
/// Words of a launch command (`--args`, a launch script) ladle compares or reads.
inline constexpr int64_t kMaxArguments = int64_t{1} << 20;

// --- files, by kind (bytes) ---------------------------------------------------------------------
/// What a file argument holds; each kind has its own size limit.
enum class FileKind { recipe, model_config, tokenizer, launch_script, data_table, any, streamed };

/// A recipe, a calibration or numerics table: the catalog's largest is under 20 KB.
inline constexpr int64_t kMaxRecipeBytes = int64_t{16} << 20;
/// A Hugging Face config.json: a few KB in every published model.
inline constexpr int64_t kMaxModelConfigBytes = int64_t{16} << 20;
/// A tokenizer.json: the largest published are about 33 MB (Gemma 3).
inline constexpr int64_t kMaxTokenizerBytes = int64_t{512} << 20;
/// A launch script or a file of launch arguments.
inline constexpr int64_t kMaxLaunchScriptBytes = int64_t{16} << 20;
/// Any other file read whole.
inline constexpr int64_t kMaxAnyFileBytes = int64_t{1} << 30;
/// A file read one line at a time (training logs, conversations): any size, only a line is held.
inline constexpr int64_t kMaxStreamedFileBytes = INT64_MAX;
/// One line of a training log or of a JSONL file (logs and conversations are streamed, so only a
/// line is held at a time).
inline constexpr int64_t kMaxLineBytes = int64_t{64} << 20;

/// The size limit of a kind, and its name for messages ("a recipe").
int64_t max_file_bytes(FileKind kind);
std::string_view file_kind_name(FileKind kind);

}  // namespace ladle::limits

namespace ladle::util {

/// a + b, a * b, a - b on int64, or nullopt when the result does not fit.
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}
inline std::optional<int64_t> checked_sub(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_sub_overflow(a, b, &out)) return std::nullopt;
  return out;
}
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

/// The integer a double holds exactly, or nullopt for NaN, infinities, fractions and values
/// outside int64 (the one conversion from a floating-point reading to a count).
std::optional<int64_t> exact_int64(double value);

/// Whether a floating-point reading is usable: finite (not NaN, not +-inf).
bool is_finite_number(double value);

/// The worker threads to run for a `--threads` value: all hardware threads when not given, the
/// value clamped to the hardware threads otherwise (the outputs never depend on it). Throws
/// Error(usage) naming `flag` for a value below 1 or above limits::kMaxThreads.
int thread_count(std::optional<int64_t> requested, std::string_view flag);

/// "YYYY-MM-DD" naming a real day of the Gregorian calendar (2026-02-30 is not one).
bool is_calendar_date(std::string_view text);

}  // namespace ladle::util
