#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "ladle/util/limits.hpp"

namespace ladle::util {

/// Checks that `path` names a regular file (not a folder, a FIFO or a device, which could block or
/// never end) of at most the limit of `kind`, and returns its size. Throws Error(io) naming the
/// path and the limit otherwise.
int64_t check_input_file(const std::string& path, limits::FileKind kind = limits::FileKind::any);

/// Returns the whole file after check_input_file. Throws Error(io) naming the path when it cannot
/// be read, is not a regular file or is larger than the limit of its kind.
std::string read_file(const std::string& path, limits::FileKind kind = limits::FileKind::any);

/// Reads a regular file one line at a time with a bounded buffer, so memory does not grow with the
/// file. Lines are returned without their '\n'; a line longer than limits::kMaxLineBytes throws
/// Error(input) at path:line.
class LineReader {
 public:
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line, or false at the end of the file. `line` stays valid until the next call.
  bool next(std::string_view& line);
  /// The 1-based number of the line last returned.
  int line_number() const { return line_number_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  size_t begin_ = 0;  ///< start of unread data in buffer_
  size_t end_ = 0;    ///< end of valid data in buffer_
  bool eof_ = false;
  int line_number_ = 0;
};

/// Writes `content` to a temporary file beside `path`, flushes it and renames it into place, so a
/// reader sees the old file or the new one, never half of one. A symbolic link is written through
/// (its target is replaced, the link stays), an existing file keeps its permission bits and, where
/// the writer may give it (root), its owner and group (a new one gets 0644), and temporary files a
/// killed earlier write left beside the same name are removed. Throws Error(io).
void write_file_atomic(const std::string& path, std::string_view content);

/// An exclusive flock(2) on the file or folder `path` names, held until destruction, for a
/// read-change-write that must not interleave with another process's. write_file_atomic and
/// folder swaps put a new inode under the name, so a lock won on the one replaced meanwhile is let
/// go and taken again on the one the name holds now. Throws Error(io) when `path` cannot be opened.
class PathLock {
 public:
  explicit PathLock(const std::string& path);
  ~PathLock();
  PathLock(const PathLock&) = delete;
  PathLock& operator=(const PathLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace ladle::util
