#include "ladle/util/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace ladle::util {

namespace {

// After the kill at the time limit, how long the output pipes may stay open (a process outside
// the group holding them) before ladle stops reading.
constexpr double kDrainSeconds = 2.0;

bool is_executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

void set_limit(int resource, uint64_t value) {
  if (value == 0) return;
  const rlimit limit{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
  ::setrlimit(resource, &limit);
}

}  // namespace

std::string find_program(std::string_view program) {
  if (program.empty()) return {};
  if (program.find('/') != std::string_view::npos) {
    const std::string path(program);
    return is_executable(path) ? path : std::string();
  }
  const char* env = std::getenv("PATH");
  const std::string dirs = env ? env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = dirs.substr(start, end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + std::string(program);
    if (is_executable(candidate)) return candidate;
    start = end + 1;
  }
  return {};
}

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options) {
  CommandResult result;
  const std::string program = argv.empty() ? std::string() : find_program(argv[0]);
  if (program.empty()) {
    result.exit_code = 127;
    result.err = (argv.empty() ? std::string("(no program)") : argv[0]) + ": not found";
    return result;
  }
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return {127, "", "pipe failed"};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return {127, "", "pipe failed"};
  }
  // Everything the child uses is made before fork: after it, the child calls only
  // async-signal-safe functions.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string cannot_start = argv[0] + ": cannot start\n";
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    return {127, "", argv[0] + ": cannot start"};
  }
  if (pid == 0) {
    ::setpgid(0, 0);  // its own process group, which the time limit kills whole
    const int in = ::open("/dev/null", O_RDONLY);
    if (in < 0 || ::dup2(in, 0) < 0 || ::dup2(out_pipe[1], 1) < 0 || ::dup2(err_pipe[1], 2) < 0) ::_exit(127);
    set_limit(RLIMIT_AS, options.address_space_bytes);
    set_limit(RLIMIT_NPROC, options.processes);
    set_limit(RLIMIT_FSIZE, options.file_bytes);
    set_limit(RLIMIT_CPU, options.cpu_seconds);
    ::execv(program.c_str(), args.data());
    [[maybe_unused]] const ssize_t n = ::write(2, cannot_start.data(), cannot_start.size());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from here, so the group exists before any kill
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  using Clock = std::chrono::steady_clock;
  const bool limited = options.timeout_s > 0;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(limited ? options.timeout_s : 0));
  auto drain_until = Clock::time_point::max();
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buffer[4096];
  const auto keep = [&](std::string& to, size_t n) {
    const size_t room = options.max_output_bytes == 0 ? n
                                                      : (to.size() < options.max_output_bytes
                                                             ? std::min(n, options.max_output_bytes - to.size())
                                                             : 0);
    to.append(buffer, room);
  };
  while (open_fds > 0) {
    int wait_ms = -1;
    const auto now = Clock::now();
    if (limited && !result.timed_out) {
      if (now >= deadline) {
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);
        result.timed_out = true;
        drain_until = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kDrainSeconds));
        continue;
      }
      wait_ms = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count());
    } else if (result.timed_out) {
      if (now >= drain_until) break;
      wait_ms = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(drain_until - now).count());
    }
    const int ready = ::poll(fds, 2, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        keep(i == 0 ? result.out : result.err, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (const pollfd& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return result;
}

}  // namespace ladle::util
