// time_cp.cpp: CP exchange (see time_cp.hpp).
#include "ladle/plan/time_cp.hpp"

#include <algorithm>

#include "ladle/plan/time_collective.hpp"

namespace ladle::plan::timing {

double cp_forward(const KindInputs& in, double attention_s) {
  if (in.l.cp <= 1) return 0;
  const ModelCosts& c = in.c;
  // The layer's own keys and values (per-layer attention geometry: step3p7, gemma4; values
  // v_head_dim wide, MiMo-V2-Flash's 128 beside 192).
  const double kv_per_token = c.mla ? static_cast<double>(c.heads * (c.qk_head_dim + c.v_head_dim))
                                    : static_cast<double>(in.kv_heads * (in.head_dim + in.v_head_dim));
  const double bytes = kBf16 * in.tokens * static_cast<double>(in.l.cp) * kv_per_token / in.tp;
  const double cp = static_cast<double>(in.l.cp);
  const double per_domain = std::max(1.0, std::min(cp, in.r.domain / in.tp));
  return std::max(0.0, collective_time(in.r, hw::Collective::all_gather, bytes, cp, per_domain) - attention_s);
}

}  // namespace ladle::plan::timing
