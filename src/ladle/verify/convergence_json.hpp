// convergence_json.hpp: the JSON form of `ladle converge`'s report (key order is the output order).
#pragma once

#include <nlohmann/json.hpp>

#include "ladle/verify/convergence.hpp"

namespace ladle::verify {

/// The four bounds and where they come from.
nlohmann::ordered_json to_json(const ConvergenceThresholds& thresholds);

/// One compared step.
nlohmann::ordered_json to_json(const ConvergencePoint& point);

/// The verdict ("pass" or "fail"), its figures (null when not computed), reasons, bounds and steps.
nlohmann::ordered_json to_json(const ConvergenceReport& report);

}  // namespace ladle::verify
