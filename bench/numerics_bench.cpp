// numerics_bench.cpp: elements per second of each optimizer path over one slice, as a ratio to the
// FP64 reference measured in the same run; and the whole component test on a small layer with 1 and
// 2 threads, the 2-thread run as a speed-up over the 1-thread one.
#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

#include "ladle/numerics/adam_check.hpp"
#include "ladle/numerics/adam_paths.hpp"
#include "ladle/numerics/low_precision.hpp"

namespace {

using ladle::numerics::AdamHyper;
constexpr size_t kElements = 1 << 16;

// Seconds per element of the reference, filled by the first benchmark (registered first, so run
// first) and used as the baseline of the rest.
double g_reference_s_per_element = 0.0;
double g_one_thread_s = 0.0;

struct Data {
  std::vector<float> grad, master, m, v;
  std::vector<double> p64, m64, v64;
  std::vector<uint16_t> bf16;
  std::vector<int16_t> remainder;
  Data() : grad(kElements), master(kElements), m(kElements, 0.0f), v(kElements, 0.0f),
           p64(kElements), m64(kElements, 0.0), v64(kElements, 0.0), bf16(kElements),
           remainder(kElements, 0) {
    for (size_t i = 0; i < kElements; ++i) {
      grad[i] = 1e-4f * static_cast<float>((i * 2654435761u) % 2001) / 1000.0f - 1e-4f;
      bf16[i] = ladle::numerics::bf16_from_float_rne(0.02f * static_cast<float>(i % 97) / 97.0f);
      master[i] = ladle::numerics::float_from_bf16(bf16[i]);
      p64[i] = master[i];
    }
  }
};

void report(benchmark::State& state, double seconds_per_element) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kElements));
  if (g_reference_s_per_element > 0.0 && seconds_per_element > 0.0) {
    state.counters["speed_vs_fp64"] = g_reference_s_per_element / seconds_per_element;
  }
}

template <typename Fn>
double time_loop(benchmark::State& state, Fn&& fn) {
  double total = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return state.iterations() ? total / static_cast<double>(state.iterations()) / kElements : 0.0;
}

void BM_Fp64Reference(benchmark::State& state) {
  Data d;
  const AdamHyper h;
  const double spe = time_loop(state, [&] {
    ladle::numerics::fp64_adamw_step(h, 2, d.grad, d.p64, d.m64, d.v64);
    benchmark::DoNotOptimize(d.p64.data());
  });
  g_reference_s_per_element = spe;
  report(state, spe);
}

void BM_TeFusedAdamFp32(benchmark::State& state) {
  Data d;
  const auto s = ladle::numerics::te_adam_scalars(AdamHyper{}, 2);
  const double spe = time_loop(state, [&] {
    ladle::numerics::te_adam_step(s, d.grad, d.master, d.m, d.v);
    benchmark::DoNotOptimize(d.master.data());
  });
  report(state, spe);
}

void BM_TeFusedAdamRemainder(benchmark::State& state) {
  Data d;
  const auto s = ladle::numerics::te_adam_scalars(AdamHyper{}, 2);
  const double spe = time_loop(state, [&] {
    ladle::numerics::te_adam_step_remainder(s, d.grad, d.bf16, d.remainder, d.m, d.v);
    benchmark::DoNotOptimize(d.bf16.data());
  });
  report(state, spe);
}

void BM_TorchCpuAdamW(benchmark::State& state) {
  Data d;
  const auto s = ladle::numerics::torch_adamw_scalars(AdamHyper{}, 2);
  const double spe = time_loop(state, [&] {
    ladle::numerics::torch_adamw_step(s, d.grad, d.master, d.m, d.v);
    benchmark::DoNotOptimize(d.master.data());
  });
  report(state, spe);
}

void BM_CopyToBf16Rne(benchmark::State& state) {
  Data d;
  const double spe = time_loop(state, [&] {
    ladle::numerics::copy_to_bf16_rne(d.master, d.bf16);
    benchmark::DoNotOptimize(d.bf16.data());
  });
  report(state, spe);
}

// The whole component test (every path, three steps, no self-test) on a small layer.
void BM_ComponentTest(benchmark::State& state) {
  ladle::numerics::AdamCheckOptions o;
  o.shape = ladle::numerics::parse_layer_shape("hidden=512,experts=16,ffn=256,shared_ffn=256,ep=4");
  o.self_test = false;
  o.threads = static_cast<int>(state.range(0));
  double total = 0.0;
  int64_t elements = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const auto r = ladle::numerics::run_adam_check(o);
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    elements = r.elements;
    benchmark::DoNotOptimize(r.passed);
  }
  const double per_run = state.iterations() ? total / static_cast<double>(state.iterations()) : 0.0;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * elements);
  if (o.threads == 1) g_one_thread_s = per_run;
  if (g_one_thread_s > 0.0 && per_run > 0.0) state.counters["speedup_vs_1_thread"] = g_one_thread_s / per_run;
}

}  // namespace

BENCHMARK(BM_Fp64Reference);
BENCHMARK(BM_TeFusedAdamFp32);
BENCHMARK(BM_TeFusedAdamRemainder);
BENCHMARK(BM_TorchCpuAdamW);
BENCHMARK(BM_CopyToBf16Rne);
BENCHMARK(BM_ComponentTest)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
