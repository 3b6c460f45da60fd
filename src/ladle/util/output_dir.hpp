#pragma once
// output_dir.hpp: folder outputs (`pack --out`, `site --out`). The folder is built under a
// temporary name beside the target and swapped in with one rename, so the name holds the old
// output or the new one at every moment, and a folder ladle did not write is never replaced.

#include <filesystem>
#include <string>
#include <string_view>

namespace ladle::util {

/// The file by which a command recognises a folder it wrote: its name inside the folder and how
/// that file starts.
struct OutputMarker {
  std::string file;
  std::string starts_with;
};

/// A folder output being built. The constructor refuses (Error usage, naming `flag`) a target
/// that is a file or a non-empty folder without `marker`, removes temporary folders that killed
/// earlier runs left beside the same target, and creates the temporary folder (0755). Destroying
/// it without commit() removes the temporary folder.
class StagedDir {
 public:
  StagedDir(const std::string& target, OutputMarker marker, std::string_view flag);
  ~StagedDir();
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  /// Where to write the output's files.
  const std::filesystem::path& path() const { return temp_; }
  /// Swaps the finished folder in: rename(2) onto an absent target, renameat2(RENAME_EXCHANGE)
  /// onto an existing one, whose old contents are then removed. The marker must be written.
  /// Throws Error(io).
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
  OutputMarker marker_;
  int lock_fd_ = -1;
};

/// Whether `dir` holds `marker` (a folder this command wrote).
bool holds_marker(const std::filesystem::path& dir, const OutputMarker& marker);

}  // namespace ladle::util
