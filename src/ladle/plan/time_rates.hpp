#pragma once
// time_rates.hpp: the achieved rates the time model's terms price with, from the GPU's and the
// fabric's published facts (data/hw), the stack and the calibration.

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

/// The rates of `l` on `cluster` under workload `w` and calibration `cal`.
Rates time_rates(const Layout& l, const Cluster& cluster, const Workload& w, const Calibration& cal);

}  // namespace ladle::plan::timing
