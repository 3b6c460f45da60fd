// plan_bench.cpp: how fast the planner evaluates layouts and searches whole spaces. Figures only.
// The baseline is one full prediction (memory + time + names) of the GLM-5.2 seed layout. The
// searches report the layouts of the space per second, the layouts predicted one by one per
// second, and their wall time; the brute-force pair runs the same smaller space both ways in the
// same run, so their ratio is the pruning's speed-up (BM_SmallerSpacePrunedAgainstBruteForce
// prints it as `speedup`, CPU time against CPU time).
#include <benchmark/benchmark.h>

#include <ctime>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/search.hpp"

namespace {

using namespace ladle;  // NOLINT: benchmark file, function-local use only

void BM_PredictSeedLayout(benchmark::State& state) {
  const ModelSpec spec = model::load_model("glm-5.2");
  const plan::ModelCosts costs = plan::model_costs(spec, 8192);
  const plan::Cluster cluster = plan::make_cluster("h200", 128);
  const Layout l = layout::resolve_layout(
      layout::parse_layout_spec("tp=4,pp=4,ep=32,sp=on,first=18,last=20,recompute=selective,offload=1,"
                                "overlap=on,precision_aware=on"),
      layout::LayoutContext{128, 8, 8192, 128});
  for (auto _ : state) {
    benchmark::DoNotOptimize(plan::predict(costs, spec, l, cluster, plan::Workload{}, plan::default_calibration()));
  }
  state.counters["layouts_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PredictSeedLayout);

void BM_EstimateSeedLayout(benchmark::State& state) {
  const ModelSpec spec = model::load_model("glm-5.2");
  const plan::ModelCosts costs = plan::model_costs(spec, 8192);
  const plan::Cluster cluster = plan::make_cluster("h200", 128);
  const Layout l = layout::resolve_layout(
      layout::parse_layout_spec("tp=4,pp=4,ep=32,sp=on,first=18,last=20,recompute=selective,offload=1,"
                                "overlap=on,precision_aware=on"),
      layout::LayoutContext{128, 8, 8192, 128});
  const std::vector<int64_t> stages = layout::stage_layers(l, spec.num_layers);
  for (auto _ : state) {
    benchmark::DoNotOptimize(plan::estimate_memory(costs, l, stages, 16, cluster, plan::default_calibration()));
    benchmark::DoNotOptimize(
        plan::estimate_time(costs, l, stages, 16, cluster, plan::Workload{}, plan::default_calibration()));
  }
  state.counters["layouts_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EstimateSeedLayout);

plan::PlanRequest plan_request(const char* model_name, const char* gpu, int64_t gpus) {
  plan::PlanRequest request;
  request.model = model::load_model(model_name);
  request.cluster = plan::make_cluster(gpu, gpus);
  request.calibration = plan::default_calibration();
  return request;
}

void run_plan(benchmark::State& state, const plan::PlanRequest& request) {
  int64_t enumerated = 0;
  int64_t evaluated = 0;
  for (auto _ : state) {
    const plan::PlanReport report = plan::plan_layouts(request);
    enumerated += report.enumerated;
    evaluated += report.evaluated;
  }
  const double runs = static_cast<double>(state.iterations());
  state.counters["space"] = static_cast<double>(enumerated) / runs;
  state.counters["predicted"] = static_cast<double>(evaluated) / runs;
  state.counters["space_per_s"] = benchmark::Counter(static_cast<double>(enumerated), benchmark::Counter::kIsRate);
  state.counters["predicted_per_s"] = benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
}

void BM_PlanGlm47Flash8H200(benchmark::State& state) { run_plan(state, plan_request("glm-4.7-flash", "h200", 8)); }
BENCHMARK(BM_PlanGlm47Flash8H200)->Unit(benchmark::kMillisecond);

void BM_PlanGlm52On128H200(benchmark::State& state) { run_plan(state, plan_request("glm-5.2", "h200", 128)); }
BENCHMARK(BM_PlanGlm52On128H200)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_PlanDeepSeekV3On1024H100(benchmark::State& state) {
  run_plan(state, plan_request("deepseek-v3", "h100", 1024));
}
BENCHMARK(BM_PlanDeepSeekV3On1024H100)->Unit(benchmark::kMillisecond)->Iterations(3);

// The pruned search against brute force on one space (GLM-4.7-Flash on 8 H200 with TP and the rows
// per microbatch fixed: brute force on the full spaces above takes minutes). Read the ratio of the
// two wall times.
plan::PlanRequest smaller_space(bool brute_force) {
  plan::PlanRequest request = plan_request("glm-4.7-flash", "h200", 8);
  request.top = 20;
  request.base = layout::parse_layout_spec("tp=1,rows_per_mb=1");
  request.fixed = {"tp", "rows_per_mb"};
  request.brute_force = brute_force;
  return request;
}

void BM_SmallerSpacePruned(benchmark::State& state) { run_plan(state, smaller_space(false)); }
BENCHMARK(BM_SmallerSpacePruned)->Unit(benchmark::kMillisecond);

// Both searches in one run: brute force once, then the pruned search as the timed loop; the
// counters give the layouts predicted by each and the ratio of their CPU times.
void BM_SmallerSpacePrunedAgainstBruteForce(benchmark::State& state) {
  const plan::PlanRequest brute = smaller_space(true);
  const auto cpu_seconds = [] { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; };
  const double start = cpu_seconds();
  const plan::PlanReport brute_report = plan::plan_layouts(brute);
  const double brute_s = cpu_seconds() - start;
  const plan::PlanRequest pruned = smaller_space(false);
  int64_t evaluated = 0;
  const double loop_start = cpu_seconds();
  for (auto _ : state) evaluated += plan::plan_layouts(pruned).evaluated;
  const double pruned_s = (cpu_seconds() - loop_start) / static_cast<double>(state.iterations());
  state.counters["brute_predicted"] = static_cast<double>(brute_report.evaluated);
  state.counters["pruned_predicted"] = static_cast<double>(evaluated) / static_cast<double>(state.iterations());
  state.counters["brute_ms"] = brute_s * 1e3;
  state.counters["speedup"] = brute_s / pruned_s;
}
BENCHMARK(BM_SmallerSpacePrunedAgainstBruteForce)->Unit(benchmark::kMillisecond);

// A --compare layout far down the ranking: its rank is exact up to plan::kWatchRankExact, so the
// search predicts no more than for that many layouts above it.
plan::PlanRequest with_slow_watch(const char* model_name, const char* gpu, int64_t gpus, const char* spec) {
  plan::PlanRequest request = plan_request(model_name, gpu, gpus);
  request.watch.push_back(layout::resolve_layout(layout::parse_layout_spec(spec),
                                                 layout::LayoutContext{gpus, 8, 8192, 128}));
  return request;
}

void BM_PlanGlm52On128H200CompareSlow(benchmark::State& state) {
  run_plan(state, with_slow_watch("glm-5.2", "h200", 128, "tp=4,sp=on,pp=4,first=19,last=19,ep=32,recompute=full"));
}
BENCHMARK(BM_PlanGlm52On128H200CompareSlow)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_PlanDeepSeekV3On1024H100CompareSlow(benchmark::State& state) {
  run_plan(state, with_slow_watch("deepseek-v3", "h100", 1024, "tp=1,pp=8,first=6,last=7,ep=64,recompute=full,"
                                                               "cuda_graph=none,grad_reduce=fp32"));
}
BENCHMARK(BM_PlanDeepSeekV3On1024H100CompareSlow)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_SmallerSpaceBruteForce(benchmark::State& state) { run_plan(state, smaller_space(true)); }
BENCHMARK(BM_SmallerSpaceBruteForce)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
