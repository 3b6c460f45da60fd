#include "ladle/util/checked_output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ladle::util {

namespace {
// What C stdio buffers for a file or pipe: output is written in blocks of this size.
constexpr size_t kBlockBytes = 8192;
}  // namespace

CheckedOutput::CheckedOutput(int fd) : fd_(fd), line_buffered_(::isatty(fd) == 1) { pending_.reserve(kBlockBytes); }

CheckedOutput::~CheckedOutput() { drain(); }

bool CheckedOutput::finish() {
  drain();
  return error_ == 0;
}

CheckedOutput::int_type CheckedOutput::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  const char c = traits_type::to_char_type(ch);
  return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
}

std::streamsize CheckedOutput::xsputn(const char* s, std::streamsize n) {
  // After a failure the rest is dropped: the stream turns bad and main() reports the first error.
  if (error_ != 0) return 0;
  pending_.append(s, static_cast<size_t>(n));
  if (pending_.size() >= kBlockBytes || (line_buffered_ && std::memchr(s, '\n', static_cast<size_t>(n)) != nullptr)) {
    drain();
  }
  return error_ == 0 ? n : 0;
}

int CheckedOutput::sync() {
  drain();
  return error_ == 0 ? 0 : -1;
}

void CheckedOutput::drain() {
  size_t done = 0;
  while (error_ == 0 && done < pending_.size()) {
    const ssize_t n = ::write(fd_, pending_.data() + done, pending_.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      error_ = errno;
    } else if (n == 0) {
      error_ = EIO;  // a write that makes no progress would loop forever
    }
  }
  pending_.clear();
}

}  // namespace ladle::util
