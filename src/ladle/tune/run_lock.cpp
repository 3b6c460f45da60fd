#include "ladle/tune/run_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "ladle/util/error.hpp"

namespace ladle::tune {

namespace {

std::string host_name() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return "an unknown host";
  return name.data();
}

// What the holder wrote into the lock file ("pid 123 on host"), read through the open descriptor.
std::string holder_of(int fd) {
  std::array<char, 512> buffer{};
  const ssize_t n = ::pread(fd, buffer.data(), buffer.size() - 1, 0);
  std::string text = n > 0 ? std::string(buffer.data(), static_cast<size_t>(n)) : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return text.empty() ? "another process (it has not written its pid yet)" : text;
}

}  // namespace

RunLock RunLock::acquire(const std::string& folder) {
  const std::string path = (std::filesystem::path(folder) / kRunLockFile).string();
  // O_CLOEXEC: the local back-end's jobs are children of ladle and must not inherit the lock,
  // or a job left running by a killed ladle would keep its run from being resumed.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    throw Error(ErrorKind::io,
                fmt::format("cannot open the run's lock file {}: {}", path, std::strerror(errno)));
  }
  int rc;
  do {
    rc = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int err = errno;
    const std::string holder = err == EWOULDBLOCK ? holder_of(fd) : "";
    ::close(fd);
    if (err == EWOULDBLOCK) {
      throw_usage("{} is in use by {}; wait for it to end or stop it (Ctrl-C)", folder, holder);
    }
    throw Error(ErrorKind::io, fmt::format("cannot lock {}: {}", path, std::strerror(err)));
  }
  const std::string holder = fmt::format("pid {} on {}\n", ::getpid(), host_name());
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, holder.data(), holder.size(), 0) != static_cast<ssize_t>(holder.size())) {
    const int err = errno;
    ::close(fd);
    throw Error(ErrorKind::io, fmt::format("cannot write {}: {}", path, std::strerror(err)));
  }
  return RunLock(fd);
}

RunLock::RunLock(RunLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace ladle::tune
