#include "ladle/util/file_io.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "ladle/util/error.hpp"

namespace ladle::util {
namespace fs = std::filesystem;
namespace {

constexpr size_t kReadChunk = size_t{1} << 20;
constexpr const char* kTempInfix = ".ladle-tmp-";
constexpr size_t kTempSuffixChars = 6;  // mkstemp's XXXXXX

[[noreturn]] void throw_io(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::io, what, {path});
}

std::string describe_type(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Opens `path` for reading without blocking on a FIFO, and checks what it is.
int open_checked(const std::string& path, limits::FileKind kind, int64_t& size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw_io(path, fmt::format("cannot open: {}", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const std::string reason = std::strerror(errno);
    ::close(fd);
    throw_io(path, "cannot read: " + reason);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw_io(path, fmt::format("is {}, expected a regular file", describe_type(st.st_mode)));
  }
  const int64_t limit = limits::max_file_bytes(kind);
  if (st.st_size > limit) {
    ::close(fd);
    throw_io(path, fmt::format("{} bytes is more than the {} bytes allowed for {}", st.st_size,
                               limit, limits::file_kind_name(kind)));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  size = st.st_size;
  return fd;
}

bool is_temp_name(const std::string& name, const std::string& target_name) {
  const std::string prefix = "." + target_name + kTempInfix;
  if (!name.starts_with(prefix) || name.size() != prefix.size() + kTempSuffixChars) return false;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (!std::isalnum(static_cast<unsigned char>(name[i]))) return false;
  }
  return true;
}

// Removes temporary files a killed write of `target` left: our name pattern, a regular file, and
// not locked by a write still running.
void remove_stale_temps(const fs::path& dir, const std::string& target_name) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!is_temp_name(name, target_name) || !it->is_regular_file(ec) || it->is_symlink(ec))
      continue;
    const int fd = ::open(it->path().c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) ::unlink(it->path().c_str());
    ::close(fd);
  }
}

}  // namespace

int64_t check_input_file(const std::string& path, limits::FileKind kind) {
  int64_t size = 0;
  ::close(open_checked(path, kind, size));
  return size;
}

std::string read_file(const std::string& path, limits::FileKind kind) {
  int64_t size = 0;
  const int fd = open_checked(path, kind, size);
  std::string out;
  out.reserve(static_cast<size_t>(size));
  const int64_t limit = limits::max_file_bytes(kind);
  char chunk[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string reason = std::strerror(errno);
      ::close(fd);
      throw_io(path, "read failed: " + reason);
    }
    if (n == 0) break;
    out.append(chunk, static_cast<size_t>(n));
    if (static_cast<int64_t>(out.size()) > limit) {  // the file grew while it was read
      ::close(fd);
      throw_io(path, fmt::format("more than the {} bytes allowed for {}", limit,
                                 limits::file_kind_name(kind)));
    }
  }
  ::close(fd);
  return out;
}

LineReader::LineReader(const std::string& path) : path_(path) {
  int64_t size = 0;
  const int fd = open_checked(path, limits::FileKind::streamed, size);
  file_ = ::fdopen(fd, "rb");
  if (!file_) {
    ::close(fd);
    throw_io(path, fmt::format("cannot open: {}", std::strerror(errno)));
  }
}

LineReader::~LineReader() {
  if (file_) std::fclose(file_);
}

bool LineReader::next(std::string_view& line) {
  while (true) {
    const size_t at = buffer_.find('\n', begin_);
    if (at != std::string::npos && at < end_) {
      line = std::string_view(buffer_).substr(begin_, at - begin_);
      begin_ = at + 1;
      ++line_number_;
      return true;
    }
    if (eof_) {
      if (begin_ >= end_) return false;
      line = std::string_view(buffer_).substr(begin_, end_ - begin_);
      begin_ = end_;
      ++line_number_;
      return true;
    }
    if (static_cast<int64_t>(end_ - begin_) > limits::kMaxLineBytes) {
      throw_input(SourceLocation{path_, line_number_ + 1, 0, ""},
                  "a line longer than {} bytes (the limit for one line of a log or JSONL file)",
                  limits::kMaxLineBytes);
    }
    // Keep the unread tail, then read another chunk after it.
    buffer_.erase(0, begin_);
    end_ -= begin_;
    begin_ = 0;
    buffer_.resize(end_ + kReadChunk);
    const size_t n = std::fread(buffer_.data() + end_, 1, kReadChunk, file_);
    if (n < kReadChunk) {
      if (std::ferror(file_)) throw_io(path_, "read failed");
      eof_ = true;
    }
    end_ += n;
    buffer_.resize(end_);
  }
}

PathLock::PathLock(const std::string& path) {
  for (;;) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) throw_io(path, fmt::format("cannot open: {}", std::strerror(errno)));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const std::string reason = std::strerror(errno);
      ::close(fd_);
      throw_io(path, "cannot lock: " + reason);
    }
    struct stat held {};
    struct stat named {};
    if (::fstat(fd_, &held) == 0 && ::stat(path.c_str(), &named) == 0 && named.st_dev == held.st_dev &&
        named.st_ino == held.st_ino) {
      return;
    }
    ::close(fd_);
  }
}

PathLock::~PathLock() { ::close(fd_); }

void write_file_atomic(const std::string& path, std::string_view content) {
  std::error_code ec;
  fs::path target(path);
  // Write through a symbolic link: replace what it points at, keep the link.
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    const fs::path resolved = fs::weakly_canonical(target, ec);
    if (ec) throw_io(path, "cannot follow the symbolic link: " + ec.message());
    target = resolved;
  }
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string name = target.filename().string();
  mode_t mode = 0644;
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists) {
    if (!S_ISREG(st.st_mode))
      throw_io(path, fmt::format("is {}, expected a regular file", describe_type(st.st_mode)));
    mode = st.st_mode & 07777;
  }
  remove_stale_temps(dir, name);
  std::string temp;
  int fd = -1;
  for (;;) {
    temp = (dir / ("." + name + kTempInfix + "XXXXXX")).string();
    fd = ::mkstemp(temp.data());
    if (fd < 0) throw_io(path, fmt::format("cannot create a file here: {}", std::strerror(errno)));
    ::flock(fd, LOCK_EX);  // a concurrent writer's clean-up leaves this file alone
    // ... from now on: one that ran between mkstemp and flock may have removed it already.
    struct stat held {};
    if (::fstat(fd, &held) == 0 && held.st_nlink > 0) break;
    ::close(fd);
  }
  const char* data = content.data();
  size_t left = content.size();
  bool ok = true;
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      ok = false;
      break;
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  // The replacement keeps the old file's owner: root rewriting another user's file must not take
  // it over. Only root may give a file away, so for anyone else this is a no-op or EPERM (ignored:
  // the file is theirs, or their group's, already). Before fchmod, which chown would clear.
  if (exists && (st.st_uid != ::geteuid() || st.st_gid != ::getegid())) {
    (void)::fchown(fd, st.st_uid, st.st_gid);
  }
  ok = ::fchmod(fd, mode) == 0 && ok;  // mkstemp creates 0600
  if (!ok || std::rename(temp.c_str(), target.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temp.c_str());
    ::close(fd);
    throw_io(path, fmt::format("cannot write: {}", reason));
  }
  ::close(fd);
}

}  // namespace ladle::util
