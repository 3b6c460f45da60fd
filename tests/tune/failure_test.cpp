// Tests of the failure classes read from a trial's log and its scheduler state.
#include "ladle/tune/failure.hpp"

#include "support/test_support.hpp"

namespace ladle::tune {
namespace {

using sched::JobState;
using sched::JobStatus;

TEST(FailureClass, OutOfMemoryWinsOverTheNcclAbortItCauses) {
  const std::string log =
      "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
      "[rank3]:[E ProcessGroupNCCL.cpp:616] Watchdog caught collective operation timeout: "
      "WorkNCCL(...)\n";
  const FailureClass f = classify_failure(log, JobStatus{JobState::failed, 1, "FAILED"});
  EXPECT_EQ(f.state, TrialState::oom);
  EXPECT_NE(f.detail.find("CUDA out of memory"), std::string::npos);
}

TEST(FailureClass, NcclTimeoutsEccErrorsAndLostNodesAreFlaky) {
  EXPECT_EQ(classify_failure(
                "[E ProcessGroupNCCL.cpp:616] Watchdog caught collective operation timeout\n",
                JobStatus{JobState::failed, 1, ""})
                .state,
            TrialState::flaky);
  EXPECT_EQ(classify_failure("RuntimeError: CUDA error: uncorrectable ECC error encountered\n",
                             JobStatus{JobState::failed, 1, ""})
                .state,
            TrialState::flaky);
  EXPECT_EQ(classify_failure("", JobStatus{JobState::node_fail, std::nullopt, "NODE_FAIL"}).state,
            TrialState::flaky);
}

TEST(FailureClass, TimeoutCancelAndOtherFailuresWithTheirLastErrorLines) {
  EXPECT_EQ(
      classify_failure("step 3\n", JobStatus{JobState::timeout, std::nullopt, "TIMEOUT"}).state,
      TrialState::timeout);
  EXPECT_EQ(
      classify_failure("step 3\n", JobStatus{JobState::cancelled, std::nullopt, "CANCELLED"}).state,
      TrialState::cancelled);
  const FailureClass f = classify_failure(
      "loading\nTraceback (most recent call last):\n  File \"train.py\", line 3\nValueError: bad "
      "--lr\ndone\n",
      JobStatus{JobState::failed, 2, "FAILED"});
  EXPECT_EQ(f.state, TrialState::failed);
  EXPECT_EQ(f.detail, "exit 2: Traceback (most recent call last): | ValueError: bad --lr");
  EXPECT_EQ(last_error_lines("a\nb\nc\n", 2), "b | c");
}

}  // namespace
}  // namespace ladle::tune
