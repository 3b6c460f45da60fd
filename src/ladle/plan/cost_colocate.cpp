#include "ladle/plan/cost_colocate.hpp"

namespace ladle::plan {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
}  // namespace

double colocated_engine_bytes(const Layout& l, const MemoryFacts& facts) {
  return l.colocate ? facts.cuda_context_mib * kMiB : 0.0;
}

double colocated_rollout_bytes(const Layout& l, double hbm_bytes, const MemoryFacts& facts) {
  if (!l.colocate || l.sglang_mem_fraction <= 0) return 0.0;
  return l.sglang_mem_fraction * hbm_bytes + 2 * facts.cuda_context_mib * kMiB +
         static_cast<double>(l.update_buffer_bytes);
}

}  // namespace ladle::plan
