// config_diff_json.hpp: the JSON form of `ladle diff`'s result (key order is the output order).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ladle/verify/config_diff.hpp"

namespace ladle::verify {

/// One differing (or unresolved) argument; source_a and source_b say where each side's value is
/// written, "FILE:LINE" (a file the script sources or runs, else the script itself), null when that
/// side comes from no line.
nlohmann::ordered_json to_json(const ArgDifference& difference, const std::string& a_script,
                               const std::string& b_script);

/// The two scripts, what was compared, the differences, the unresolved arguments, the worst class
/// (null when none), the configuration verdict and the notes.
nlohmann::ordered_json to_json(const ConfigDiff& diff);

}  // namespace ladle::verify
