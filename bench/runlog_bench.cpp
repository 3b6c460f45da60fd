// runlog_bench: reading a long training log into its step series (format detection, noise removal,
// parsing), against splitting the same bytes into lines (the baseline in the same run), so the
// figure reads as a ratio that does not depend on the machine. One bench per format, each log
// about 20 MB: a fixture's records repeated with increasing step numbers.
//   ./build/runlog_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>
#include <string>

#include "ladle/runlog/run_log.hpp"
#include "ladle/util/file_io.hpp"

namespace {

constexpr size_t kTargetBytes = 20u << 20;

std::string source(const std::string& relative) {
  return std::filesystem::path(__FILE__).parent_path().parent_path().string() + "/" + relative;
}

// A fixture repeated until it holds kTargetBytes, each copy's records renumbered by `rewrite`
// (given the record's match and the copy's step offset) so every record is a new step.
template <class Rewrite>
std::string repeated(const std::string& fixture, const std::regex& record, Rewrite rewrite) {
  const std::string one = ladle::util::read_file(source(fixture));
  std::string out;
  for (int copy = 0; out.size() < kTargetBytes; ++copy) {
    size_t last = 0;
    for (auto it = std::sregex_iterator(one.begin(), one.end(), record); it != std::sregex_iterator(); ++it) {
      out.append(one, last, static_cast<size_t>(it->position()) - last);
      out += rewrite(*it, copy * 20);
      last = static_cast<size_t>(it->position() + it->length());
    }
    out.append(one, last, std::string::npos);
  }
  return out;
}

std::string long_miles_log() {
  return repeated("tests/data/runlog/synthetic/miles_glm47flash_seed.log", std::regex(R"((step|perf) (\d+): \{)"),
                  [](const std::smatch& m, int offset) {
                    return m[1].str() + " " + std::to_string(std::stoi(m[2].str()) + offset) + ": {";
                  });
}

std::string long_megatron_log() {
  return repeated("tests/data/runlog/synthetic/megatron_noise.log", std::regex(R"(iteration +(\d+)/ +(\d+) \|)"),
                  [](const std::smatch& m, int offset) {
                    return "iteration " + std::to_string(std::stoi(m[1].str()) + offset) + "/ 10000000 |";
                  });
}

double g_baseline_bytes_per_s = 0;

// Bytes per second of wall time over the benchmark's iterations.
class Rate {
 public:
  void start() { begin_ = std::chrono::steady_clock::now(); }
  void stop(size_t bytes) {
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count();
    bytes_ += static_cast<double>(bytes);
  }
  double bytes_per_s() const { return bytes_ / std::max(seconds_, 1e-12); }

 private:
  std::chrono::steady_clock::time_point begin_;
  double seconds_ = 0;
  double bytes_ = 0;
};

void BM_SplitLines(benchmark::State& state) {
  const std::string log = long_miles_log();
  size_t lines = 0;
  Rate rate;
  for (auto _ : state) {
    rate.start();
    size_t n = 0;
    for (size_t at = log.find('\n'); at != std::string::npos; at = log.find('\n', at + 1)) ++n;
    lines = n;
    benchmark::DoNotOptimize(lines);
    rate.stop(log.size());
  }
  g_baseline_bytes_per_s = rate.bytes_per_s();
  state.counters["lines"] = static_cast<double>(lines);
  state.counters["MB_per_s"] = rate.bytes_per_s() / 1e6;
}

void read_bench(benchmark::State& state, const std::string& log) {
  size_t records = 0;
  Rate rate;
  for (auto _ : state) {
    rate.start();
    const ladle::runlog::RunLog run = ladle::runlog::read_log(log, "bench.log");
    records = run.steps.size();
    benchmark::DoNotOptimize(records);
    rate.stop(log.size());
  }
  state.counters["records"] = static_cast<double>(records);
  state.counters["MB_per_s"] = rate.bytes_per_s() / 1e6;
  // How many times longer than only splitting the same bytes into lines (BM_SplitLines, run first).
  if (g_baseline_bytes_per_s > 0) state.counters["x_line_split_time"] = g_baseline_bytes_per_s / rate.bytes_per_s();
}

void BM_ReadMilesLog(benchmark::State& state) { read_bench(state, long_miles_log()); }
void BM_ReadMegatronLog(benchmark::State& state) { read_bench(state, long_megatron_log()); }

}  // namespace

BENCHMARK(BM_SplitLines)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadMilesLog)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadMegatronLog)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
