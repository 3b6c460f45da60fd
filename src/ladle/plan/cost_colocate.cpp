#include "ladle/plan/cost_colocate.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ladle::plan {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

double part_gib(const StageMemory& stage, std::string_view name) {
  for (const Part& p : stage.parts) {
    if (p.name == name) return p.value;
  }
  return 0.0;
}
}  // namespace

double colocated_engine_bytes(const Layout& l, const hw::MemoryFacts& facts) {
  return l.colocate ? facts.cuda_context_mib * kMiB : 0.0;
}

double colocated_rollout_bytes(const Layout& l, double hbm_bytes, const hw::MemoryFacts& facts) {
  if (!l.colocate || l.sglang_mem_fraction <= 0) return 0.0;
  return l.sglang_mem_fraction * hbm_bytes + 2 * facts.cuda_context_mib * kMiB +
         static_cast<double>(l.update_buffer_bytes);
}

std::optional<ColocatedFit> colocated_rollout_fit(const Prediction& p, const Layout& l, const hw::MemoryFacts& facts,
                                                  int64_t gpus_per_node) {
  if (!l.colocate || p.stages.empty()) return std::nullopt;
  ColocatedFit f;
  f.capacity_gib = p.capacity_gib;
  f.gpu_gib = colocated_rollout_bytes(l, p.capacity_gib * kGiB, facts) / kGiB;
  const StageMemory& worst = p.stages.at(static_cast<size_t>(p.worst_stage));
  const double paused = part_gib(worst, "weights") + part_gib(worst, "gradients") + part_gib(worst, "optimizer states");
  f.host_gib = paused * static_cast<double>(std::max<int64_t>(1, gpus_per_node)) + p.host_memory_gib;
  f.host_capacity_gib = p.host_capacity_gib;
  std::string gpu;
  if (l.sglang_mem_fraction > 0) {
    gpu = fmt::format("{:.1f} of {:.1f} GiB per GPU ({:g} x HBM for SGLang, both CUDA contexts, a {} MiB update bucket)",
                      f.gpu_gib, f.capacity_gib, l.sglang_mem_fraction, l.update_buffer_bytes / (1024 * 1024));
  } else {
    gpu = "SGLang sizes its pool from the memory it finds free (no --sglang-mem-fraction-static)";
  }
  std::string verdict = "fits";
  if (f.gpu_gib > f.capacity_gib) {
    f.fits = false;
    verdict = fmt::format("does not fit: rollout phase, HBM {:.1f} > {:.1f} GiB", f.gpu_gib, f.capacity_gib);
  } else if (f.host_gib > f.host_capacity_gib) {
    f.fits = false;
    verdict = fmt::format("does not fit: rollout phase, host memory {:.0f} > {:.0f} GiB per node", f.host_gib,
                          f.host_capacity_gib);
  }
  f.line = fmt::format("rollout phase (--colocate): {}; host {:.0f} of {:.0f} GiB per node (the paused trainer's "
                       "tensors); {}\n",
                       gpu, f.host_gib, f.host_capacity_gib, verdict);
  return f;
}

}  // namespace ladle::plan
