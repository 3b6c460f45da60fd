// plan_bench.cpp: how fast the planner evaluates layouts and searches whole spaces. Figures only.
// The baseline is one full prediction (memory + time + names) of the GLM-5.2 seed layout; the
// searches report layouts evaluated per second and their wall time, to be read as ratios to it.
#include <benchmark/benchmark.h>

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

void run_plan(benchmark::State& state, const char* model_name, const char* gpu, int64_t gpus) {
  plan::PlanRequest request;
  request.model = model::load_model(model_name);
  request.cluster = plan::make_cluster(gpu, gpus);
  request.calibration = plan::default_calibration();
  int64_t valid = 0;
  int64_t enumerated = 0;
  for (auto _ : state) {
    const plan::PlanReport report = plan::plan_layouts(request);
    valid += report.valid;
    enumerated += report.enumerated;
  }
  state.counters["enumerated"] = static_cast<double>(enumerated) / static_cast<double>(state.iterations());
  state.counters["valid_layouts_per_s"] = benchmark::Counter(static_cast<double>(valid), benchmark::Counter::kIsRate);
}

void BM_PlanGlm47Flash8H200(benchmark::State& state) { run_plan(state, "glm-4.7-flash", "h200", 8); }
BENCHMARK(BM_PlanGlm47Flash8H200)->Unit(benchmark::kMillisecond);

void BM_PlanGlm52On128H200(benchmark::State& state) { run_plan(state, "glm-5.2", "h200", 128); }
BENCHMARK(BM_PlanGlm52On128H200)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_PlanDeepSeekV3On1024H100(benchmark::State& state) { run_plan(state, "deepseek-v3", "h100", 1024); }
BENCHMARK(BM_PlanDeepSeekV3On1024H100)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
