#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace ladle {

/// What kind of failure an Error reports; the CLI maps `no` to exit code 1 and every other kind
/// to exit code 2.
enum class ErrorKind {
  usage,
  input,
  io,
  internal,
  no,  ///< not a failure: the command ran and the answer is "no" (nothing fits); says why
};

/// Where in an input a problem sits. Empty fields are unknown; line and col are 1-based.
struct SourceLocation {
  std::string file;
  int line = 0;
  int col = 0;
  std::string field_path;  ///< e.g. "layout.tp"

  bool operator==(const SourceLocation&) const = default;
};

/// The one error type of ladle: what failed, where, and what was expected.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message, SourceLocation where = {});

  ErrorKind kind() const { return kind_; }
  const SourceLocation& where() const { return where_; }
  /// The message without the location prefix.
  const std::string& message() const { return message_; }
  /// One line: "file:line:col: error: field: message", or "ladle: error: message" without a file.
  std::string describe() const;

 private:
  ErrorKind kind_;
  SourceLocation where_;
  std::string message_;
};

/// Throws an ErrorKind::input error at `where` with a fmt-formatted message.
template <typename... Args>
[[noreturn]] void throw_input(SourceLocation where, fmt::format_string<Args...> format, Args&&... args) {
  throw Error(ErrorKind::input, fmt::format(format, std::forward<Args>(args)...), std::move(where));
}

/// Throws an ErrorKind::usage error (bad flags or arguments).
template <typename... Args>
[[noreturn]] void throw_usage(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(ErrorKind::usage, fmt::format(format, std::forward<Args>(args)...));
}

/// Throws an ErrorKind::no error: the question had an answer and it is "no" (e.g. no layout fits).
template <typename... Args>
[[noreturn]] void throw_no(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(ErrorKind::no, fmt::format(format, std::forward<Args>(args)...));
}

namespace detail {
[[noreturn]] void assert_failed(const char* condition, const char* why, const char* file, int line);
}

}  // namespace ladle

/// For programmer errors only: never reachable from input.
#define LADLE_ASSERT(cond, why) \
  ((cond) ? (void)0 : ::ladle::detail::assert_failed(#cond, why, __FILE__, __LINE__))
