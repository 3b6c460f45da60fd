// log_memory_bench: peak memory of reading a training log as the log grows, against a baseline in
// the same run (streaming the same file line by line and keeping nothing), so the figure is a
// ratio that does not depend on the machine. Each reading runs in a child process; its peak
// resident set comes from wait4(2). Two logs per size, both built from
// tests/data/runlog/synthetic/megatron_noise.log with renumbered records:
//   dense: the fixture repeated (one record per 470 bytes, every line a Megatron line);
//   sparse: 200 lines of launcher noise per record, as rollout logs print.
//   ./build/log_memory_bench [MAX_MB] (default 1024)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "ladle/runlog/run_log.hpp"
#include "ladle/util/file_io.hpp"

namespace {

std::string source(const std::string& relative) {
  return std::filesystem::path(__FILE__).parent_path().parent_path().string() + "/" + relative;
}

// Writes the fixture repeated until `bytes`, each copy's records renumbered; with `noise`, 200
// noise lines after each record.
void write_log(const std::string& path, size_t bytes, bool noise) {
  const std::string one =
      ladle::util::read_file(source("tests/data/runlog/synthetic/megatron_noise.log"));
  const std::regex record(R"(iteration +(\d+)/ +(\d+) \|)");
  std::string noise_block;
  for (int i = 0; i < 200; ++i) {
    noise_block += "[default0]:[2026-10-12 11:00:12] rollout worker " + std::to_string(i) +
                   ": generated 512 samples, mean response length 2048.0 tokens, queue depth 3\n";
  }
  std::ofstream out(path, std::ios::binary);
  size_t written = 0;
  for (int copy = 0; written < bytes; ++copy) {
    std::string chunk;
    size_t last = 0;
    for (auto it = std::sregex_iterator(one.begin(), one.end(), record);
         it != std::sregex_iterator(); ++it) {
      chunk.append(one, last, static_cast<size_t>(it->position()) - last);
      chunk +=
          "iteration " + std::to_string(std::stoi((*it)[1].str()) + copy * 20) + "/ 100000000 |";
      last = static_cast<size_t>(it->position() + it->length());
    }
    chunk.append(one, last, std::string::npos);
    if (noise) {
      for (int r = 0; r < 6; ++r) chunk += noise_block;  // 200 lines per record of the fixture
    }
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
  const std::string dir =
      std::filesystem::temp_directory_path() / ("log_memory_bench." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::printf("%-7s %8s %10s %14s %14s %8s\n", "log", "MB", "records", "baseline MB", "read_log MB",
              "ratio");
  for (const bool noise : {false, true}) {
    for (size_t mb = 64; mb <= max_mb; mb *= 4) {
      const std::string path = dir + "/train.log";
      write_log(path, mb << 20, noise);
      size_t records = 0;
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
      std::ifstream(path + ".n") >> records;
      std::printf("%-7s %8zu %10zu %14.1f %14.1f %8.2f\n", noise ? "sparse" : "dense", mb, records,
                  baseline, read, read / baseline);
      std::fflush(stdout);
      if (mb == max_mb) break;
      if (mb * 4 > max_mb) mb = max_mb / 4;
    }
  }
  std::filesystem::remove_all(dir);
  return 0;
}
