#pragma once
// memory_report.hpp: the allocator figures Megatron-LM and Megatron-Bridge print per rank
// (training/utils.py report_memory: "[Rank R] (after N iterations) memory (MB) | allocated: A |
// max allocated: M | reserved: R | max reserved: X", where MB is 2^20 bytes).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ladle/runlog/log_lines.hpp"

namespace ladle::runlog {

/// One rank's memory line.
struct MemoryReport {
  int64_t rank = -1;             ///< -1 when the line names no rank
  int64_t after_iterations = 0;  ///< 0 when the line does not say
  double allocated_mib = 0;
  double max_allocated_mib = 0;
  double reserved_mib = 0;
  double max_reserved_mib = 0;
  int line = 0;  ///< 1-based line in the log

  bool operator==(const MemoryReport&) const = default;
};

/// Whether a cleaned log line is one of those memory lines.
bool is_memory_report(std::string_view text);

/// Every memory line of `lines`, in log order. Throws Error(input) at path:line:col for a memory
/// line whose four figures are not all there or not numbers.
std::vector<MemoryReport> read_memory_reports(const std::vector<LogLine>& lines,
                                              const std::string& path);

/// The largest max-reserved figure over `reports`, GiB (the peak the allocator held on the worst
/// rank), or 0 when there is none.
double peak_reserved_gib(const std::vector<MemoryReport>& reports);
/// The same for max allocated.
double peak_allocated_gib(const std::vector<MemoryReport>& reports);

}  // namespace ladle::runlog
