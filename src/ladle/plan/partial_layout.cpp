#include "ladle/plan/partial_layout.hpp"

#include <fmt/format.h>

#include "ladle/plan/predictor.hpp"

namespace ladle::plan {

namespace {

// Why sp is on where the spec leaves it out (plan sets it wherever tp > 1).
std::string sp_reason(const Layout& l, const ModelSpec& model) {
  // megatron/core/transformer/moe/moe_layer.py (MoELayer.forward) and megatron/training/arguments.py
  // (--tp-comm-overlap asserts --sequence-parallel), NVIDIA/Megatron-LM at d98e8a64.
  if (model.num_experts > 0) return "Megatron-LM requires sequence parallel for MoE with tp > 1";
  if (l.tp_overlap) return "Megatron-LM requires sequence parallel for --tp-comm-overlap";
  return "as plan sets it wherever tp > 1";
}

// Whether `p` fits as plan counts it: HBM less the margin, and the host memory.
bool fits_with(const Prediction& p, double margin) {
  return p.memory_gib <= p.capacity_gib * (1 - margin) && p.host_memory_gib <= p.host_capacity_gib;
}

// Among fitting splits the fastest (the slowest stage sets the pace), then the least memory; where
// none fits, the least memory on the fullest stage, then the fastest.
bool better(const Prediction& a, const Prediction& b, double margin) {
  const bool a_fits = fits_with(a, margin);
  const bool b_fits = fits_with(b, margin);
  if (a_fits != b_fits) return a_fits;
  const bool by_speed = a_fits;
  if (by_speed && a.tokens_per_s_per_gpu != b.tokens_per_s_per_gpu) {
    return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
  }
  if (a.memory_gib != b.memory_gib) return a.memory_gib < b.memory_gib;
  return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
}

}  // namespace

std::optional<Prediction> best_split(const Layout& layout, const Scenario& scenario, double memory_margin,
                                     int64_t* candidates) {
  const ModelSpec& model = scenario.model;
  const layout::LayoutContext context = scenario.context();
  std::optional<Prediction> best;
  int64_t predicted = 0;
  for (const Layout& candidate : layout::candidate_splits(layout, model.num_layers)) {
    if (layout::find_layout_violation(candidate, model, context)) continue;
    Prediction p = predict(scenario.costs, model, candidate, scenario.cluster, scenario.workload, scenario.calibration);
    ++predicted;
    if (!best || better(p, *best, memory_margin)) best = std::move(p);
  }
  if (candidates != nullptr) *candidates = predicted;
  return best;
}

CompletedLayout complete_layout(const layout::PartialLayout& spec, const Scenario& scenario, double memory_margin) {
  const ModelSpec& model = scenario.model;
  CompletedLayout out;
  Layout l = spec.layout;
  // The precision-aware optimizer (which offload needs) runs with a distributed optimizer.
  if (!spec.names("precision_aware")) {
    l.precision_aware = l.dist_opt || l.fsdp != Fsdp::none;
    if (l.precision_aware) out.chosen.emplace_back("precision_aware=on (as plan sets it with the distributed optimizer)");
  }
  if (!spec.names("sp")) {
    l.sp = l.tp > 1;
    if (l.sp) out.chosen.push_back(fmt::format("sp=on ({})", sp_reason(l, model)));
  }
  l = layout::resolve_layout(l, scenario.context());
  const bool split_named = spec.names("first") || spec.names("last") || spec.names("account_embedding") ||
                           spec.names("account_loss") || spec.names("pipeline_layout") || spec.names("vpp_layers");
  if (!split_named && l.pp > 1 && layout::virtual_stage_layers(l, model.num_layers).empty()) {
    int64_t count = 0;
    if (auto best = best_split(l, scenario, memory_margin, &count)) {
      const bool even_pp = model.num_layers % l.pp == 0;
      out.chosen.push_back(fmt::format(
          "{} ({} the {} decoder layers; the best predicted of {} split{})", layout::split_spec(best->layout),
          even_pp ? fmt::format("vpp {} does not divide the stages of", l.vpp)
                  : fmt::format("pp {} does not divide", l.pp),
          model.num_layers, count, count == 1 ? "" : "s"));
      l = best->layout;
    }
  }
  out.layout = l;
  return out;
}

}  // namespace ladle::plan
