#pragma once
// Renderers of an AdamCheckReport: a plain-text report, JSON, and the recipe's `component_tests`
// entry as YAML. They format only; run_adam_check computes.

#include <string>
#include <utility>
#include <vector>

#include "ladle/numerics/adam_check.hpp"

namespace ladle::numerics {

/// The human report: settings, one table row per path and step, the other checks, state memory,
/// and the verdict.
std::string render_adam_check_text(const AdamCheckReport& report);

/// The same as JSON (keys in a fixed order, two-space indent, trailing newline).
std::string render_adam_check_json(const AdamCheckReport& report);

/// What the `component_tests` entry needs besides the report.
struct EntryContext {
  std::string date;  ///< YYYY-MM-DD
  std::string gpu;   ///< the GPU the figures come from, or "none (CPU)"
};

/// The `component_tests` entry's fields in the seed's order: test, shape, gpu, date, result,
/// detail, note (for a caller that fills a recipe's own entry type).
std::vector<std::pair<std::string, std::string>> component_test_fields(const AdamCheckReport& report,
                                                                       const EntryContext& context);

/// A one-item YAML sequence: the `component_tests` entry with the seed's fields (test, shape, gpu,
/// date, result, detail, note), ending with a newline.
std::string render_component_test_entry(const AdamCheckReport& report, const EntryContext& context);

}  // namespace ladle::numerics
