// The one process runner (util/process.hpp, which sched/process.hpp and --script's sandbox use):
// the limits it sets on the child and the process-group kill at the time limit.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "ladle/sched/process.hpp"

namespace ladle::sched {
namespace {

// bash's ulimit reads the limits the child runs under: -v the address space in KiB, -u the
// processes, -f the file size in 512-byte blocks (bash's builtin), -t the CPU seconds.
TEST(Process, SetsTheChildsResourceLimits) {
  CommandOptions o;
  o.address_space_bytes = uint64_t{2} << 30;
  o.processes = 300;
  o.file_bytes = uint64_t{8} << 20;
  o.cpu_seconds = 7;
  const CommandResult r = run_command({"bash", "-c", "ulimit -v; ulimit -u; ulimit -f; ulimit -t"}, o);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::to_string((uint64_t{2} << 30) / 1024) + "\n300\n" + std::to_string((uint64_t{8} << 20) / 1024) +
                       "\n7\n");
  // Without options the child keeps ladle's own limits.
  const CommandResult own = run_command({"bash", "-c", "ulimit -t"});
  EXPECT_EQ(own.out, "unlimited\n");
}

// At the time limit the whole process group goes: a child that started more processes (which hold
// the output pipe) is stopped too, and the result says it timed out.
TEST(Process, KillsTheProcessGroupAtTheTimeLimit) {
  CommandOptions o;
  o.timeout_s = 0.5;
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r = run_command({"bash", "-c", "echo started; sleep 60 & sleep 60 & wait"}, o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 128 + 9);
  EXPECT_EQ(r.out, "started\n");
  EXPECT_LT(seconds, 5.0);
  const CommandResult quick = run_command({"bash", "-c", "exit 3"}, o);
  EXPECT_FALSE(quick.timed_out);
  EXPECT_EQ(quick.exit_code, 3);
}

TEST(Process, KeepsAtMostTheOutputCap) {
  CommandOptions o;
  o.max_output_bytes = 10;
  const CommandResult r = run_command({"bash", "-c", "head -c 100000 /dev/zero | tr '\\0' x; echo done >&2"}, o);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, std::string(10, 'x'));
  EXPECT_EQ(r.err, "done\n");
}

}  // namespace
}  // namespace ladle::sched
