// site_bench: how long `ladle site` takes to render a catalog, against copying the same bytes (the
// baseline in the same run), so the figure reads as a ratio that does not depend on the machine.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include "ladle/site/site.hpp"

namespace {

ladle::site::SiteRecipe bench_recipe(int i) {
  ladle::site::SiteRecipe s;
  ladle::Recipe& r = s.recipe;
  r.model = "Model-" + std::to_string(i % 7);
  r.gpu = {"H200", 141, 8 * (1 + i % 4), 8, "AWS p5en.48xlarge"};
  r.author = {"Bench", "https://example.org/bench"};
  r.status = "verified";
  r.layout.label = "TP" + std::to_string(1 + i % 8) + " EP8";
  r.layout.summary = "TP, PP, EP and a long summary of the layout " + std::string(200, 'x');
  ladle::RecipeResult res;
  res.tokens_per_s_per_gpu = 1000 + 37.5 * i;
  res.usd_per_million_tokens = 0.3 + 0.01 * i;
  res.mfu = 0.1;
  res.measured = "2026-10-15";
  res.steps_per_run = 20;
  res.window = {5, 19};
  r.result = res;
  r.run = std::string(3000, 'r') + "\n";
  r.notes = "- a note with `code` and https://example.org/x\n";
  s.yaml = std::string(12000, 'y');
  s.source_path = "recipes/m/h200/r" + std::to_string(i) + ".yaml";
  for (int step = 1; step <= 20; ++step) {
    s.reference_loss.push_back({static_cast<double>(step), 2.0 - 0.04 * step});
    s.candidate_loss.push_back({static_cast<double>(step), 2.01 - 0.04 * step});
    s.step_time_s.push_back({static_cast<double>(step), 21.0 + (step == 1 ? 10 : 0)});
  }
  return s;
}

ladle::site::SiteCatalog bench_catalog(int n) {
  std::vector<ladle::site::SiteRecipe> recipes;
  for (int i = 0; i < n; ++i) recipes.push_back(bench_recipe(i));
  return ladle::site::make_site_catalog(std::move(recipes));
}

size_t site_bytes(const ladle::site::SiteCatalog& catalog) {
  size_t bytes = 0;
  for (const auto& f : ladle::site::build_site(catalog)) bytes += f.content.size();
  return bytes;
}

// Baseline: copying as many bytes as the site holds.
void BM_CopySiteBytes(benchmark::State& state) {
  const size_t bytes = site_bytes(bench_catalog(static_cast<int>(state.range(0))));
  const std::string source(bytes, 'a');
  std::string target(bytes, 'b');
  for (auto _ : state) {
    std::memcpy(target.data(), source.data(), bytes);
    benchmark::DoNotOptimize(target.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

void BM_BuildSite(benchmark::State& state) {
  const ladle::site::SiteCatalog catalog = bench_catalog(static_cast<int>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    const auto files = ladle::site::build_site(catalog);
    bytes = 0;
    for (const auto& f : files) bytes += f.content.size();
    benchmark::DoNotOptimize(bytes);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

}  // namespace

BENCHMARK(BM_CopySiteBytes)->Arg(3)->Arg(100);
BENCHMARK(BM_BuildSite)->Arg(3)->Arg(100);
BENCHMARK_MAIN();
