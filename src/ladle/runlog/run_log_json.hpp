// run_log_json.hpp: the JSON form of a training log as ladle read it, as `ladle steps --json`
// prints it (key order is the output order).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "ladle/runlog/memory_report.hpp"
#include "ladle/runlog/run_log.hpp"
#include "ladle/runlog/step.hpp"

namespace ladle::runlog {

/// One record; a figure the log did not print is null, a non-finite one the string "nan", "inf" or
/// "-inf" (JSON has no such numbers).
nlohmann::ordered_json to_json(const Step& step);

/// One memory line, in GiB (the log prints MiB); rank null when the line names none.
nlohmann::ordered_json to_json(const MemoryReport& report);

/// The peaks over every memory line, then the lines.
nlohmann::ordered_json memory_json(const std::vector<MemoryReport>& reports);

/// The log: path, format, record count, interval, timestamps, notes, memory (when it printed any)
/// and its records.
nlohmann::ordered_json to_json(const RunLog& log);

}  // namespace ladle::runlog
