#pragma once
// parallel.hpp: run independent tasks on a pool of threads.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace ladle::util {

/// Threads for `count` tasks: the machine's hardware threads, at least 1, at most `count`.
inline int default_threads(size_t count) {
  const size_t hardware = std::max<size_t>(1, std::thread::hardware_concurrency());
  return static_cast<int>(std::clamp<size_t>(hardware, 1, std::max<size_t>(count, 1)));
}

/// Runs fn(worker, index) for every index in [0, count) on up to `threads` threads (worker is 0 on
/// the calling thread). Where the system gives fewer threads, those started share the tasks. The
/// first exception any task throws is rethrown here after every worker has stopped; the tasks not
/// yet started are skipped.
template <typename Fn>
void parallel_for(size_t count, int threads, Fn&& fn) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&](int id) {
    while (!failed.load()) {
      const size_t i = next.fetch_add(1);
      if (i >= count) return;
      try {
        fn(id, i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed.store(true);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int id = 1; id < threads; ++id) {
    try {
      pool.emplace_back(worker, id);
    } catch (const std::system_error&) {
      break;
    }
  }
  worker(0);
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace ladle::util
