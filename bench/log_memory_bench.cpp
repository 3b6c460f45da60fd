// log_memory_bench: peak memory of reading a training log as the log grows, for every log format,
// against two baselines in the same run, so the figures are ratios that do not depend on the
// machine: streaming the same file line by line and keeping nothing, and reading the same format
// at the smallest size. Each reading runs in a child process; its peak resident set comes from
// wait4(2). Each log is a fixture of tests/data/runlog repeated with its step numbers renumbered
// (copy k adds k times the fixture's largest step + 1), so the reader sees one long run:
//   megatron: synthetic/megatron_noise.log (one record per 470 bytes, every line a Megatron line);
//   megatron-sparse: the same with 200 lines of launcher noise per record, as rollout logs print;
//   bridge: synthetic/bridge_step_time.log; slime: synthetic/slime_glm52_tp4_ref20.log;
//   miles: synthetic/miles_glm47flash_ref.log; nemo: real/nemo2_awsome_k8s_ray_excerpt.log;
//   jsonl: synthetic/ladle_steps.jsonl. A fixture's comment lines and memory lines are written once.
//   ./build/log_memory_bench [MAX_MB] [MIN_MB] [FORMAT...] (default 1024 16, every format)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "ladle/runlog/run_log.hpp"
#include "ladle/util/file_io.hpp"

namespace {

std::string source(const std::string& relative) {
  return std::filesystem::path(__FILE__).parent_path().parent_path().string() + "/" + relative;
}

struct Format {
  const char* name;
  const char* fixture;
  const char* step_pattern;  // group 1: the text before the step number, group 2: the number
  bool noise;
};

const Format kFormats[] = {
    {"megatron", "tests/data/runlog/synthetic/megatron_noise.log", R"((iteration +)(\d+))", false},
    {"megatron-sparse", "tests/data/runlog/synthetic/megatron_noise.log", R"((iteration +)(\d+))", true},
    {"bridge", "tests/data/runlog/synthetic/bridge_step_time.log", R"((iteration +)(\d+))", false},
    {"slime", "tests/data/runlog/synthetic/slime_glm52_tp4_ref20.log", R"(((?:step|perf) )(\d+))", false},
    {"miles", "tests/data/runlog/synthetic/miles_glm47flash_ref.log", R"(((?:step|perf) )(\d+))", false},
    {"nemo", "tests/data/runlog/real/nemo2_awsome_k8s_ray_excerpt.log", R"((global_step: )(\d+))", false},
    {"jsonl", "tests/data/runlog/synthetic/ladle_steps.jsonl", R"(("step": )(\d+))", false},
};

// The fixture cut at its step numbers: text pieces, and the number after each piece but the last.
struct Template {
  std::vector<std::string> pieces;
  std::vector<long long> steps;
  long long stride = 1;
  std::string header;  // comment and memory lines of the fixture, written once
};

Template make_template(const Format& format) {
  std::string text = ladle::util::read_file(source(format.fixture));
  Template t;
  // JSONL comments are kept once at the top (the format lets no line start a record before them).
  while (!text.empty() && text[0] == '#') {
    const size_t end = text.find('\n');
    t.header += text.substr(0, end + 1);
    text.erase(0, end + 1);
  }
  // Megatron-LM prints its memory lines once per rank, at the first log interval
  // (report_memory_flag in megatron/training/training.py): written once, not once per copy.
  for (size_t at; (at = text.find("memory (MB)")) != std::string::npos;) {
    const size_t begin = text.rfind('\n', at) + 1;  // npos + 1 == 0 on the first line
    const size_t end = text.find('\n', at);
    t.header += text.substr(begin, end - begin + 1);
    text.erase(begin, end - begin + 1);
  }
  const std::regex record(format.step_pattern);
  size_t last = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), record); it != std::sregex_iterator(); ++it) {
    const size_t number_at = static_cast<size_t>(it->position(2));
    t.pieces.push_back(text.substr(last, number_at - last));
    t.steps.push_back(std::stoll((*it)[2].str()));
    last = number_at + static_cast<size_t>(it->length(2));
  }
  t.pieces.push_back(text.substr(last));
  t.stride = *std::max_element(t.steps.begin(), t.steps.end()) + 1;
  if (format.noise) {
    std::string block;
    for (int i = 0; i < 200; ++i) {
      block += "[default0]:[2026-10-12 11:00:12] rollout worker " + std::to_string(i) +
               ": generated 512 samples, mean response length 2048.0 tokens, queue depth 3\n";
    }
    for (size_t r = 0; r < t.steps.size(); ++r) t.pieces.back() += block;  // 200 lines per record
  }
  return t;
}

// Writes the template repeated until `bytes`, each copy renumbered.
void write_log(const std::string& path, size_t bytes, const Template& t) {
  std::ofstream out(path, std::ios::binary);
  out << t.header;
  size_t written = 0;
  std::string chunk;
  for (long long copy = 0; written < bytes; ++copy) {
    chunk.clear();
    for (size_t i = 0; i < t.steps.size(); ++i) {
      chunk += t.pieces[i];
      chunk += std::to_string(t.steps[i] + copy * t.stride);
    }
    chunk += t.pieces.back();
    if (!chunk.empty() && chunk.back() != '\n') chunk += '\n';
    out << chunk;
    written += chunk.size();
  }
}

// Peak resident MB of `work` run in a child process.
template <class Work>
double peak_mb(Work work) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int rc = work();
    std::_Exit(rc);
  }
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "log_memory_bench: a reading failed\n");
    std::exit(1);
  }
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB
}

}  // namespace

int main(int argc, char** argv) {
  const size_t max_mb = argc > 1 ? std::stoul(argv[1]) : 1024;
  const size_t min_mb = argc > 2 ? std::stoul(argv[2]) : 16;
  std::vector<std::string> only(argv + std::min(argc, 3), argv + argc);
  const std::string dir =
      std::filesystem::temp_directory_path() / ("log_memory_bench." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::printf("%-16s %6s %10s %12s %12s %10s %12s\n", "log", "MB", "records", "baseline MB", "read_log MB",
              "/baseline", "/smallest");
  for (const Format& format : kFormats) {
    if (!only.empty() && std::find(only.begin(), only.end(), format.name) == only.end()) continue;
    const Template t = make_template(format);
    double smallest = 0;
    for (size_t mb = min_mb;; mb *= 4) {
      if (mb > max_mb) mb = max_mb;
      const std::string path = dir + "/train.log";
      write_log(path, mb << 20, t);
      const double baseline = peak_mb([&] {
        ladle::util::LineReader reader(path);
        std::string_view line;
        size_t n = 0;
        while (reader.next(line)) n += line.size();
        return n > 0 ? 0 : 1;
      });
      const double read = peak_mb([&] {
        const ladle::runlog::RunLog log = ladle::runlog::read_log_file(path);
        std::FILE* f = std::fopen((path + ".n").c_str(), "w");
        std::fprintf(f, "%zu", log.steps.size());
        std::fclose(f);
        return 0;
      });
      size_t records = 0;
      std::ifstream(path + ".n") >> records;
      if (smallest == 0) smallest = read;
      std::printf("%-16s %6zu %10zu %12.1f %12.1f %10.2f %12.2f\n", format.name, mb, records, baseline, read,
                  read / baseline, read / smallest);
      std::fflush(stdout);
      if (mb == max_mb) break;
    }
  }
  std::filesystem::remove_all(dir);
  return 0;
}
