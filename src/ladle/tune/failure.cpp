#include "ladle/tune/failure.hpp"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "ladle/tune/log_text.hpp"

namespace ladle::tune {

namespace {

struct Signature {
  TrialState state;
  const char* text;    ///< matched as a substring of one log line
  const char* source;  ///< where the message comes from
};

// What engines print when they run out of memory or hit a transient fault.
constexpr std::array<Signature, 13> kSignatures = {{
    {TrialState::oom, "CUDA out of memory",
     "PyTorch CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp)"},
    {TrialState::oom, "torch.OutOfMemoryError", "PyTorch >= 2.5 exception type"},
    {TrialState::oom, "torch.cuda.OutOfMemoryError", "PyTorch exception type"},
    {TrialState::oom, "CUBLAS_STATUS_ALLOC_FAILED", "cuBLAS workspace allocation"},
    {TrialState::oom, "out of memory on device", "NCCL / DeepEP buffer allocation"},
    {TrialState::flaky, "Watchdog caught collective operation timeout",
     "PyTorch ProcessGroupNCCL watchdog"},
    {TrialState::flaky, "NCCL timeout", "NCCL"},
    {TrialState::flaky, "ncclRemoteError", "NCCL: a peer failed"},
    {TrialState::flaky, "ncclSystemError", "NCCL: system or network error"},
    {TrialState::flaky, "uncorrectable ECC error", "CUDA error 214 (cudaErrorECCUncorrectable)"},
    {TrialState::flaky, "ECC error", "nvidia-smi / CUDA"},
    {TrialState::flaky, "Xid 79", "NVIDIA driver: GPU fell off the bus"},
    {TrialState::flaky, "NODE_FAIL", "Slurm job state"},
}};

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// A log line as it is kept in a trial's detail: its escapes and invalid bytes made visible
// (log_text.hpp), so that the detail stays valid UTF-8 and harmless on a terminal.
std::string clip(std::string_view line) {
  constexpr size_t kMax = 240;
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  return visible_clip(line, kMax);
}

}  // namespace

std::string last_error_lines(std::string_view log, int count) {
  const std::vector<std::string_view> lines = split_lines(log);
  std::vector<std::string> picked;
  for (auto it = lines.rbegin(); it != lines.rend() && static_cast<int>(picked.size()) < count;
       ++it) {
    const std::string_view l = *it;
    for (const char* word :
         {"Error", "error:", "Traceback", "Exception", "exception", "FAILED", "Killed"}) {
      if (l.find(word) != std::string_view::npos) {
        picked.insert(picked.begin(), clip(l));
        break;
      }
    }
  }
  if (picked.empty()) {
    for (auto it = lines.rbegin(); it != lines.rend() && static_cast<int>(picked.size()) < count;
         ++it) {
      if (!it->empty()) picked.insert(picked.begin(), clip(*it));
    }
  }
  std::string out;
  for (const std::string& p : picked) out += (out.empty() ? "" : " | ") + p;
  return out;
}

FailureClass classify_failure(std::string_view log, const sched::JobStatus& status) {
  const std::vector<std::string_view> lines = split_lines(log);
  for (TrialState wanted : {TrialState::oom, TrialState::flaky}) {
    for (std::string_view line : lines) {
      for (const Signature& s : kSignatures) {
        if (s.state == wanted && line.find(s.text) != std::string_view::npos)
          return {wanted, clip(line)};
      }
    }
  }
  using sched::JobState;
  switch (status.state) {
    case JobState::out_of_memory:
      return {TrialState::failed,
              "the scheduler's host memory limit ended the job (" + status.reason + ")"};
    case JobState::node_fail:
      return {TrialState::flaky, "node failure (" + status.reason + ")"};
    case JobState::timeout:
      return {TrialState::timeout, "time limit reached (" + status.reason + ")"};
    case JobState::cancelled:
      return {TrialState::cancelled, "cancelled (" + status.reason + ")"};
    default:
      break;
  }
  std::string detail = last_error_lines(log, 3);
  if (status.exit_code) detail = fmt::format("exit {}: {}", *status.exit_code, detail);
  return {TrialState::failed, detail};
}

}  // namespace ladle::tune
