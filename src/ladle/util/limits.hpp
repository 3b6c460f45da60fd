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
/// What the expansions of one launch script may build in all (bytes of text; words are bounded
/// by kMaxArguments): 16 times the largest script, far above any real script's (a few KB), and
/// within memory when variables or arrays double each other.
inline constexpr int64_t kMaxLaunchExpansionBytes = int64_t{16} * kMaxLaunchScriptBytes;
/// Any other file read whole.
inline constexpr int64_t kMaxAnyFileBytes = int64_t{1} << 30;
/// A file read one line at a time (training logs, conversations): any size, only a line is held.
inline constexpr int64_t kMaxStreamedFileBytes = INT64_MAX;
/// One line of a training log or of a JSONL file (logs and conversations are streamed, so only a
/// line is held at a time).
inline constexpr int64_t kMaxLineBytes = int64_t{64} << 20;

// --- integers of a recipe (src/ladle/recipe/recipe_fields.hpp names one range per field) ------
/// The values an integer of a recipe may take, and why: a value outside is refused where it is
/// read, with the reason, so no rule or product downstream sees a size no run has.
struct IntegerRange {
  int64_t min = 0;
  int64_t max = 0;
  std::string_view reason;
};
/// GPUs of one run, and GPUs per node. Clusters announced for training have up to a few 10^5 GPUs.
inline constexpr int64_t kMaxGpus = int64_t{1} << 20;  // 1,048,576
/// One parallel size (TP, PP, VPP, CP, EP, ETP, DP and their groups): with four of them below
/// 2^15 their product (the GPU count it must equal) stays below 2^60.
inline constexpr int64_t kMaxParallelSize = int64_t{1} << 15;  // 32,768
/// HBM per GPU in decimal GB: the largest GPUs sold have a few hundred.
inline constexpr int64_t kMaxGpuMemoryGb = int64_t{1} << 14;  // 16,384
/// Optimizer steps of one run (a step index, a window, a count of steps).
inline constexpr int64_t kMaxSteps = int64_t{1} << 40;
/// Tokens or rows of a whole dataset or measured window: 2^53, exact as a double, is 100 times
/// the largest published pretraining corpora (tens of trillions of tokens).
inline constexpr int64_t kMaxDatasetTokens = int64_t{1} << 53;
/// Parameters of a model: kMaxLayers, kMaxExperts and kMaxModelDimension keep any model below.
inline constexpr int64_t kMaxParameters = int64_t{1} << 60;

inline constexpr IntegerRange kGpuCountRange{1, kMaxGpus, "GPUs of one run or node; 2^20 is above any cluster"};
inline constexpr IntegerRange kGpuMemoryRange{1, kMaxGpuMemoryGb, "GB of memory per GPU; 16,384 is above any GPU"};
inline constexpr IntegerRange kParallelRange{
    1, kMaxParallelSize, "a parallel size; 2^15 keeps the product of four of them within 64 bits"};
inline constexpr IntegerRange kLayerCountRange{0, kMaxLayers, "layers; 1,024 is the most a model may have"};
inline constexpr IntegerRange kRowTokensRange{1, kMaxSequenceTokens, "tokens of one row; 2^24 is the most a row may have"};
inline constexpr IntegerRange kTokensPerGpuRange{
    0, kMaxSequenceTokens, "tokens per GPU (0: not set); 2^24 is the most a row may have"};
inline constexpr IntegerRange kBatchRowsRange{
    1, kMaxGlobalBatchRows, "rows of one step or microbatch; 2^24 keeps the tokens of a step below 2^48"};
inline constexpr IntegerRange kDatasetCountRange{
    0, kMaxDatasetTokens, "rows or tokens of a dataset or window; 2^53 is above any corpus and exact as a double"};
inline constexpr IntegerRange kByteCountRange{0, int64_t{1} << 50, "bytes of a file; 2^50 (a petabyte) is above any"};
inline constexpr IntegerRange kSeedRange{0, INT64_MAX, "a seed: any non-negative 64-bit integer, never computed with"};
inline constexpr IntegerRange kStepIndexRange{0, kMaxSteps, "a step; 2^40 steps is beyond any training run"};
inline constexpr IntegerRange kStepCountRange{1, kMaxSteps, "steps; 2^40 is beyond any training run"};
inline constexpr IntegerRange kFailureCountRange{0, kMaxSteps, "steps that failed; 2^40 is beyond any training run"};
inline constexpr IntegerRange kRunCountRange{1, int64_t{1} << 20, "runs measured; 2^20 is beyond any benchmark"};
inline constexpr IntegerRange kParameterCountRange{
    1, kMaxParameters, "parameters; 2^60 is above any model the model limits allow"};
inline constexpr IntegerRange kSchemaVersionRange{1, 1 << 20, "a schema version"};

/// Records of one training log (one per optimizer step or log interval). A run of 10^6 steps is
/// long; 2^26 records at 88 bytes each are 5.9 GB, the most a log's records may take in memory.
inline constexpr int64_t kMaxLogRecords = int64_t{1} << 26;  // 67,108,864
inline constexpr std::string_view kMaxLogRecordsReason =
    "a record per optimizer step; 67 million steps is far beyond any training run";

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
