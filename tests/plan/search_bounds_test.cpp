// The search's bounds trust, for each searched knob, the option the table names as needing the
// least memory and the one named fastest. This property test computes instead of assuming: on
// random valid layouts of several models, moving one level of the search to its least-memory
// option never raises the predicted memory, and to its fastest option never raises the predicted
// step time, whatever the other knobs hold. A change to the memory or time model that makes a
// declaration false fails here (and would make the pruned search differ from brute force).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>

#include "ladle/layout/knobs.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/search.hpp"
#include "ladle/util/error.hpp"

namespace ladle::plan {
namespace {

// The same relative slack the search prunes with (a bound prunes only beyond it).
constexpr double kSlack = 1e-9;

struct Space {
  const char* model;
  const char* gpu;
  int64_t gpus;
};

template <typename T>
T pick(std::mt19937_64& rng, const std::vector<T>& values) {
  return values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)];
}

std::vector<int64_t> divisors(int64_t n, int64_t at_most) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n && d <= at_most; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

void apply_option(Layout& l, const std::vector<std::pair<std::string, std::string>>& option) {
  for (const auto& [key, text] : option) layout::set_knob_text(*layout::find_knob(key), l, text, key);
}

// A random core (sizes, split, rows, dispatcher) with a random option at every level; nullopt
// when it breaks a rule.
std::optional<Layout> random_layout(std::mt19937_64& rng, const ModelSpec& m, const Space& s,
                                    const std::vector<SearchLevel>& levels, const layout::LayoutContext& context) {
  const int64_t gpn = context.gpus_per_node;
  std::vector<int64_t> tps;
  for (int64_t tp = 1; tp <= gpn; tp *= 2) tps.push_back(tp);
  const int64_t tp = pick(rng, tps);
  const int64_t pp = pick(rng, divisors(s.gpus / tp, m.num_layers));
  const int64_t cp = pick(rng, divisors(s.gpus / (tp * pp), 8));
  const int64_t dp = s.gpus / (tp * pp * cp);
  const bool moe = m.num_experts > 0;
  const int64_t ep = moe ? pick(rng, divisors(m.num_experts, s.gpus)) : 1;
  const int64_t etp = moe ? pick(rng, std::vector<int64_t>{1, 2}) : 1;
  std::string spec = fmt::format("tp={},pp={},cp={},ep={},etp={},dp={},sp={},rows_per_mb={}", tp, pp, cp, ep, etp,
                                 dp, tp > 1 ? "on" : "off", pick(rng, std::vector<int64_t>{1, 2, 4}));
  if (pp > 1) {
    spec += fmt::format(",vpp={}", pick(rng, std::vector<int64_t>{1, 2}));
    if (m.num_layers % pp != 0) {
      // Lighter first and last stages carry what the even split leaves over.
      const int64_t mid = m.num_layers / pp + 1;
      const int64_t rest = m.num_layers - mid * (pp - 2);
      if (pp == 2 || rest < 2) return std::nullopt;
      spec += fmt::format(",first={},last={}", rest / 2, rest - rest / 2);
    }
  }
  if (moe && ep * etp > 1) {
    spec += "," + pick(rng, std::vector<std::string>{"dispatcher=alltoall", "dispatcher=allgather",
                                                     "dispatcher=flex,flex_backend=deepep",
                                                     "dispatcher=flex,flex_backend=hybridep"});
  } else {
    spec += ",dispatcher=alltoall";
  }
  Layout l = layout::parse_layout_spec(spec);
  l.offload = pick(rng, std::vector<double>{0.0, 0.0, 0.5, 1.0});
  l.overlap = l.offload > 0;
  l.precision_aware = l.dist_opt || l.offload > 0;
  const bool a2a = moe && ep > 1 && l.dispatcher != MoeDispatcher::allgather;
  for (const SearchLevel& level : levels) {
    std::vector<size_t> allowed;
    for (size_t i = 0; i < level.options.size(); ++i) {
      if (!level.needs_a2a[i] || a2a) allowed.push_back(i);
    }
    apply_option(l, level.options[pick(rng, allowed)]);
  }
  try {
    l = layout::resolve_layout(l, context);
  } catch (const Error&) {
    return std::nullopt;  // a combination Megatron-LM rejects
  }
  if (layout::find_layout_violation(l, m, context)) return std::nullopt;
  return l;
}

TEST(SearchBounds, EachLevelsDeclaredOptionsBoundMemoryAndSpeedOnRandomLayouts) {
  const std::vector<Space> spaces = {{"glm-4.7-flash", "h200", 8},
                                     {"qwen3-30b-a3b", "h100", 16},
                                     {"llama-3.1-8b", "h100", 16},
                                     {"deepseek-v3", "h100", 256},
                                     {"gpt-oss-120b", "gb200", 64}};
  constexpr int kLayoutsPerSpace = 150;
  std::mt19937_64 rng(20261201);
  int64_t checked = 0;
  int64_t would_fail = 0;  // layouts on which a swapped declaration is caught
  for (const Space& s : spaces) {
    const ModelSpec m = model::load_model(s.model);
    const Cluster cluster = make_cluster(s.gpu, s.gpus);
    const Workload w;
    const ModelCosts costs = model_costs(m, w.row_tokens);
    const Calibration calibration = default_calibration();
    const layout::LayoutContext context = checking_context(m, cluster, w);
    const std::vector<SearchLevel> levels = search_levels(m, Layout{}, {});
    ASSERT_FALSE(levels.empty()) << s.model;
    int found = 0;
    for (int attempt = 0; attempt < 200 * kLayoutsPerSpace && found < kLayoutsPerSpace; ++attempt) {
      const std::optional<Layout> x = random_layout(rng, m, s, levels, context);
      if (!x) continue;
      ++found;
      // As the search prices a bound: the estimates alone, on the layout with one level moved
      // (which need not be valid itself: the bound covers the valid layouts of the group).
      const std::vector<int64_t> stages = layout::stage_layers(*x, m.num_layers);
      const int64_t microbatches = layout::microbatches_per_step(*x, context);
      const auto memory = [&](const Layout& l) {
        return estimate_memory(costs, l, stages, microbatches, cluster, calibration).worst_bytes;
      };
      const auto step = [&](const Layout& l) {
        return estimate_time(costs, l, stages, microbatches, cluster, w, calibration).step_s;
      };
      const double memory_x = memory(*x);
      const double step_x = step(*x);
      const bool a2a = m.num_experts > 0 && x->ep > 1 && x->dispatcher != MoeDispatcher::allgather;
      for (const SearchLevel& level : levels) {
        const auto flipped = [&](size_t option) {
          Layout y = *x;
          apply_option(y, level.options[option]);
          return y;
        };
        const std::string what = fmt::format("{} {}: {}", s.model, layout::format_layout_spec(*x), level.key);
        if (level.least_memory != SearchLevel::npos && (!level.needs_a2a[level.least_memory] || a2a)) {
          EXPECT_LE(memory(flipped(level.least_memory)), memory_x * (1 + kSlack)) << what << " at its least-memory option";
          ++checked;
        }
        if (level.fastest != SearchLevel::npos && (!level.needs_a2a[level.fastest] || a2a)) {
          EXPECT_LE(step(flipped(level.fastest)), step_x * (1 + kSlack)) << what << " at its fastest option";
          ++checked;
        }
        // The check can fail: the fastest recompute option (none) is not the least memory one.
        if (level.key == "recompute" && level.fastest != SearchLevel::npos &&
            memory(flipped(level.fastest)) > memory_x * (1 + kSlack)) {
          ++would_fail;
        }
      }
    }
    EXPECT_EQ(found, kLayoutsPerSpace) << s.model << ": too few valid random layouts";
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(would_fail, 10);
}

}  // namespace
}  // namespace ladle::plan
