// check_json.hpp: the JSON form of `ladle check`'s results (key order is the output order).
#pragma once

#include <nlohmann/json.hpp>

#include "ladle/check/rules.hpp"
#include "ladle/recipe/finding.hpp"

namespace ladle::check {

/// rule, line, field, message (the file is the report's).
nlohmann::ordered_json to_json(const recipe::Finding& finding);

/// file, ok (no finding), expert_data_parallel (null when the fold is not whole), findings, skipped.
nlohmann::ordered_json to_json(const CheckReport& report);

}  // namespace ladle::check
