#include "ladle/plan/search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/pipeline_layout.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/plan/model_costs.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/util/error.hpp"

namespace ladle::plan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr size_t kRejectedShown = 3;
constexpr size_t kRejectedKept = 32;

std::vector<int64_t> divisors(int64_t n, int64_t at_most) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n && d <= at_most; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

// Pipeline splits worth trying: even when the layers divide, else (and also) first/last stages a
// little lighter than the middle ones, which carry the embedding and the head.
std::vector<std::pair<int64_t, int64_t>> layer_splits(int64_t layers, int64_t pp) {
  std::vector<std::pair<int64_t, int64_t>> out;
  if (pp == 1) return {{0, 0}};
  if (layers % pp == 0) out.emplace_back(0, 0);
  const int64_t lo = layers / pp;
  for (int64_t mid : {lo, lo + 1}) {
    if (pp > 2 && mid < 1) continue;
    const int64_t rest = layers - mid * (pp - 2);
    for (int64_t first = std::max<int64_t>(1, mid - 3); first <= mid; ++first) {
      const int64_t last = rest - first;
      if (last < 1 || last > mid + 1 || last < mid - 3) continue;
      if (first == mid && last == mid) continue;  // the even split, covered above
      if (std::find(out.begin(), out.end(), std::make_pair(first, last)) == out.end()) {
        out.emplace_back(first, last);
      }
    }
  }
  return out;
}

struct Scored {
  Layout layout;
  double score = 0;  // higher is better
  double tokens_per_s = 0;
  double memory = 0;  // ties go to the layout that needs less memory
  int64_t same_speed = 0;  // other fitting layouts with this score that the list leaves out
  bool better_than(const Scored& other) const {
    return score > other.score || (score == other.score && memory < other.memory);
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

PlanReport plan_layouts(const PlanRequest& req) {
  const ModelSpec& model = req.model;
  const Cluster& cluster = req.cluster;
  const Workload& w = req.workload;
  const ModelCosts costs = model_costs(model, w.row_tokens);
  const int64_t gpus = cluster.gpus;
  const int64_t gpn = cluster.gpus_per_node();
  const layout::LayoutContext context{gpus, gpn, w.row_tokens, w.global_batch};
  if (gpus < 1) throw_usage("--gpus must be at least 1, got {}", gpus);

  PlanReport report;
  report.model = model.name;
  report.gpu = cluster.gpu.name;
  report.gpus = gpus;
  report.usable_gib = hbm_capacity_gib(cluster.gpu) * (1.0 - req.memory_margin);
  const double usable_bytes = report.usable_gib * kGiB;
  const double host_bytes = cluster.instance.host_memory_gib * req.calibration.host_memory_usable * kGiB;
  const double tokens_per_step = static_cast<double>(w.global_batch * w.row_tokens);
  const double price = cluster.instance.usd_per_gpu_hour();

  // Watched layouts: predicted first, so the loop can count the fitting layouts faster than each.
  std::vector<double> watch_speed(req.watch.size(), -1.0);
  for (size_t i = 0; i < req.watch.size(); ++i) {
    WatchResult result;
    result.layout = req.watch[i];
    if (auto violation = layout::find_layout_violation(req.watch[i], model, context)) {
      result.status = "invalid: " + *violation;
    } else {
      const Prediction p = predict(costs, model, req.watch[i], cluster, w, req.calibration);
      result.tokens_per_s_per_gpu = p.tokens_per_s_per_gpu;
      const bool fits = p.memory_gib * kGiB <= usable_bytes && p.host_memory_gib * kGiB <= host_bytes;
      result.status = fits ? "fits" : fmt::format("does not fit: {:.1f} GiB > {:.1f} GiB usable", p.memory_gib,
                                                  report.usable_gib);
      if (fits) watch_speed[i] = p.tokens_per_s_per_gpu;
      result.rank = 1;
    }
    report.watched.push_back(result);
  }

  std::vector<Scored> best;
  std::vector<Rejected> rejected;
  double best_speed = 0;
  double smallest_memory = std::numeric_limits<double>::infinity();
  std::string smallest_memory_layout;
  const bool moe = model.num_experts > 0;
  const std::vector<int64_t> expert_sizes = moe ? divisors(model.num_experts, gpus) : std::vector<int64_t>{1};
  std::vector<int64_t> stages;
  std::vector<std::array<double, kMemoryParts>> stage_memory;
  constexpr size_t kStates = static_cast<size_t>(MemoryPart::optimizer_states);
  constexpr double kOffloads[] = {0.0, 0.5, 1.0};
  // Ranking by the 10th percentile: the search keeps a wider pool by median (a layout's lower
  // bound never exceeds its median, and interval widths differ by tens of percent, not by
  // factors), then reranks the pool by the lower bound.
  const size_t shown = static_cast<size_t>(std::max<int64_t>(1, req.top));
  const size_t keep = req.rank == Rank::p10 ? std::max<size_t>(shown * 8, 64) : shown;
  // Host bytes per byte of GPU optimizer states moved off: FP32 master and moments plus an FP32
  // gradient copy, for every GPU of a node (see estimate_memory).
  const double host_factor = (12.0 + 4.0) / 12.0 * static_cast<double>(gpn);

  // The fixed part: knobs the user's own arguments set keep their value.
  const auto is_fixed = [&req](std::string_view key) {
    return std::find(req.fixed.begin(), req.fixed.end(), key) != req.fixed.end();
  };
  const auto only = [](int64_t v) { return std::vector<int64_t>{v}; };
  std::vector<int64_t> tps;
  for (int64_t tp = 1; tp <= gpn; tp *= 2) tps.push_back(tp);
  if (is_fixed("tp")) tps = only(req.base.tp);
  const bool split_fixed = is_fixed("first") || is_fixed("last") || is_fixed("pipeline_layout") ||
                           is_fixed("account_embedding") || is_fixed("account_loss");
  const int64_t layout_stages = req.base.pipeline_layout.empty()
                                    ? 0
                                    : static_cast<int64_t>(layout::parse_pipeline_layout(req.base.pipeline_layout).size());
  std::vector<RecomputeGranularity> recomputes = {RecomputeGranularity::none, RecomputeGranularity::selective,
                                                  RecomputeGranularity::full};
  if (is_fixed("recompute")) recomputes = {req.base.recompute};
  std::vector<MoeDispatcher> dispatchers = {MoeDispatcher::alltoall, MoeDispatcher::allgather, MoeDispatcher::flex};
  if (is_fixed("dispatcher")) dispatchers = {req.base.dispatcher};
  std::vector<double> offloads(std::begin(kOffloads), std::end(kOffloads));
  if (is_fixed("offload")) offloads = {req.base.offload};

  for (int64_t tp : tps) {
    if (gpn % tp != 0 || gpus % tp != 0) continue;
    std::vector<int64_t> pps = divisors(gpus / tp, model.num_layers);
    if (is_fixed("pp")) pps = (gpus / tp) % req.base.pp == 0 ? only(req.base.pp) : std::vector<int64_t>{};
    for (int64_t pp : pps) {
      std::vector<int64_t> cps = divisors(gpus / (tp * pp), 16);
      if (is_fixed("cp")) cps = (gpus / (tp * pp)) % req.base.cp == 0 ? only(req.base.cp) : std::vector<int64_t>{};
      for (int64_t cp : cps) {
        const int64_t dp = gpus / (tp * pp * cp);
        std::vector<int64_t> eps = expert_sizes;
        if (is_fixed("ep")) eps = only(req.base.ep);
        for (int64_t ep : eps) {
          std::vector<int64_t> etps;
          for (int64_t etp = 1; etp <= (moe ? gpn : 1); etp *= 2) etps.push_back(etp);
          if (is_fixed("etp")) etps = only(req.base.etp);
          for (int64_t etp : etps) {
            if ((tp * cp * dp) % (ep * etp) != 0) continue;
            std::vector<std::pair<int64_t, int64_t>> splits = layer_splits(model.num_layers, pp);
            if (split_fixed) splits = {{req.base.first, req.base.last}};
            std::vector<int64_t> vpps;
            for (int64_t vpp = 1; vpp <= (pp > 1 ? 4 : 1); vpp *= 2) vpps.push_back(vpp);
            if (is_fixed("vpp")) vpps = only(req.base.vpp);
            if (layout_stages > 0) vpps = layout_stages % pp == 0 ? only(layout_stages / pp) : std::vector<int64_t>{};
            for (auto [first, last] : splits) {
              for (int64_t vpp : vpps) {
                Layout base = req.base;
                base.tp = tp;
                base.pp = pp;
                base.cp = cp;
                base.ep = ep;
                base.etp = etp;
                base.dp = dp;
                if (!is_fixed("sp")) base.sp = tp > 1;
                base.vpp = vpp;
                base.first = first;
                base.last = last;
                // The precision-aware optimizer (which offload needs) runs with a distributed optimizer.
                if (!is_fixed("precision_aware")) base.precision_aware = base.dist_opt || base.fsdp != Fsdp::none;
                stages = layout::stage_layers(base, model.num_layers);
                std::vector<int64_t> rows_list = {1, 2, 4, 8};
                if (is_fixed("rows_per_mb")) rows_list = only(req.base.rows_per_mb);
                if (is_fixed("max_tokens") && !is_fixed("rows_per_mb")) {
                  rows_list = only(std::max<int64_t>(1, req.base.max_tokens * cp / w.row_tokens));
                }
                for (int64_t rows : rows_list) {
                  base.rows_per_mb = rows;
                  base.max_tokens = rows * w.row_tokens / cp;
                  const int64_t microbatches = layout::microbatches_per_step(base, context);
                  for (RecomputeGranularity recompute : recomputes) {
                    for (MoeDispatcher dispatcher : dispatchers) {
                      if (!is_fixed("dispatcher") && dispatcher != MoeDispatcher::alltoall && (!moe || ep * etp == 1)) {
                        continue;
                      }
                      Layout l = base;
                      l.recompute = recompute;
                      l.dispatcher = dispatcher;
                      report.enumerated += static_cast<int64_t>(offloads.size());
                      // The offload fraction changes neither validity (the precision-aware optimizer
                      // is on) nor anything but the optimizer's memory and time: evaluate once at 0
                      // and re-price the optimizer for each fraction.
                      {
                        Layout check = l;
                        check.offload = offloads.front();
                        check.overlap = is_fixed("overlap") ? req.base.overlap : check.offload > 0;
                        if (layout::find_layout_violation(check, model, context)) continue;
                      }
                      l.offload = 0;
                      l.overlap = false;
                      estimate_memory(costs, l, stages, microbatches, cluster, req.calibration, &stage_memory);
                      const TimeEstimate time0 = estimate_time(costs, l, stages, microbatches, cluster, w, req.calibration);
                      double largest_states = 0;
                      for (const auto& stage : stage_memory) {
                        largest_states = std::max(largest_states, stage[kStates]);
                      }
                      const bool overlap_given = is_fixed("overlap");
                      for (double offload : offloads) {
                        l.offload = offload;
                        l.overlap = overlap_given ? req.base.overlap : offload > 0;
                        if (offload > 0 && !l.precision_aware) continue;
                        ++report.valid;
                        for (size_t i = 0; i < req.watch.size(); ++i) {
                          if (!report.watched[i].enumerated && l == req.watch[i]) report.watched[i].enumerated = true;
                        }
                        double worst = 0;
                        size_t worst_stage = 0;
                        for (size_t st = 0; st < stage_memory.size(); ++st) {
                          double total = -offload * stage_memory[st][kStates];
                          for (double v : stage_memory[st]) total += v;
                          if (total > worst) {
                            worst = total;
                            worst_stage = st;
                          }
                        }
                        const double host = offload * largest_states * host_factor;
                        TimeEstimate time = time0;
                        apply_offload(time, offload, l.overlap, l.moments, cluster, req.calibration);
                        const double speed = tokens_per_step / time.step_s / static_cast<double>(gpus);
                        const bool fits_hbm = worst <= usable_bytes;
                        const bool fits_host = host <= host_bytes;
                        if (worst < smallest_memory) smallest_memory = worst;
                        if (!fits_hbm || !fits_host) {
                          // Keep the rejected layouts that beat the best fitting one so far and come
                          // closest to fitting: they name the constraint that binds.
                          const double overshoot = !fits_hbm ? worst / usable_bytes : host / host_bytes;
                          if (speed > best_speed &&
                              (rejected.size() < kRejectedKept || overshoot < rejected.back().overshoot)) {
                            Rejected r;
                            r.layout = l;
                            r.tokens_per_s_per_gpu = speed;
                            r.overshoot = overshoot;
                            if (!fits_hbm) {
                              std::array<double, kMemoryParts> parts = stage_memory[worst_stage];
                              parts[kStates] *= 1.0 - offload;
                              size_t dominant = 0;
                              for (size_t i = 1; i < kMemoryParts; ++i) {
                                if (parts[i] > parts[dominant]) dominant = i;
                              }
                              r.reason = fmt::format("memory {:.1f} GiB > {:.1f} GiB usable on stage {} ({} {:.1f} GiB)",
                                                     worst / kGiB, report.usable_gib, worst_stage,
                                                     to_string(static_cast<MemoryPart>(dominant)), parts[dominant] / kGiB);
                            } else {
                              r.reason = fmt::format("host memory {:.0f} GiB > {:.0f} GiB usable per node", host / kGiB,
                                                     host_bytes / kGiB);
                            }
                            auto at = std::find_if(rejected.begin(), rejected.end(),
                                                   [&](const Rejected& x) { return overshoot < x.overshoot; });
                            rejected.insert(at, std::move(r));
                            if (rejected.size() > kRejectedKept) rejected.pop_back();
                          }
                          continue;
                        }
                        ++report.fitting;
                        best_speed = std::max(best_speed, speed);
                        for (size_t i = 0; i < watch_speed.size(); ++i) {
                          if (watch_speed[i] >= 0 && speed > watch_speed[i]) ++report.watched[i].rank;
                        }
                        // Cost per token is price / speed: on one cluster both objectives rank alike.
                        const double score = req.objective == Objective::cost ? -price / speed : speed;
                        keep_best(best, Scored{l, score, speed, worst}, keep);
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
  for (size_t i = 0; i < req.watch.size(); ++i) {
    // A watched layout that was not generated (a knob outside the search space) still gets a rank.
    if (!report.watched[i].enumerated && watch_speed[i] < 0) report.watched[i].rank = 0;
  }
  if (report.valid == 0) {
    throw_usage("no valid layout of {} on {} GPUs: tp*pp*cp*dp must equal the GPU count with tp dividing the "
                "{} heads and a node's {} GPUs, ep dividing the {} experts, and dp dividing the global batch of {} rows",
                model.name, gpus, model.num_heads, gpn, model.num_experts, w.global_batch);
  }
  if (report.fitting == 0) {
    throw_no("no layout of {} fits {} x {}: the smallest needs {:.1f} GiB per GPU, {:.1f} GiB usable "
                "(try more GPUs or a GPU with more memory)",
                model.name, gpus, cluster.gpu.name, smallest_memory / kGiB, report.usable_gib);
  }
  report.rank = req.rank;
  std::vector<std::pair<Prediction, int64_t>> pool;
  for (const Scored& s : best) pool.emplace_back(predict(costs, model, s.layout, cluster, w, req.calibration), s.same_speed);
  if (req.rank == Rank::p10) {
    // On one cluster the cost per token is price over speed, so both objectives rank by it alike.
    std::stable_sort(pool.begin(), pool.end(), [](const auto& a, const auto& b) {
      return a.first.tokens_per_s_low > b.first.tokens_per_s_low;
    });
    if (pool.size() > shown) pool.resize(shown);
  }
  for (auto& [prediction, same] : pool) {
    report.top.push_back(std::move(prediction));
    report.top_same_speed.push_back(same);
  }
  for (Rejected& r : rejected) {
    if (r.tokens_per_s_per_gpu > best_speed && report.best_rejected.size() < kRejectedShown) {
      report.best_rejected.push_back(std::move(r));
    }
  }
  return report;
}

}  // namespace ladle::plan
