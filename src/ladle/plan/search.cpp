#include "ladle/plan/search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include "ladle/layout/knobs.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/pipeline_layout.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/stack.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::plan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr size_t kRejectedShown = 3;
// A bound prunes only beyond this relative distance: well above float rounding and the 1e-12
// tolerance within which two layouts count as equally fast.
constexpr double kBoundSlack = 1e-9;
constexpr size_t kStates = static_cast<size_t>(MemoryPart::optimizer_states);
constexpr double kInf = std::numeric_limits<double>::infinity();

// Knobs the search enumerates itself (sizes and splits from the model and the GPU count, the rows
// and dispatcher that decide the stages and the batch, the optimizer offload it re-prices); every
// other searchable knob of the table is a level of the branch and bound.
constexpr std::string_view kStructural[] = {
    "tp",           "pp",           "cp",         "ep",          "etp",
    "dp",           "sp",           "vpp",        "first",       "last",
    "account_embedding", "account_loss", "rows_per_mb", "max_tokens", "dispatcher",
    "flex_backend", "offload",      "overlap",    "precision_aware"};

bool is_structural(std::string_view key) {
  return std::find(std::begin(kStructural), std::end(kStructural), key) != std::end(kStructural);
}

std::vector<int64_t> divisors(int64_t n, int64_t at_most) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n && d <= at_most; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

struct Split {
  int64_t first = 0;
  int64_t last = 0;
  bool account_embedding = false;
  bool account_loss = false;
  bool operator==(const Split&) const = default;
};

// Pipeline splits worth trying: even when the layers divide; the embedding (and the loss) counted
// as a layer when that makes them divide; and first/last stages a little lighter than the middle
// ones, which carry the embedding and the head.
std::vector<Split> layer_splits(int64_t layers, int64_t pp) {
  std::vector<Split> out;
  if (pp == 1) return {Split{}};
  if (layers % pp == 0) out.push_back(Split{});
  if ((layers + 1) % pp == 0) out.push_back(Split{0, 0, true, false});
  if ((layers + 2) % pp == 0) out.push_back(Split{0, 0, true, true});
  const int64_t lo = layers / pp;
  for (int64_t mid : {lo, lo + 1}) {
    if (pp > 2 && mid < 1) continue;
    const int64_t rest = layers - mid * (pp - 2);
    for (int64_t first = std::max<int64_t>(1, mid - 3); first <= mid; ++first) {
      const int64_t last = rest - first;
      if (last < 1 || last > mid + 1 || last < mid - 3) continue;
      if (first == mid && last == mid) continue;  // the even split, covered above
      const Split split{first, last};
      if (std::find(out.begin(), out.end(), split) == out.end()) out.push_back(split);
    }
  }
  return out;
}

// Whether a member of a set knob (a recompute, CUDA graph or offload module) exists in the model:
// a list naming one that does not is a duplicate of a shorter list, or one Megatron-LM rejects.
bool member_applies(std::string_view member, const ModelSpec& m) {
  const bool moe = m.num_experts > 0;
  if (member == "mla_up_proj") return m.attention == AttentionKind::mla;
  if (member == "mlp") return !moe || m.count_mlp(MlpKind::dense) > 0;
  if (member == "shared_experts") return moe && m.shared_expert_intermediate_size > 0;
  if (member == "mamba") return false;
  if (member.starts_with("moe") || member == "expert_fc1" || member == "fused_group_mlp") return moe;
  return true;
}

// One knob's value as the layout stores it.
struct Assign {
  const layout::Knob* knob = nullptr;
  int64_t value = 0;
  double real = 0;
};

void apply_sets(Layout& l, const std::vector<Assign>& sets) {
  for (const Assign& a : sets) {
    if (a.knob->kind == layout::KnobKind::real) {
      a.knob->set_real(l, a.real);
    } else {
      a.knob->set(l, a.value);
    }
  }
}

Assign read_assign(const layout::Knob& knob, const Layout& l) {
  Assign a{&knob};
  if (knob.kind == layout::KnobKind::real) {
    a.real = knob.get_real(l);
  } else {
    a.value = knob.get(l);
  }
  return a;
}

// One value of a level: the knob's value and those of the searched knobs that depend on it.
struct Option {
  std::vector<Assign> sets;
  bool a2a_overlap = false;  // needs expert-parallel all-to-all (alltoall or flex, ep > 1)
};

// One searched knob of the table, with its options and the two options the bounds take.
struct Level {
  const layout::Knob* knob = nullptr;
  std::vector<Option> options;
  // The option that needs the least memory, and the fastest, whatever the other levels hold;
  // npos: none is known, and the bound takes the best over every option.
  size_t least_memory = std::string::npos;
  size_t fastest = std::string::npos;
};

class Space {
 public:
  Space(const ModelSpec& model, const Layout& base, const std::vector<std::string>& fixed)
      : model_(model), base_(base), fixed_(fixed) {}

  bool is_fixed(std::string_view key) const { return std::find(fixed_.begin(), fixed_.end(), key) != fixed_.end(); }

  // The values of `knob` to try: the base's when the user's arguments fix it, else the table's
  // list, less the sets that name a module the model lacks.
  std::vector<Assign> values(const layout::Knob& knob) const {
    if (is_fixed(knob.key) || !knob.searchable || knob.search.empty()) return {read_assign(knob, base_)};
    std::vector<Assign> out;
    for (const std::string& word : util::split(std::string(knob.search), ' ')) {
      if (word.empty()) continue;
      if (knob.kind == layout::KnobKind::set) {
        bool applies = true;
        for (const std::string& member : util::split(word, '+')) applies = applies && member_applies(member, model_);
        if (!applies) continue;
      }
      Layout scratch = base_;
      layout::set_knob_text(knob, scratch, word, knob.key);
      out.push_back(read_assign(knob, scratch));
    }
    if (out.empty()) out.push_back(read_assign(knob, base_));
    return out;
  }

  // Every combination of `knob`'s values with those of the searched knobs whose `when` names it.
  std::vector<std::vector<Assign>> expand(const layout::Knob& knob, const Layout& at) const {
    std::vector<std::vector<Assign>> out;
    for (const Assign& v : values(knob)) {
      Layout scratch = at;
      apply_sets(scratch, {v});
      std::vector<std::vector<Assign>> combos = {{v}};
      for (const layout::Knob& child : layout::kKnobs) {
        if (child.when.key != knob.key || !layout::knob_applies(child, scratch)) continue;
        if (!child.searchable && !is_fixed(child.key)) continue;
        std::vector<std::vector<Assign>> next;
        for (const std::vector<Assign>& combo : combos) {
          for (const std::vector<Assign>& sub : expand(child, scratch)) {
            std::vector<Assign> joined = combo;
            joined.insert(joined.end(), sub.begin(), sub.end());
            next.push_back(std::move(joined));
          }
        }
        combos = std::move(next);
      }
      for (std::vector<Assign>& combo : combos) out.push_back(std::move(combo));
    }
    return out;
  }

  // The levels: every searchable knob of the table that the search does not enumerate itself and
  // that depends on no other knob, in table order.
  std::vector<Level> levels() const {
    std::vector<Level> out;
    for (const layout::Knob& knob : layout::kKnobs) {
      if (!knob.searchable || is_structural(knob.key) || !knob.when.key.empty()) continue;
      Level level{&knob};
      for (std::vector<Assign>& sets : expand(knob, base_)) {
        Option option;
        option.sets = std::move(sets);
        Layout scratch = base_;
        apply_sets(scratch, option.sets);
        option.a2a_overlap = scratch.a2a_overlap;
        level.options.push_back(std::move(option));
      }
      level.least_memory = hinted(level, &layout::Knob::least_memory);
      level.fastest = hinted(level, &layout::Knob::fastest);
      out.push_back(std::move(level));
    }
    return out;
  }

 private:
  // The first option whose level knob holds its hinted value, preferring those whose dependent
  // knobs hold theirs too.
  size_t hinted(const Level& level, std::string_view layout::Knob::*hint) const {
    if (level.options.size() == 1) return 0;
    size_t best = std::string::npos;
    int best_matches = -1;
    for (size_t i = 0; i < level.options.size(); ++i) {
      Layout scratch = base_;
      apply_sets(scratch, level.options[i].sets);
      bool head = false;
      int matches = 0;
      for (const Assign& a : level.options[i].sets) {
        const std::string_view want = a.knob->*hint;
        if (want.empty()) continue;
        const bool match = layout::knob_text(*a.knob, scratch) == want;
        if (a.knob == level.knob) head = match;
        matches += match ? 1 : 0;
      }
      if (head && matches > best_matches) {
        best = i;
        best_matches = matches;
      }
    }
    return best;
  }

  const ModelSpec& model_;
  const Layout& base_;
  const std::vector<std::string>& fixed_;
};

struct Scored {
  Layout layout;
  double score = 0;  // higher is better
  double tokens_per_s = 0;
  double memory = 0;  // ties go to the layout that needs less memory, then to the first enumerated
  int64_t index = 0;
  int64_t same_speed = 0;  // other fitting layouts with this score that the list leaves out
  bool better_than(const Scored& other) const {
    if (score != other.score) return score > other.score;
    if (memory != other.memory) return memory < other.memory;
    return index < other.index;
  }
};

// Keeps the `keep` best candidates, one per score: a layout predicted exactly as fast as one already
// kept (another dispatcher, or CP traded for rows per microbatch) is counted on it, and the one
// needing less memory stays.
void keep_best(std::vector<Scored>& best, Scored candidate, size_t keep) {
  const auto twin = std::find_if(best.begin(), best.end(), [&](const Scored& x) {
    return std::fabs(x.score - candidate.score) <= 1e-12 * std::fabs(candidate.score);
  });
  if (twin != best.end()) {
    if (candidate.better_than(*twin)) {
      candidate.same_speed = twin->same_speed + 1;
      *twin = std::move(candidate);
    } else {
      ++twin->same_speed;
    }
    return;
  }
  if (best.size() < keep || candidate.better_than(best.back())) {
    auto at = std::find_if(best.begin(), best.end(), [&](const Scored& x) { return candidate.better_than(x); });
    best.insert(at, std::move(candidate));
    if (best.size() > keep) best.pop_back();
  }
}

// A rejected layout before its reason is written.
struct RejectCandidate {
  Layout layout;
  double speed = 0;
  double overshoot = 0;
  int64_t index = 0;
  bool hbm = true;  // over HBM (else over host memory)
  size_t stage = 0;
  double worst = 0;
  double host = 0;
  std::array<double, kMemoryParts> parts{};
};

bool closer(const RejectCandidate& a, const RejectCandidate& b) {
  return a.overshoot != b.overshoot ? a.overshoot < b.overshoot : a.index < b.index;
}

// One combination of the structural knobs: the stages and microbatches every level shares.
struct CoreKey {
  int64_t tp = 1, pp = 1, cp = 1, ep = 1, etp = 1, dp = 1, vpp = 1, rows = 1;
  Split split;
  MoeDispatcher dispatcher = MoeDispatcher::alltoall;
  FlexBackend backend = FlexBackend::deepep;
};

struct CoreRecord {
  CoreKey key;
  int64_t index = 0;
  int64_t size = 0;       // layouts under it
  bool a2a = false;       // the a2a-overlap options apply
  double memory_lb = 0;   // bytes
  double speed_ub = -1;   // tokens/s per GPU (-1: not computed yet)
};

enum class Goal { top, rejected, smallest };

class Search {
 public:
  explicit Search(const PlanRequest& req)
      : req_(req),
        model_(req.model),
        cluster_(req.cluster),
        w_(req.workload),
        costs_(model_costs(req.model, req.workload.row_tokens, req.workload.image_tokens)),
        gpus_(req.cluster.gpus),
        gpn_(req.cluster.gpus_per_node()),
        context_(checking_context(req.model, req.cluster, req.workload)),
        space_(req.model, req.base, req.fixed) {}

  PlanReport run();

 private:
  bool is_fixed(std::string_view key) const { return space_.is_fixed(key); }
  // Whether option `i` of `level` is one of the current core's.
  bool allowed(const Level& level, size_t i) const {
    return i < level.options.size() && (!level.options[i].a2a_overlap || core_a2a_);
  }
  Layout core_layout(const CoreKey& k) const;
  void enumerate_cores(const std::function<void(const CoreKey&)>& visit) const;
  // Bounds of the layouts of `core` whose levels below `depth` are those of `l`.
  double memory_bound(const Layout& l, size_t depth);
  double speed_bound(const Layout& l, size_t depth);
  double worst_at(const std::vector<std::array<double, kMemoryParts>>& stages, double offload, size_t* at) const;
  void descend(Goal goal, Layout& l, size_t depth, double memory_lb, double speed_ub, int64_t index);
  void leaf(Goal goal, const Layout& l, int64_t index);
  void watch_membership(const CoreKey& key, const Layout& core);
  double speed_threshold() const;
  double rejected_threshold() const;
  int64_t subtree_size(size_t depth) const;
  void prepare_core(const CoreRecord& record);

  const PlanRequest& req_;
  const ModelSpec& model_;
  const Cluster& cluster_;
  const Workload& w_;
  const ModelCosts costs_;
  const int64_t gpus_;
  const int64_t gpn_;
  layout::LayoutContext context_;
  Space space_;

  PlanReport report_;
  std::vector<Level> levels_;
  std::vector<double> offloads_;
  double usable_bytes_ = 0;
  double host_bytes_ = 0;
  double tokens_per_step_ = 0;
  double price_ = 0;
  double host_factor_ = 0;
  size_t keep_ = 1;   ///< candidates kept by median while searching
  size_t shown_ = 1;  ///< candidates reported (fewer than kept when reranked by p10)

  // The core being searched.
  std::vector<int64_t> stages_;
  int64_t microbatches_ = 0;
  bool core_a2a_ = false;
  std::vector<std::array<double, kMemoryParts>> stage_memory_;

  std::vector<Scored> best_;
  double best_speed_ = 0;
  std::vector<double> watch_speed_;
  double watch_floor_ = kInf;  // the slowest fitting watched layout
  // The kWatchRankExact highest speeds of the fitting layouts predicted so far (a min-heap), kept
  // while layouts are watched: a watched layout slower than all of them ranks beyond
  // kWatchRankExact, so the search need not predict every layout between it and the top.
  std::vector<double> fastest_fitting_;
  std::vector<RejectCandidate> rejected_;
  double smallest_memory_ = kInf;
  double smallest_host_ = kInf;  // host bytes per node of the layouts that fit in HBM (what binds when none fits)
};

Layout Search::core_layout(const CoreKey& k) const {
  Layout base = req_.base;
  base.tp = k.tp;
  base.pp = k.pp;
  base.cp = k.cp;
  base.ep = k.ep;
  base.etp = k.etp;
  base.dp = k.dp;
  if (!is_fixed("sp")) base.sp = k.tp > 1;
  base.vpp = k.vpp;
  base.first = k.split.first;
  base.last = k.split.last;
  base.account_embedding = k.split.account_embedding;
  base.account_loss = k.split.account_loss;
  // The precision-aware optimizer (which offload needs) runs with a distributed optimizer.
  if (!is_fixed("precision_aware")) base.precision_aware = base.dist_opt || base.fsdp != Fsdp::none;
  base.rows_per_mb = k.rows;
  base.max_tokens = k.rows * w_.row_tokens / k.cp;
  base.dispatcher = k.dispatcher;
  base.flex_backend = k.backend;
  return base;
}

void Search::enumerate_cores(const std::function<void(const CoreKey&)>& visit) const {
  const Layout& b = req_.base;
  const bool moe = model_.num_experts > 0;
  const std::vector<int64_t> expert_sizes = moe ? divisors(model_.num_experts, gpus_) : std::vector<int64_t>{1};
  const auto only = [](int64_t v) { return std::vector<int64_t>{v}; };
  const auto table_values = [this](std::string_view key) {
    std::vector<int64_t> out;
    for (const Assign& a : space_.values(*layout::find_knob(key))) out.push_back(a.value);
    return out;
  };
  std::vector<int64_t> tps;
  for (int64_t tp = 1; tp <= gpn_; tp *= 2) tps.push_back(tp);
  if (is_fixed("tp")) tps = only(b.tp);
  const bool split_fixed = is_fixed("first") || is_fixed("last") || is_fixed("pipeline_layout") ||
                           is_fixed("account_embedding") || is_fixed("account_loss");
  const int64_t layout_stages =
      b.pipeline_layout.empty() ? 0 : static_cast<int64_t>(layout::parse_pipeline_layout(b.pipeline_layout).size());
  const std::vector<int64_t> vpp_values = table_values("vpp");
  std::vector<int64_t> rows_list = table_values("rows_per_mb");
  if (is_fixed("max_tokens") && !is_fixed("rows_per_mb")) rows_list.clear();
  const std::vector<int64_t> dispatchers = table_values("dispatcher");
  const std::vector<int64_t> backends = table_values("flex_backend");

  for (int64_t tp : tps) {
    if (gpn_ % tp != 0 || gpus_ % tp != 0) continue;
    std::vector<int64_t> pps = divisors(gpus_ / tp, model_.num_layers);
    if (is_fixed("pp")) pps = (gpus_ / tp) % b.pp == 0 ? only(b.pp) : std::vector<int64_t>{};
    for (int64_t pp : pps) {
      std::vector<int64_t> cps = divisors(gpus_ / (tp * pp), 16);
      if (is_fixed("cp")) cps = (gpus_ / (tp * pp)) % b.cp == 0 ? only(b.cp) : std::vector<int64_t>{};
      for (int64_t cp : cps) {
        const int64_t dp = gpus_ / (tp * pp * cp);
        std::vector<int64_t> eps = expert_sizes;
        if (is_fixed("ep")) eps = only(b.ep);
        for (int64_t ep : eps) {
          std::vector<int64_t> etps;
          for (int64_t etp = 1; etp <= (moe ? gpn_ : 1); etp *= 2) etps.push_back(etp);
          if (is_fixed("etp")) etps = only(b.etp);
          for (int64_t etp : etps) {
            if ((tp * cp * dp) % (ep * etp) != 0) continue;
            std::vector<Split> splits = layer_splits(model_.num_layers, pp);
            if (split_fixed) splits = {Split{b.first, b.last, b.account_embedding, b.account_loss}};
            std::vector<int64_t> vpps;
            for (int64_t vpp : vpp_values) {
              if (vpp == 1 || pp > 1) vpps.push_back(vpp);
            }
            if (is_fixed("vpp")) vpps = only(b.vpp);
            if (layout_stages > 0) vpps = layout_stages % pp == 0 ? only(layout_stages / pp) : std::vector<int64_t>{};
            std::vector<int64_t> rows_here = rows_list;
            if (rows_here.empty()) rows_here = only(std::max<int64_t>(1, b.max_tokens * cp / w_.row_tokens));
            for (const Split& split : splits) {
              for (int64_t vpp : vpps) {
                for (int64_t rows : rows_here) {
                  for (int64_t d : dispatchers) {
                    const auto dispatcher = static_cast<MoeDispatcher>(d);
                    if (!is_fixed("dispatcher") && dispatcher != MoeDispatcher::alltoall && (!moe || ep * etp == 1)) {
                      continue;
                    }
                    const std::vector<int64_t> flex =
                        dispatcher == MoeDispatcher::flex ? backends : only(static_cast<int64_t>(b.flex_backend));
                    for (int64_t backend : flex) {
                      visit(CoreKey{tp, pp, cp, ep, etp, dp, vpp, rows, split, dispatcher,
                                    static_cast<FlexBackend>(backend)});
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

double Search::worst_at(const std::vector<std::array<double, kMemoryParts>>& stages, double offload,
                        size_t* at) const {
  double worst = 0;
  size_t worst_stage = 0;
  for (size_t st = 0; st < stages.size(); ++st) {
    double total = -offload * stages[st][kStates];
    for (double v : stages[st]) total += v;
    if (total > worst) {
      worst = total;
      worst_stage = st;
    }
  }
  if (at != nullptr) *at = worst_stage;
  return worst;
}

// The least memory any layout below `depth` can need: each level at its least-memory option (the
// best of all options where the table names none), the optimizer offload at its largest fraction.
double Search::memory_bound(const Layout& l, size_t depth) {
  if (depth == levels_.size()) {
    Layout x = l;
    x.offload = 0;
    x.overlap = false;
    estimate_memory(costs_, x, stages_, microbatches_, cluster_, req_.calibration, &stage_memory_);
    double fraction = 0;
    for (double f : offloads_) {
      if (f == 0 || x.precision_aware) fraction = std::max(fraction, f);
    }
    return worst_at(stage_memory_, fraction, nullptr);
  }
  const Level& level = levels_[depth];
  if (allowed(level, level.least_memory)) {
    Layout x = l;
    apply_sets(x, level.options[level.least_memory].sets);
    return memory_bound(x, depth + 1);
  }
  double lb = kInf;
  for (const Option& option : level.options) {
    if (option.a2a_overlap && !core_a2a_) continue;
    Layout x = l;
    apply_sets(x, option.sets);
    lb = std::min(lb, memory_bound(x, depth + 1));
  }
  return lb;
}

// The highest speed any layout below `depth` can reach, tokens/s per GPU.
double Search::speed_bound(const Layout& l, size_t depth) {
  if (depth == levels_.size()) {
    Layout x = l;
    x.offload = 0;
    x.overlap = false;
    const TimeEstimate time0 = estimate_time(costs_, x, stages_, microbatches_, cluster_, w_, req_.calibration);
    double fastest = kInf;
    for (double f : offloads_) {
      if (f > 0 && !x.precision_aware) continue;
      TimeEstimate t = time0;
      apply_offload(t, f, is_fixed("overlap") ? req_.base.overlap : f > 0, x.moments, cluster_, req_.calibration);
      fastest = std::min(fastest, t.step_s);
    }
    return fastest == kInf ? 0.0 : tokens_per_step_ / fastest / static_cast<double>(gpus_);
  }
  const Level& level = levels_[depth];
  if (allowed(level, level.fastest)) {
    Layout x = l;
    apply_sets(x, level.options[level.fastest].sets);
    return speed_bound(x, depth + 1);
  }
  double ub = 0;
  for (const Option& option : level.options) {
    if (option.a2a_overlap && !core_a2a_) continue;
    Layout x = l;
    apply_sets(x, option.sets);
    ub = std::max(ub, speed_bound(x, depth + 1));
  }
  return ub;
}

int64_t Search::subtree_size(size_t depth) const {
  int64_t n = static_cast<int64_t>(offloads_.size());
  for (size_t i = depth; i < levels_.size(); ++i) {
    int64_t count = 0;
    for (const Option& option : levels_[i].options) count += (!option.a2a_overlap || core_a2a_) ? 1 : 0;
    n *= count;
  }
  return n;
}

double Search::speed_threshold() const {
  const double kth = best_.size() >= keep_ ? best_.back().tokens_per_s : 0.0;
  // A layout slower than the kWatchRankExact fastest fitting ones changes no watched rank that is
  // reported exactly (see WatchResult::rank_exact).
  const bool full = fastest_fitting_.size() >= static_cast<size_t>(kWatchRankExact);
  return std::min(kth, full ? std::max(watch_floor_, fastest_fitting_.front()) : watch_floor_);
}

double Search::rejected_threshold() const {
  return rejected_.size() < kRejectedShown ? kInf : rejected_[kRejectedShown - 1].overshoot;
}

void Search::descend(Goal goal, Layout& l, size_t depth, double memory_lb, double speed_ub, int64_t index) {
  if (depth == levels_.size()) {
    leaf(goal, l, index);
    return;
  }
  const Level& level = levels_[depth];
  struct Child {
    size_t option;
    double memory_lb;
    double speed_ub;
  };
  std::vector<Child> children;
  int64_t radix = 1;
  for (size_t i = depth + 1; i < levels_.size(); ++i) radix *= static_cast<int64_t>(levels_[i].options.size());
  for (size_t i = 0; i < level.options.size(); ++i) {
    if (level.options[i].a2a_overlap && !core_a2a_) continue;
    Layout x = l;
    apply_sets(x, level.options[i].sets);
    double m = memory_lb;
    double s = speed_ub;
    if (!req_.brute_force && depth + 1 < levels_.size()) {
      if (i != level.least_memory) m = memory_bound(x, depth + 1);
      if (goal != Goal::smallest && i != level.fastest) s = speed_bound(x, depth + 1);
    }
    children.push_back(Child{i, m, s});
  }
  if (!req_.brute_force && goal == Goal::top) {
    std::stable_sort(children.begin(), children.end(),
                     [](const Child& a, const Child& b) { return a.speed_ub > b.speed_ub; });
  }
  for (const Child& child : children) {
    if (!req_.brute_force && depth + 1 < levels_.size()) {
      const int64_t size = subtree_size(depth + 1);
      if (goal == Goal::top) {
        if (child.memory_lb > usable_bytes_ * (1 + kBoundSlack)) {
          report_.bounded_memory += size;
          continue;
        }
        if (child.speed_ub < speed_threshold() * (1 - kBoundSlack)) {
          report_.bounded_speed += size;
          continue;
        }
      } else if (goal == Goal::rejected) {
        const double overshoot_lb = child.memory_lb > usable_bytes_ ? child.memory_lb / usable_bytes_ : 1.0;
        if (child.speed_ub < best_speed_ * (1 - kBoundSlack) ||
            overshoot_lb > rejected_threshold() * (1 + kBoundSlack)) {
          continue;
        }
      } else if (child.memory_lb > smallest_memory_ * (1 + kBoundSlack)) {
        continue;
      }
    }
    Layout x = l;
    apply_sets(x, level.options[child.option].sets);
    descend(goal, x, depth + 1, child.memory_lb, child.speed_ub,
            index + static_cast<int64_t>(child.option) * radix * static_cast<int64_t>(offloads_.size()));
  }
}

void Search::leaf(Goal goal, const Layout& l0, int64_t index) {
  Layout l = l0;
  report_.evaluated += static_cast<int64_t>(offloads_.size());
  // The offload fraction changes neither validity (the precision-aware optimizer is on) nor
  // anything but the optimizer's memory and time: evaluate once at 0 and re-price the optimizer
  // for each fraction.
  {
    Layout check = l;
    check.offload = offloads_.front();
    check.overlap = is_fixed("overlap") ? req_.base.overlap : check.offload > 0;
    if (layout::find_layout_violation(check, model_, context_)) return;
    // A feature the stack's release lacks (--stack; stacks.yaml): Megatron-LM would not take it.
    if (stack_violation(check, workload_stack(w_))) return;
  }
  l.offload = 0;
  l.overlap = false;
  estimate_memory(costs_, l, stages_, microbatches_, cluster_, req_.calibration, &stage_memory_);
  const TimeEstimate time0 = estimate_time(costs_, l, stages_, microbatches_, cluster_, w_, req_.calibration);
  double largest_states = 0;
  for (const auto& stage : stage_memory_) largest_states = std::max(largest_states, stage[kStates]);
  for (size_t oi = 0; oi < offloads_.size(); ++oi) {
    const double offload = offloads_[oi];
    l.offload = offload;
    l.overlap = is_fixed("overlap") ? req_.base.overlap : offload > 0;
    if (offload > 0 && !l.precision_aware) continue;
    const int64_t at = index + static_cast<int64_t>(oi);
    size_t worst_stage = 0;
    const double worst = worst_at(stage_memory_, offload, &worst_stage);
    const double host = offload * largest_states * host_factor_;
    const bool fits_hbm = worst <= usable_bytes_;
    const bool fits_host = host <= host_bytes_;
    if (fits_hbm) smallest_host_ = std::min(smallest_host_, host);
    if (goal == Goal::smallest) {
      smallest_memory_ = std::min(smallest_memory_, worst);
      continue;
    }
    TimeEstimate time = time0;
    apply_offload(time, offload, l.overlap, l.moments, cluster_, req_.calibration);
    const double speed = tokens_per_step_ / time.step_s / static_cast<double>(gpus_);
    if (goal == Goal::top) {
      ++report_.valid;
      smallest_memory_ = std::min(smallest_memory_, worst);
      for (size_t i = 0; i < req_.watch.size(); ++i) {
        if (!report_.watched[i].enumerated && l == req_.watch[i]) report_.watched[i].enumerated = true;
      }
    }
    if (!fits_hbm || !fits_host) {
      // Brute force keeps every rejected layout faster than the best fitting one so far; the
      // pruned search finds them in a pass of its own once the best is known.
      const bool collect = goal == Goal::rejected ? speed > best_speed_ : req_.brute_force && speed > best_speed_;
      if (collect) {
        RejectCandidate r{l, speed, !fits_hbm ? worst / usable_bytes_ : host / host_bytes_, at, !fits_hbm,
                          worst_stage, worst, host, stage_memory_[worst_stage]};
        r.parts[kStates] *= 1.0 - offload;
        if (goal == Goal::rejected) {
          // The pass keeps the closest few, in order.
          rejected_.insert(std::upper_bound(rejected_.begin(), rejected_.end(), r, closer), std::move(r));
          if (rejected_.size() > kRejectedShown) rejected_.pop_back();
          continue;
        }
        rejected_.push_back(std::move(r));
        if (rejected_.size() > 4096) {
          std::erase_if(rejected_, [this](const RejectCandidate& x) { return x.speed <= best_speed_; });
        }
      }
      continue;
    }
    if (goal != Goal::top) continue;
    ++report_.fitting;
    best_speed_ = std::max(best_speed_, speed);
    for (size_t i = 0; i < watch_speed_.size(); ++i) {
      if (watch_speed_[i] >= 0 && speed > watch_speed_[i]) ++report_.watched[i].rank;
    }
    if (!watch_speed_.empty()) {
      const auto slower = std::greater<double>();
      if (fastest_fitting_.size() < static_cast<size_t>(kWatchRankExact)) {
        fastest_fitting_.push_back(speed);
        std::push_heap(fastest_fitting_.begin(), fastest_fitting_.end(), slower);
      } else if (speed > fastest_fitting_.front()) {
        std::pop_heap(fastest_fitting_.begin(), fastest_fitting_.end(), slower);
        fastest_fitting_.back() = speed;
        std::push_heap(fastest_fitting_.begin(), fastest_fitting_.end(), slower);
      }
    }
    // Cost per token is price / speed: on one cluster both objectives rank alike.
    const double score = req_.objective == Objective::cost ? -price_ / speed : speed;
    keep_best(best_, Scored{l, score, speed, worst, at}, keep_);
  }
}

void Search::watch_membership(const CoreKey& key, const Layout& core) {
  for (size_t i = 0; i < req_.watch.size(); ++i) {
    const Layout& w = req_.watch[i];
    if (report_.watched[i].enumerated) continue;
    if (w.tp != key.tp || w.pp != key.pp || w.cp != key.cp || w.ep != key.ep || w.etp != key.etp ||
        w.vpp != key.vpp || w.rows_per_mb != key.rows || w.dispatcher != key.dispatcher || w.first != key.split.first ||
        w.last != key.split.last) {
      continue;
    }
    // Walk the levels' combinations of this core.
    std::vector<size_t> at(levels_.size(), 0);
    while (true) {
      Layout x = core;
      bool skip = false;
      for (size_t d = 0; d < levels_.size(); ++d) {
        const Option& option = levels_[d].options[at[d]];
        skip = skip || (option.a2a_overlap && !core_a2a_);
        apply_sets(x, option.sets);
      }
      for (double f : offloads_) {
        x.offload = f;
        x.overlap = is_fixed("overlap") ? req_.base.overlap : f > 0;
        if (!skip && x == w) report_.watched[i].enumerated = true;
      }
      size_t d = 0;
      while (d < levels_.size() && ++at[d] == levels_[d].options.size()) at[d++] = 0;
      if (d == levels_.size()) break;
    }
  }
}

void Search::prepare_core(const CoreRecord& record) {
  const Layout core = core_layout(record.key);
  stages_ = layout::stage_layers(core, model_.num_layers);
  microbatches_ = layout::microbatches_per_step(core, context_);
  core_a2a_ = record.a2a;
}

PlanReport Search::run() {
  if (gpus_ < 1) throw_usage("--gpus must be at least 1, got {}", gpus_);
  report_.model = model_.name;
  report_.gpu = cluster_.gpu.name;
  report_.gpus = gpus_;
  report_.usable_gib = hbm_capacity_gib(cluster_.gpu) * (1.0 - req_.memory_margin);
  usable_bytes_ = report_.usable_gib * kGiB;
  host_bytes_ = cluster_.instance.host_memory_gib * req_.calibration.host_memory_usable * kGiB;
  tokens_per_step_ = static_cast<double>(w_.global_batch * w_.row_tokens);
  price_ = cluster_.instance.usd_per_gpu_hour();
  // Ranking by the 10th percentile: the search keeps a wider pool by median (a layout's lower
  // bound never exceeds its median, and interval widths differ by tens of percent, not by
  // factors), then reranks the pool by the lower bound.
  shown_ = static_cast<size_t>(std::max<int64_t>(1, req_.top));
  keep_ = req_.rank == Rank::p10 ? std::max<size_t>(shown_ * 8, 64) : shown_;
  // Host bytes per byte of GPU optimizer states moved off: FP32 master and moments plus an FP32
  // gradient copy, for every GPU of a node (see estimate_memory).
  host_factor_ = (12.0 + 4.0) / 12.0 * static_cast<double>(gpn_);
  levels_ = space_.levels();
  for (const Assign& a : space_.values(*layout::find_knob("offload"))) offloads_.push_back(a.real);

  // Watched layouts: predicted first, so the search can count the fitting layouts faster than each.
  watch_speed_.assign(req_.watch.size(), -1.0);
  for (size_t i = 0; i < req_.watch.size(); ++i) {
    WatchResult result;
    result.layout = req_.watch[i];
    if (auto violation = layout::find_layout_violation(req_.watch[i], model_, context_)) {
      result.status = "invalid: " + *violation;
    } else if (auto lacks = stack_violation(req_.watch[i], workload_stack(w_))) {
      result.status = "invalid: " + *lacks;
    } else {
      const Prediction p = predict(costs_, model_, req_.watch[i], cluster_, w_, req_.calibration);
      result.tokens_per_s_per_gpu = p.tokens_per_s_per_gpu;
      const bool fits = p.memory_gib * kGiB <= usable_bytes_ && p.host_memory_gib * kGiB <= host_bytes_;
      result.status = fits ? "fits" : fmt::format("does not fit: {:.1f} GiB > {:.1f} GiB usable", p.memory_gib,
                                                  report_.usable_gib);
      if (fits) {
        watch_speed_[i] = p.tokens_per_s_per_gpu;
        watch_floor_ = std::min(watch_floor_, p.tokens_per_s_per_gpu);
      }
      result.rank = 1;
    }
    report_.watched.push_back(result);
  }

  const bool moe = model_.num_experts > 0;
  const int64_t offload_count = static_cast<int64_t>(offloads_.size());
  std::vector<CoreRecord> records;
  int64_t core_index = 0;
  int64_t radix = offload_count;
  for (const Level& level : levels_) radix *= static_cast<int64_t>(level.options.size());
  enumerate_cores([&](const CoreKey& key) {
    CoreRecord record{key, core_index++ * radix};
    // Megatron-LM's rules (layout_rules.cpp) allow the a2a overlap only with EP, the alltoall or
    // flex dispatcher and, under pipelining, virtual stages: elsewhere its options are invalid, and
    // counting them in the bounds would price every pipelined core without VPP as overlapped.
    record.a2a = is_fixed("a2a_overlap") ||
                 (moe && key.ep > 1 && key.dispatcher != MoeDispatcher::allgather && (key.pp == 1 || key.vpp > 1));
    core_a2a_ = record.a2a;
    record.size = subtree_size(0);
    report_.enumerated += record.size;
    const Layout core = core_layout(key);
    if (!req_.watch.empty()) watch_membership(key, core);
    // No layout of a core whose layers cannot be split, or whose batch does not divide, is valid.
    stages_ = layout::stage_layers(core, model_.num_layers);
    if (stages_.empty() || w_.global_batch % key.dp != 0 || w_.global_batch / key.dp < key.rows) return;
    microbatches_ = layout::microbatches_per_step(core, context_);
    if (req_.brute_force) {
      Layout l = core;
      descend(Goal::top, l, 0, 0, kInf, record.index);
      return;
    }
    record.memory_lb = memory_bound(core, 0);
    if (record.memory_lb <= usable_bytes_ * (1 + kBoundSlack)) record.speed_ub = speed_bound(core, 0);
    records.push_back(record);
  });

  if (!req_.brute_force) {
    // The cores most likely to hold the fastest layouts first, so the bound tightens early.
    std::vector<size_t> order;
    for (size_t i = 0; i < records.size(); ++i) {
      if (records[i].speed_ub >= 0) {
        order.push_back(i);
      } else {
        report_.bounded_memory += records[i].size;
      }
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return records[a].speed_ub > records[b].speed_ub; });
    for (size_t i : order) {
      const CoreRecord& r = records[i];
      if (r.speed_ub < speed_threshold() * (1 - kBoundSlack)) {
        report_.bounded_speed += r.size;
        continue;
      }
      prepare_core(r);
      Layout l = core_layout(r.key);
      descend(Goal::top, l, 0, r.memory_lb, r.speed_ub, r.index);
    }
    // The rejected layouts faster than the best fitting one that come closest to fitting.
    if (best_speed_ > 0) {
      std::vector<size_t> by_overshoot(records.size());
      std::iota(by_overshoot.begin(), by_overshoot.end(), size_t{0});
      const auto overshoot_lb = [&](const CoreRecord& r) {
        return r.memory_lb > usable_bytes_ ? r.memory_lb / usable_bytes_ : 1.0;
      };
      std::stable_sort(by_overshoot.begin(), by_overshoot.end(),
                       [&](size_t a, size_t b) { return overshoot_lb(records[a]) < overshoot_lb(records[b]); });
      for (size_t i : by_overshoot) {
        CoreRecord& r = records[i];
        if (overshoot_lb(r) > rejected_threshold() * (1 + kBoundSlack)) break;
        prepare_core(r);
        Layout l = core_layout(r.key);
        if (r.speed_ub < 0) r.speed_ub = speed_bound(l, 0);
        if (r.speed_ub < best_speed_ * (1 - kBoundSlack)) continue;
        descend(Goal::rejected, l, 0, r.memory_lb, r.speed_ub, r.index);
      }
    } else {
      // Nothing fits: the smallest memory any valid layout needs, for the error below.
      std::vector<size_t> by_memory(records.size());
      std::iota(by_memory.begin(), by_memory.end(), size_t{0});
      std::stable_sort(by_memory.begin(), by_memory.end(),
                       [&](size_t a, size_t b) { return records[a].memory_lb < records[b].memory_lb; });
      for (size_t i : by_memory) {
        const CoreRecord& r = records[i];
        if (r.memory_lb > smallest_memory_ * (1 + kBoundSlack)) break;
        prepare_core(r);
        Layout l = core_layout(r.key);
        descend(Goal::smallest, l, 0, r.memory_lb, kInf, r.index);
      }
    }
  }

  for (size_t i = 0; i < req_.watch.size(); ++i) {
    // A watched layout that was not generated (a knob outside the search space) still gets a rank.
    WatchResult& w = report_.watched[i];
    if (!w.enumerated && watch_speed_[i] < 0) w.rank = 0;
    // With kWatchRankExact or more fitting layouts faster, the count is a lower bound only (the
    // search stopped predicting layouts slower than the kWatchRankExact fastest).
    if (w.rank > kWatchRankExact) {
      w.rank = kWatchRankExact + 1;
      w.rank_exact = false;
    }
  }
  if (smallest_memory_ == kInf) {
    // What tp must divide: the heads, and a Mamba mixer's heads and B/C groups (layout_rules.cpp).
    std::string tp_divides = fmt::format("the {} heads", model_.num_heads);
    if (model_.count_mixer(MixerKind::mamba) > 0) {
      tp_divides += fmt::format(", the {} Mamba heads and the {} Mamba groups", model_.mamba_heads, model_.mamba_groups);
    }
    // Knobs the user's job fixes narrow the space: name them, so "no valid layout" points at the job.
    std::string job;
    if (std::find(req_.fixed.begin(), req_.fixed.end(), "tp") != req_.fixed.end()) {
      job = fmt::format("; the job fixes tp {}", req_.base.tp);
    }
    throw_usage("no valid layout of {} on {} GPUs: tp*pp*cp*dp must equal the GPU count with tp dividing {} and a "
                "node's {} GPUs, ep dividing the {} experts, and dp dividing the global batch of {} rows{}",
                model_.name, gpus_, tp_divides, gpn_, model_.num_experts, w_.global_batch, job);
  }
  if (report_.fitting == 0 && smallest_host_ < kInf) {
    // Layouts fit in HBM, but their offloaded optimizer states do not fit in the host's memory.
    throw_no("no layout of {} fits {} x {}: host memory binds: layouts that fit in {:.1f} GiB of HBM need "
             "{:.0f} GiB per node for their offloaded optimizer states (the least the search found), {:.0f} GiB "
             "usable (try more nodes)",
             model_.name, gpus_, cluster_.gpu.name, report_.usable_gib, smallest_host_ / kGiB, host_bytes_ / kGiB);
  }
  if (report_.fitting == 0) {
    throw_no("no layout of {} fits {} x {}: HBM binds: the smallest needs {:.1f} GiB per GPU, {:.1f} GiB usable "
             "(try more GPUs or a GPU with more memory)",
             model_.name, gpus_, cluster_.gpu.name, smallest_memory_ / kGiB, report_.usable_gib);
  }
  report_.rank = req_.rank;
  std::vector<std::pair<Prediction, int64_t>> pool;
  for (const Scored& s : best_) {
    pool.emplace_back(predict(costs_, model_, s.layout, cluster_, w_, req_.calibration), s.same_speed);
  }
  if (req_.rank == Rank::p10) {
    // On one cluster the cost per token is price over speed, so both objectives rank by it alike.
    std::stable_sort(pool.begin(), pool.end(),
                     [](const auto& a, const auto& b) { return a.first.tokens_per_s_low > b.first.tokens_per_s_low; });
    if (pool.size() > shown_) pool.resize(shown_);
  }
  for (auto& [prediction, same] : pool) {
    report_.top.push_back(std::move(prediction));
    report_.top_same_speed.push_back(same);
  }
  std::erase_if(rejected_, [this](const RejectCandidate& x) { return !(x.speed > best_speed_); });
  std::sort(rejected_.begin(), rejected_.end(), closer);
  for (const RejectCandidate& c : rejected_) {
    if (report_.best_rejected.size() >= kRejectedShown) break;
    Rejected r;
    r.layout = c.layout;
    r.tokens_per_s_per_gpu = c.speed;
    r.overshoot = c.overshoot;
    if (c.hbm) {
      size_t dominant = 0;
      for (size_t i = 1; i < kMemoryParts; ++i) {
        if (c.parts[i] > c.parts[dominant]) dominant = i;
      }
      r.reason = fmt::format("memory {:.1f} GiB > {:.1f} GiB usable on stage {} ({} {:.1f} GiB)", c.worst / kGiB,
                             report_.usable_gib, c.stage, to_string(static_cast<MemoryPart>(dominant)),
                             c.parts[dominant] / kGiB);
    } else {
      r.reason = fmt::format("host memory {:.0f} GiB > {:.0f} GiB usable per node", c.host / kGiB, host_bytes_ / kGiB);
    }
    report_.best_rejected.push_back(std::move(r));
  }
  return report_;
}

}  // namespace

const char* to_string(Objective objective) { return objective == Objective::cost ? "cost" : "throughput"; }

const char* to_string(Rank rank) { return rank == Rank::p10 ? "p10" : "median"; }

Rank parse_rank(std::string_view name) {
  if (name == "median") return Rank::median;
  if (name == "p10") return Rank::p10;
  throw_usage("unknown rank '{}'; expected median or p10", name);
}

Objective parse_objective(std::string_view name) {
  if (name == "throughput") return Objective::throughput;
  if (name == "cost") return Objective::cost;
  throw_usage("unknown objective '{}'; expected throughput or cost", name);
}

PlanReport plan_layouts(const PlanRequest& request) {
  // A job runs on whole nodes (every node starts the same number of ranks; Slurm gives nodes
  // --exclusive), so a count past one node that is no multiple of the node's GPUs has no job, and
  // `ladle check` R2 rejects its recipe. Refused, rather than planned on more nodes than asked for.
  const int64_t node = request.cluster.gpus_per_node();
  const int64_t gpus = request.cluster.gpus;
  if (node > 0 && gpus > node && gpus % node != 0) {
    throw_usage("--gpus {}: a job runs on whole nodes and a {} node holds {} {} GPUs; give a multiple of {} ({} or {}) "
                "or at most {}",
                gpus, request.cluster.instance.name.empty() ? "cluster" : request.cluster.instance.name, node,
                request.cluster.gpu.name, node, gpus / node * node, (gpus / node + 1) * node, node);
  }
  return Search(request).run();
}

std::vector<SearchLevel> search_levels(const ModelSpec& model, const Layout& base,
                                       const std::vector<std::string>& fixed) {
  std::vector<SearchLevel> out;
  for (const Level& level : Space(model, base, fixed).levels()) {
    SearchLevel l;
    l.key = std::string(level.knob->key);
    for (const Option& option : level.options) {
      Layout scratch = base;
      apply_sets(scratch, option.sets);
      std::vector<std::pair<std::string, std::string>> words;
      for (const Assign& a : option.sets) words.emplace_back(a.knob->key, layout::knob_text(*a.knob, scratch));
      l.options.push_back(std::move(words));
      l.needs_a2a.push_back(option.a2a_overlap);
    }
    l.least_memory = level.least_memory == std::string::npos ? SearchLevel::npos : level.least_memory;
    l.fastest = level.fastest == std::string::npos ? SearchLevel::npos : level.fastest;
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace ladle::plan
