#pragma once
// partial_layout.hpp: what a user means by a partial layout spec ("tp=4,pp=4,ep=16", or the label
// "TP4 PP4 EP16"): the keys it leaves out take the values `ladle plan` gives every candidate
// (sequence parallel wherever tp > 1, which Megatron-LM requires for MoE and for TP communication
// overlap; the precision-aware optimizer with the distributed one), and where the layers do not
// split over its pipeline, the split the planner predicts best.

#include <optional>
#include <string>
#include <vector>

#include "ladle/layout/layout.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/model_spec.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/prediction.hpp"
#include "ladle/plan/scenario.hpp"

namespace ladle::plan {

/// The fraction of HBM `ladle plan` keeps free by default (its --margin).
inline constexpr double kPlanMemoryMargin = 0.05;

/// A partial spec made whole.
struct CompletedLayout {
  Layout layout;  ///< resolved (dp, max_tokens, vpp); not yet checked against the rules
  /// What was filled in that the spec does not name and that differs from Layout's default, one
  /// item each: "sp=on (Megatron-LM requires sequence parallel for MoE with tp > 1)".
  std::vector<std::string> chosen;
};

/// The layout `spec` means on this run: the keys it leaves out as `plan` sets them, resolved with
/// the scenario's checking context, and where it states no split and the layers do not split over its pipeline, the
/// split best_split picks. An explicit value is kept even where Megatron-LM rejects it
/// (find_layout_violation then says why). Throws Error(usage) as resolve_layout does.
CompletedLayout complete_layout(const layout::PartialLayout& spec, const Scenario& scenario,
                                double memory_margin = kPlanMemoryMargin);

/// Of layout::candidate_splits(`layout`), the valid one the planner predicts best: one that fits
/// (HBM less `memory_margin`, as plan counts it, and host memory) before one that does not; among
/// fitting ones the most tokens/s per GPU (the slowest stage sets the pace), then the least memory
/// on the fullest stage; where none fits, the least memory, then the most tokens/s; then the first
/// listed. `layout` is resolved. nullopt when no candidate is valid. `candidates` (optional)
/// receives how many splits were predicted.
std::optional<Prediction> best_split(const Layout& layout, const Scenario& scenario,
                                     double memory_margin = kPlanMemoryMargin, int64_t* candidates = nullptr);

}  // namespace ladle::plan
