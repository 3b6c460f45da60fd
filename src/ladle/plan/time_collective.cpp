// time_collective.cpp: collectives and point-to-point transfers (see time_collective.hpp).
#include "ladle/plan/time_collective.hpp"

#include <algorithm>

namespace ladle::plan::timing {

// The part inside a domain on NVLink, the part across domains on the NICs the group's share of
// its domain owns, each at the link fraction the published sweep gives for that size and node
// count, plus the fabric's per-call latency.
double collective_time(const Rates& r, hw::Collective c, double bytes, double ranks, double per_domain) {
  if (ranks <= 1 || bytes <= 0) return 0;
  per_domain = std::clamp(per_domain, 1.0, ranks);
  const double domains = ranks / per_domain;
  const double phases = c == hw::Collective::all_reduce ? 2.0 : 1.0;
  double intra = 0;
  if (per_domain > 1) {
    const double fraction = hw::link_fraction(*r.nvl, c, bytes, 1);
    intra = phases * bytes * (per_domain - 1) / per_domain / (fraction * r.nvlink) + r.nvl->latency_s;
  }
  if (domains <= 1) return intra;
  // The group's share of its domain's NICs: per_domain of the domain's GPUs.
  const double share = r.node_net * per_domain / r.domain;
  const double fraction = hw::link_fraction(*r.net, c, bytes, domains);
  const double inter = phases * bytes * (domains - 1) / domains / (fraction * share) + r.net->latency_s;
  return std::max(intra, inter);
}

double send_time(const Rates& r, double bytes, bool across) {
  if (!across) return bytes / (hw::link_fraction(*r.nvl, hw::Collective::send_recv, bytes, 1) * r.nvlink) + r.nvl->latency_s;
  const double per_gpu = r.node_net / r.domain;
  return bytes / (hw::link_fraction(*r.net, hw::Collective::send_recv, bytes, 2) * per_gpu) + r.net->latency_s;
}

}  // namespace ladle::plan::timing
