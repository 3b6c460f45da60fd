#include "ladle/util/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace ladle::util {
namespace {

TEST(Parallel, EveryTaskRunsOnceOnWorkersInRange) {
  constexpr size_t kTasks = 1000;
  constexpr int kThreads = 4;
  std::vector<std::atomic<int>> runs(kTasks);
  std::atomic<bool> worker_in_range{true};
  parallel_for(kTasks, kThreads, [&](int worker, size_t i) {
    if (worker < 0 || worker >= kThreads) worker_in_range = false;
    ++runs[i];
  });
  EXPECT_TRUE(worker_in_range);
  for (size_t i = 0; i < kTasks; ++i) EXPECT_EQ(runs[i].load(), 1) << i;
}

TEST(Parallel, NoTasksAndOneThreadRunOnTheCaller) {
  int calls = 0;
  parallel_for(0, 4, [&](int, size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
  parallel_for(3, 1, [&](int worker, size_t) {
    EXPECT_EQ(worker, 0);
    ++calls;
  });
  EXPECT_EQ(calls, 3);
}

// A task's exception reaches the caller once every worker has stopped; the tasks after it are
// not started.
TEST(Parallel, TheFirstExceptionIsRethrownOnTheCaller) {
  std::atomic<int> started{0};
  EXPECT_THROW(parallel_for(100000, 2,
                            [&](int, size_t i) {
                              ++started;
                              if (i == 10) throw std::runtime_error("task 10");
                            }),
               std::runtime_error);
  EXPECT_LT(started.load(), 100000);
}

TEST(Parallel, DefaultThreadsStayWithinTheTasks) {
  EXPECT_EQ(default_threads(0), 1);
  EXPECT_EQ(default_threads(1), 1);
  EXPECT_GE(default_threads(1000), 1);
  EXPECT_LE(default_threads(3), 3);
}

}  // namespace
}  // namespace ladle::util
