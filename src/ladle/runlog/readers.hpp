#pragma once
// readers.hpp: one reader per format (internal to runlog; read_log.cpp detects and dispatches).

#include <string>
#include <string_view>
#include <vector>

#include "ladle/runlog/log_lines.hpp"
#include "ladle/runlog/step.hpp"

namespace ladle::runlog::detail {

/// What a reader found: records in log order (duplicates already resolved), the log interval and
/// notes about what it inferred.
struct ReadResult {
  std::vector<Step> steps;
  int64_t log_interval = 1;
  std::vector<std::string> notes;
};

/// Where a Megatron-LM "iteration N/ M |" record starts in `s`, or npos.
size_t find_megatron_record(std::string_view s);
/// Whether `s` is Megatron-Bridge's "Step Time : X.XXs GPU utilization: ..." line.
bool is_bridge_step_time(std::string_view s);
/// Where a slime/miles "step N: {" (kind "step") or "perf N: {" record starts in `s`, or npos.
size_t find_slime_record(std::string_view s, std::string_view kind);
/// Where NeMo 2.0's "Training epoch E, iteration I/T |" record starts in `s`, or npos.
size_t find_nemo_record(std::string_view s);
/// Whether `s` is a PyTorch Lightning progress-bar line ("... it/s, ... global_step=...").
bool is_lightning_progress(std::string_view s);

ReadResult read_megatron(const std::vector<LogLine>& lines, const std::string& path, bool bridge);
ReadResult read_slime(const std::vector<LogLine>& lines, const std::string& path, bool miles);
ReadResult read_nemo(const std::vector<LogLine>& lines, const std::string& path);
/// `lines`: the log's non-blank lines that do not start with '#', uncleaned (text = the raw line).
ReadResult read_jsonl(const std::vector<LogLine>& lines, const std::string& path);

/// A count of samples printed as a number: a whole number >= 0 within int64, else Error(input)
/// at path:line naming `key` (NaN, infinities and fractions such as 128.7 are refused).
int64_t sample_count(double value, std::string_view key, const std::string& path, int line);

/// The most physical lines one record may span (slime's hard-wrapped dicts); read_log hands a
/// reader every record line with up to this many continuation lines after it, and no other line.
inline constexpr int kMaxRecordLines = 50;

/// Sorts records by step, resolves duplicates (identical ones collapse, with `duplicate_note`
/// when given; differing ones throw Error(input) naming both lines), infers the log interval from
/// the step gaps, sets each record's `iterations`, and notes gaps in the series.
void finish_records(ReadResult& result, const std::string& path, bool interval_records,
                    const std::string& duplicate_note);

}  // namespace ladle::runlog::detail
