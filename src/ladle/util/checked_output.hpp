#pragma once
// checked_output.hpp: standard output that knows whether it was written. std::cout over C stdio
// drops a failed write (a full disk, /dev/full, a closed socket) without a word, and by the
// time anyone asks, errno says something else; this buffer keeps the first failure's errno so
// that main() can exit 2 naming it instead of 0 with the output lost.

#include <streambuf>
#include <string>

namespace ladle::util {

/// A stream buffer over a file descriptor (standard output) that remembers the first write
/// error and drops everything after it. Line-buffered on a terminal, so a long command's lines
/// appear as they are printed; block-buffered otherwise, as C stdio is.
class CheckedOutput : public std::streambuf {
 public:
  explicit CheckedOutput(int fd);
  ~CheckedOutput() override;
  CheckedOutput(const CheckedOutput&) = delete;
  CheckedOutput& operator=(const CheckedOutput&) = delete;

  /// Writes what is buffered; false when this or any earlier write failed.
  bool finish();
  /// errno of the first failed write; 0 while every write succeeded.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void drain();

  int fd_;
  bool line_buffered_;
  int error_ = 0;
  std::string pending_;
};

}  // namespace ladle::util
