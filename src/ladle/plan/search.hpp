#pragma once
// search.hpp: search every layout of a model on a cluster (the parallel sizes and splits, and every
// knob the knob table marks searchable, with the values it lists), drop the invalid and those that
// do not fit, rank the rest by predicted throughput (or cost), and explain the best rejected ones.
//
// The search is a branch and bound over the knob table's values: a group of layouts whose memory
// lower bound exceeds the usable HBM, or whose speed upper bound is below the current last of the
// top (and of every watched layout), is counted and left out unpredicted. The bounds come from the
// knobs' `least_memory` and `fastest` values, so the answer is the brute-force answer: the same
// top layouts in the same order with the same figures, the same best rejected and the same ranks
// (`brute_force` runs the plain enumeration, which the tests compare against).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ladle/layout/layout.hpp"
#include "ladle/model/model_spec.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/cluster.hpp"
#include "ladle/plan/prediction.hpp"
#include "ladle/plan/scenario.hpp"

namespace ladle::plan {

/// What the ranking optimises. On one GPU type and count both give the same order; they differ
/// across the GPU counts of a sweep.
enum class Objective { throughput, cost };
/// "throughput" / "cost".
const char* to_string(Objective objective);
/// Parses an objective; throws Error(usage).
Objective parse_objective(std::string_view name);

/// What ranks the candidates: the predicted throughput (its median), or the lower end of its
/// 80% interval (the 10th percentile: safe picks).
enum class Rank { median, p10 };
/// "median" / "p10".
const char* to_string(Rank rank);
/// Parses a rank; throws Error(usage).
Rank parse_rank(std::string_view name);

/// A search: its scenario (the model's costs are priced by the search itself) and how to rank.
struct PlanRequest : Scenario {
  int64_t top = 5;                    ///< candidates to report in full
  Objective objective = Objective::throughput;
  Rank rank = Rank::median;
  double memory_margin = 0.05;        ///< fraction of HBM left free by a fitting layout
  std::vector<Layout> watch;          ///< layouts (resolved) whose rank to report
  /// The fixed part of the search (a user's own --args/--script): every candidate starts from
  /// `base`, and the knobs named in `fixed` (knob keys) keep base's value instead of being searched.
  Layout base;
  std::vector<std::string> fixed;
  /// Internal: predict every layout of the space instead of bounding groups of them out (slow; the
  /// reference the pruned search is tested and benchmarked against).
  bool brute_force = false;
};

/// A layout the search rejected though it was valid, and why.
struct Rejected {
  Layout layout;
  double tokens_per_s_per_gpu = 0;  ///< predicted, had it fit
  std::string reason;               ///< "memory 150.2 GiB > 133.9 GiB usable on stage 0 (activations)"
  double overshoot = 0;             ///< needed / usable (HBM, or host memory when that binds)
};

/// Watched ranks up to this are exact; a layout with this many fitting layouts or more predicted
/// faster ranks "beyond" it. Counting every faster layout of a slow watched layout would mean
/// predicting millions of them one by one (no bound prunes a group that is all faster and all fits).
inline constexpr int64_t kWatchRankExact = 300;

/// Where a watched layout stands.
struct WatchResult {
  Layout layout;
  bool enumerated = false;  ///< the search generated it
  std::string status;       ///< "fits", "invalid: ...", "does not fit: ..."
  /// 1-based among fitting layouts of the space (those strictly faster + 1); kWatchRankExact + 1
  /// with rank_exact false when kWatchRankExact or more are faster.
  int64_t rank = 0;
  bool rank_exact = true;
  double tokens_per_s_per_gpu = 0;
};

/// The result of a search.
struct PlanReport {
  std::string model;
  std::string gpu;
  int64_t gpus = 0;
  int64_t enumerated = 0;  ///< layouts in the search space
  /// Layouts predicted one by one, in all the search's passes (under brute_force: every layout of
  /// the cores whose layers split and whose batch divides; the other cores hold no valid layout).
  int64_t evaluated = 0;
  int64_t valid = 0;       ///< of those predicted one by one, passing every rule
  int64_t fitting = 0;     ///< of those, within memory (HBM less the margin, and host memory)
  int64_t bounded_memory = 0;  ///< left out unpredicted: a memory lower bound over the usable HBM
  int64_t bounded_speed = 0;   ///< left out unpredicted: a speed bound below the top (and the watched)
  std::vector<Prediction> top;          ///< best first, one per predicted speed
  /// For each of `top`: fitting layouts predicted exactly as fast and needing no less memory, left out.
  std::vector<int64_t> top_same_speed;
  /// Valid layouts predicted faster than the best fitting one that come closest to fitting.
  std::vector<Rejected> best_rejected;
  std::vector<WatchResult> watched;
  double usable_gib = 0;  ///< HBM per GPU a fitting layout may use
  Rank rank = Rank::median;  ///< what ordered `top`
};

/// One level of the branch and bound as the search builds it: a searched knob, each of its options
/// (the knob's value with those of the searched knobs that depend on it, as (key, spec text)
/// pairs), and the options its bounds take as needing the least memory and as the fastest
/// (npos: none, the bound takes the best of every option). For the tests that check the bounds
/// against the memory and time models.
struct SearchLevel {
  static constexpr size_t npos = static_cast<size_t>(-1);
  std::string key;
  std::vector<std::vector<std::pair<std::string, std::string>>> options;
  std::vector<bool> needs_a2a;  ///< per option: only where the expert all-to-all runs (ep > 1)
  size_t least_memory = npos;
  size_t fastest = npos;
};
/// The levels of a search of `model` from `base` with the knobs `fixed` kept.
std::vector<SearchLevel> search_levels(const ModelSpec& model, const Layout& base,
                                       const std::vector<std::string>& fixed);

/// Runs the search. Throws Error(usage) naming the constraint when no layout is valid, Error(no)
/// when none fits memory; the message names the constraint: no
/// (tp, pp, cp, dp) product equals the GPU count under the model's divisibility rules, or no valid
/// layout fits (then it names the smallest memory any layout needs).
PlanReport plan_layouts(const PlanRequest& request);

}  // namespace ladle::plan
