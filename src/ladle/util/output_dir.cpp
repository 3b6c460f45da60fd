#include "ladle/util/output_dir.hpp"

#include <fcntl.h>
#include <stdio.h>  // renameat2 (glibc, _GNU_SOURCE)
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "ladle/util/error.hpp"

namespace ladle::util {
namespace fs = std::filesystem;
namespace {

// Present in a temporary folder from its creation until commit(): a folder with it is one of ours.
constexpr const char* kStagingToken = ".ladle-staging";
constexpr const char* kTempInfix = ".tmp-";
constexpr size_t kTempSuffixChars = 6;  // mkdtemp's XXXXXX

[[noreturn]] void throw_io(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::io, what, {path});
}

fs::path parent_of(const fs::path& target) {
  return target.has_parent_path() ? target.parent_path() : fs::path(".");
}

// Whether `name` is a temporary folder name of `target`: ".NAME.tmp-XXXXXX", optionally ".old".
bool is_temp_name(const std::string& name, const std::string& target_name) {
  const std::string prefix = "." + target_name + kTempInfix;
  if (!name.starts_with(prefix)) return false;
  std::string rest = name.substr(prefix.size());
  if (rest.ends_with(".old")) rest.resize(rest.size() - 4);
  if (rest.size() != kTempSuffixChars) return false;
  for (const char c : rest) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Removes a folder this command wrote so that a kill at any moment leaves it recognisable: every
// entry but the staging token and the marker first, then those two, then the folder.
void remove_ours(const fs::path& dir, const OutputMarker& marker) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name != kStagingToken && name != marker.file) entries.push_back(it->path());
  }
  for (const fs::path& entry : entries) fs::remove_all(entry, ec);
  fs::remove(dir / kStagingToken, ec);
  fs::remove(dir / marker.file, ec);
  fs::remove(dir, ec);
}

// Removes what killed runs left beside `target`: folders with a temporary name that are empty,
// hold the staging token or the marker, and that no running ladle holds locked.
void remove_stale(const fs::path& target, const OutputMarker& marker) {
  std::error_code ec;
  const std::string target_name = target.filename().string();
  for (fs::directory_iterator it(parent_of(target), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!is_temp_name(name, target_name) || !it->is_directory(ec) || it->is_symlink(ec)) continue;
    const int fd = ::open(it->path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      std::error_code inner;
      const bool ours = fs::is_empty(it->path(), inner) ||
                        fs::exists(it->path() / kStagingToken, inner) ||
                        holds_marker(it->path(), marker);
      if (ours) remove_ours(it->path(), marker);
    }
    ::close(fd);
  }
}

}  // namespace

bool holds_marker(const fs::path& dir, const OutputMarker& marker) {
  std::error_code ec;
  const fs::path file = dir / marker.file;
  if (!fs::is_regular_file(fs::symlink_status(file, ec))) return false;
  std::ifstream in(file, std::ios::binary);
  std::string head(marker.starts_with.size(), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  return in && head == marker.starts_with;
}

StagedDir::StagedDir(const std::string& target, OutputMarker marker, std::string_view flag)
    : marker_(std::move(marker)) {
  const fs::path out = fs::path(target).lexically_normal();
  target_ = out.has_filename() ? out : out.parent_path();
  if (target_.empty() || target_.filename() == "." || target_.filename() == "..") {
    throw_usage("{} needs a folder name, got '{}'", flag, target);
  }
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(target_, ec);
  if (fs::exists(status)) {
    if (!fs::is_directory(status))
      throw_usage("{} '{}' is not a folder, expected a folder", flag, target);
    if (!fs::is_empty(target_, ec) && !holds_marker(target_, marker_)) {
      throw_usage(
          "{} '{}' is not empty and holds no output written by ladle ({}); pick a new folder", flag,
          target, marker_.file);
    }
  }
  const fs::path parent = parent_of(target_);
  fs::create_directories(parent, ec);
  if (ec || !fs::is_directory(parent, ec)) {
    throw Error(ErrorKind::io, "cannot create the folder that should hold the output",
                {parent.string()});
  }
  remove_stale(target_, marker_);
  for (;;) {
    std::string pattern =
        (parent / ("." + target_.filename().string() + kTempInfix + "XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw_io(parent.string(), fmt::format("cannot create a folder here: {}", std::strerror(errno)));
    }
    temp_ = pattern;
    lock_fd_ = ::open(temp_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock_fd_ < 0 && errno == ENOENT) continue;  // removed already, as below
    if (lock_fd_ < 0) throw_io(temp_.string(), fmt::format("cannot open: {}", std::strerror(errno)));
    ::flock(lock_fd_, LOCK_EX);
    // A concurrent run's remove_stale may have taken the folder, empty and unlocked, between
    // mkdtemp and flock: then it has no links left, and another is made.
    struct stat held {};
    if (::fstat(lock_fd_, &held) == 0 && held.st_nlink > 0) break;
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
  ::chmod(temp_.c_str(), 0755);  // mkdtemp makes 0700; an output is readable like any other
  std::ofstream token(temp_ / kStagingToken);
  if (!token) {
    remove_ours(temp_, marker_);
    throw_io(temp_.string(), "cannot write in the temporary folder");
  }
}

StagedDir::~StagedDir() {
  if (!temp_.empty()) remove_ours(temp_, marker_);
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

void StagedDir::commit() {
  LADLE_ASSERT(holds_marker(temp_, marker_),
               "an output folder is committed with its marker written");
  std::error_code ec;
  fs::remove(temp_ / kStagingToken, ec);
  const bool exists = fs::exists(fs::symlink_status(target_, ec));
  if (!exists) {
    if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
      throw_io(target_.string(), fmt::format("cannot rename into place: {}", std::strerror(errno)));
    }
    temp_.clear();
    return;
  }
  if (::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
    remove_ours(temp_, marker_);  // now the old output
    temp_.clear();
    return;
  }
  if (errno != EINVAL && errno != ENOSYS) {
    throw_io(target_.string(), fmt::format("cannot rename into place: {}", std::strerror(errno)));
  }
  // A file system without RENAME_EXCHANGE: move the old output aside, the new one in, then drop the
  // old. A kill between the two renames leaves the old output at TEMP.old, removed by the next run.
  const std::string old = temp_.string() + ".old";
  if (std::rename(target_.c_str(), old.c_str()) != 0 ||
      std::rename(temp_.c_str(), target_.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    if (!fs::exists(target_, ec)) std::rename(old.c_str(), target_.c_str());
    throw_io(target_.string(), "cannot rename into place: " + reason);
  }
  temp_.clear();
  remove_ours(old, marker_);
}

}  // namespace ladle::util
