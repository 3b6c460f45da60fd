#pragma once
// time_collective.hpp: a ring-like collective and a point-to-point transfer over the NVLink domain
// and the scale-out fabric, at the link fractions of the published sweeps (data/hw/collectives.yaml).
// The TP, CP, DP and pipeline terms price their traffic with these.

#include "ladle/plan/time_terms.hpp"

namespace ladle::plan::timing {

/// A ring-like collective (all-gather, reduce-scatter; an all-reduce is both) of `bytes` (the
/// whole buffer) over `ranks` ranks, `per_domain` of them in each NVLink domain.
double collective_time(const Rates& r, hw::Collective c, double bytes, double ranks, double per_domain);

/// Point-to-point transfer of `bytes` inside the domain or across it.
double send_time(const Rates& r, double bytes, bool across);

}  // namespace ladle::plan::timing
