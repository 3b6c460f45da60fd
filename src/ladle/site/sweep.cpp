#include "ladle/site/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "ladle/layout/layout_spec.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/search.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/parallel.hpp"
#include "ladle/util/text.hpp"

namespace ladle::site {
namespace {

constexpr int64_t kLargestDefaultCount = 512;

SweepCount search_count(const plan::Measurement& run, int64_t gpus) {
  SweepCount out;
  out.gpus = gpus;
  // The recipe's scenario (model, cluster, workload, stack) at `gpus`, under the embedded calibration.
  plan::PlanRequest request;
  static_cast<plan::Scenario&>(request) = run;
  request.cluster.gpus = gpus;
  request.calibration = plan::default_calibration();
  // plan's own rule: a layout counts as fitting at the default --fit-confidence.
  request.memory_margin = plan::plan_memory_margin(std::nullopt, std::nullopt, request.calibration);
  request.top = 1;
  try {
    const plan::PlanReport report = plan::plan_layouts(request);
    const Prediction& best = report.top.front();
    out.fits = true;
    out.layout = layout::layout_label(best.layout);
    out.tokens_per_s_per_gpu = best.tokens_per_s_per_gpu;
    out.tokens_per_s_low = best.tokens_per_s_low;
    out.tokens_per_s_high = best.tokens_per_s_high;
    out.usd_per_million_tokens = best.usd_per_million_tokens;
    out.memory_gib = best.memory_gib;
    out.capacity_gib = report.usable_gib;
  } catch (const Error& e) {
    // The planner's one line without its "ladle: error: " lead.
    out.reason = e.what();
    if (const size_t at = out.reason.find("error: "); at != std::string::npos) out.reason.erase(0, at + 7);
  } catch (const std::exception& e) {  // out of memory on a huge count: that count has no answer
    out.reason = e.what();
  }
  return out;
}

// The frontier of plan::mark_frontier: no other count has more total tokens/s at a lower $ per 1M.
void mark_frontier(std::vector<SweepCount>& counts) {
  for (SweepCount& a : counts) {
    if (!a.fits) continue;
    a.frontier = std::none_of(counts.begin(), counts.end(), [&a](const SweepCount& b) {
      return b.fits && &b != &a &&
             b.tokens_per_s_per_gpu * static_cast<double>(b.gpus) > a.tokens_per_s_per_gpu * static_cast<double>(a.gpus) &&
             b.usd_per_million_tokens < a.usd_per_million_tokens;
    });
  }
}

}  // namespace

std::vector<int64_t> default_sweep_counts() {
  std::vector<int64_t> out;
  for (int64_t n = 1; n <= kLargestDefaultCount; n *= 2) out.push_back(n);
  return out;
}

double hours_to_tokens(double tokens, double tokens_per_s_per_gpu, int64_t gpus) {
  if (tokens_per_s_per_gpu <= 0 || gpus <= 0) return 0;
  return tokens / (tokens_per_s_per_gpu * static_cast<double>(gpus)) / 3600.0;
}

std::vector<ModelSweep> sweep_models(const std::vector<recipe::LoadedRecipe>& loaded,
                                     const std::vector<int64_t>& counts) {
  // One basis recipe per (model, GPU type): the first in catalog order the planner can read.
  struct Job {
    ModelSweep sweep;
    plan::Measurement run;
  };
  std::vector<Job> jobs;
  std::set<std::pair<std::string, std::string>> seen;
  for (const recipe::LoadedRecipe& item : loaded) {
    const std::pair key{item.recipe.model, item.recipe.gpu.type};
    if (seen.contains(key)) {
      for (Job& job : jobs) {
        if (job.sweep.model == key.first && job.sweep.gpu == key.second) {
          job.sweep.counts.push_back({.gpus = item.recipe.gpu.count});
        }
      }
      continue;
    }
    plan::Measurement run;
    try {
      run = plan::run_from_recipe(item);
    } catch (const Error&) {
      continue;  // not a pair the planner can price: the page shows the recipes alone
    }
    seen.insert(key);
    Job job{ModelSweep{key.first, key.second, run.cluster.instance.name,
                       fmt::format("rows of {} tokens, global batch {}, {}", util::format_grouped(run.workload.row_tokens, 0),
                                   run.workload.global_batch, plan::to_string(run.workload.precision)),
                       item.path, {}},
            std::move(run)};
    for (int64_t n : counts) job.sweep.counts.push_back({.gpus = n});
    job.sweep.counts.push_back({.gpus = item.recipe.gpu.count});
    jobs.push_back(std::move(job));
  }
  // Unique counts per sweep, then every (sweep, count) searched on a pool of threads.
  std::vector<std::pair<size_t, size_t>> tasks;
  for (size_t j = 0; j < jobs.size(); ++j) {
    auto& c = jobs[j].sweep.counts;
    std::sort(c.begin(), c.end(), [](const SweepCount& a, const SweepCount& b) { return a.gpus < b.gpus; });
    c.erase(std::unique(c.begin(), c.end(), [](const SweepCount& a, const SweepCount& b) { return a.gpus == b.gpus; }),
            c.end());
    for (size_t k = 0; k < c.size(); ++k) tasks.emplace_back(j, k);
  }
  util::parallel_for(tasks.size(), util::default_threads(tasks.size()), [&](int, size_t t) {
    auto [j, k] = tasks[t];
    jobs[j].sweep.counts[k] = search_count(jobs[j].run, jobs[j].sweep.counts[k].gpus);
  });
  std::vector<ModelSweep> out;
  for (Job& job : jobs) {
    mark_frontier(job.sweep.counts);
    out.push_back(std::move(job.sweep));
  }
  return out;
}

}  // namespace ladle::site
