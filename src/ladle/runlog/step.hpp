#pragma once
// step.hpp: Step, one training-step record of a run as a log prints it.
//
// A log of millions of records is held as millions of Steps, so a Step is kept small (88 bytes):
// its optional numbers are MaybeNumber, an optional that marks "not printed" with a value no log
// can produce instead of a separate flag, and its timestamp is a StepTimestamp, the digits of the
// time packed in 16 bytes instead of a heap string.

#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "ladle/util/error.hpp"

namespace ladle {

/// std::optional<T> in the width of T, for T = double or int64_t. "Absent" is one value T cannot
/// take from a log: a NaN with a payload no parser or arithmetic produces (a NaN with exactly that
/// payload is stored as the ordinary quiet NaN), or INT64_MIN (counts are never negative). Reads
/// and writes like std::optional<T> and converts to it.
template <typename T>
class MaybeNumber {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, int64_t>);

 public:
  constexpr MaybeNumber() = default;
  constexpr MaybeNumber(std::nullopt_t) {}  // NOLINT(google-explicit-constructor)
  MaybeNumber(T value) : value_(store(value)) {}  // NOLINT(google-explicit-constructor)
  MaybeNumber(const std::optional<T>& value)  // NOLINT(google-explicit-constructor)
      : value_(value ? store(*value) : absent()) {}

  constexpr bool has_value() const { return !is_absent(value_); }
  constexpr explicit operator bool() const { return has_value(); }
  constexpr T operator*() const { return value_; }
  constexpr T value_or(T fallback) const { return has_value() ? value_ : fallback; }
  constexpr void reset() { value_ = absent(); }
  constexpr operator std::optional<T>() const {  // NOLINT(google-explicit-constructor)
    return has_value() ? std::optional<T>(value_) : std::nullopt;
  }

  /// As std::optional: two absents are equal, a value equals only an equal value (NaN != NaN).
  friend constexpr bool operator==(const MaybeNumber& a, const MaybeNumber& b) {
    if (a.has_value() != b.has_value()) return false;
    return !a.has_value() || a.value_ == b.value_;
  }
  friend constexpr bool operator==(const MaybeNumber& a, T b) { return a.has_value() && a.value_ == b; }

 private:
  static constexpr uint64_t kAbsentNaN = 0x7ffc'1ad1'e000'0001ULL;  // a quiet NaN, own payload

  static constexpr T absent() {
    if constexpr (std::is_same_v<T, double>) {
      return std::bit_cast<double>(kAbsentNaN);
    } else {
      return std::numeric_limits<int64_t>::min();
    }
  }
  static constexpr bool is_absent(T value) {
    if constexpr (std::is_same_v<T, double>) {
      return std::bit_cast<uint64_t>(value) == kAbsentNaN;
    } else {
      return value == std::numeric_limits<int64_t>::min();
    }
  }
  static T store(T value) {
    if constexpr (std::is_same_v<T, double>) {
      return is_absent(value) ? std::numeric_limits<double>::quiet_NaN() : value;
    } else {
      LADLE_ASSERT(!is_absent(value), "a count is never INT64_MIN");
      return value;
    }
  }

  T value_ = absent();
};

/// An optional timestamp "YYYY-MM-DD HH:MM:SS[.f...]" (the form find_timestamp normalises to)
/// held as its digits: the 14 digits of date and time in one word, up to 19 digits of fractional
/// seconds in another (digits past the 19th, below 1e-19 s, are not kept). Reads like
/// std::optional<std::string>; `*t` is the text.
class StepTimestamp {
 public:
  StepTimestamp() = default;
  StepTimestamp(std::nullopt_t) {}  // NOLINT(google-explicit-constructor)
  /// `text` must be in the form above (the readers' timestamps are); anything else is a bug.
  StepTimestamp(std::string_view text);                   // NOLINT(google-explicit-constructor)
  StepTimestamp(const std::string& text) : StepTimestamp(std::string_view(text)) {}  // NOLINT
  StepTimestamp(const char* text) : StepTimestamp(std::string_view(text)) {}  // NOLINT
  StepTimestamp(const std::optional<std::string>& text);  // NOLINT(google-explicit-constructor)

  bool has_value() const { return (packed_ >> kPresentBit) != 0; }
  explicit operator bool() const { return has_value(); }
  std::string operator*() const;
  void reset() { packed_ = 0, fraction_ = 0; }
  operator std::optional<std::string>() const {  // NOLINT(google-explicit-constructor)
    return has_value() ? std::optional<std::string>(**this) : std::nullopt;
  }

  friend bool operator==(const StepTimestamp&, const StepTimestamp&) = default;

  /// The two words as held (StepSeries stores them encoded): `packed` with presence, the count of
  /// fractional digits and the 14 digits as described below, `fraction` the fractional digits.
  uint64_t packed() const { return packed_; }
  uint64_t fraction() const { return fraction_; }
  static StepTimestamp from_packed(uint64_t packed, uint64_t fraction) {
    StepTimestamp t;
    t.packed_ = packed;
    t.fraction_ = fraction;
    return t;
  }

 private:
  // packed_: bit 63 present, bits 58..62 the count of fractional digits, bits 0..46 the 14
  // digits YYYYMMDDHHMMSS as one number (< 10^14 < 2^47).
  static constexpr int kPresentBit = 63;
  uint64_t packed_ = 0;
  uint64_t fraction_ = 0;  ///< the fractional digits as a number (19 digits < 2^64)
};

/// One record of a training log: one optimizer step, or (Megatron-LM with --log-interval > 1) the
/// average of `iterations` consecutive steps. Every field is what the log printed; nothing is
/// filled in from elsewhere. Non-finite values (nan, inf) are kept as printed.
struct Step {
  int64_t step = 0;        ///< step index exactly as the engine prints it (Megatron 1-based, slime 0-based)
  int64_t iterations = 1;  ///< optimizer steps the record covers (Megatron: the log interval)
  MaybeNumber<double> step_time_s;    ///< seconds per step (Megatron: the average over `iterations`)
  MaybeNumber<double> loss;           ///< training loss (Megatron: average over the advanced steps)
  MaybeNumber<double> grad_norm;      ///< gradient norm before clipping
  MaybeNumber<double> learning_rate;  ///< learning rate of the first parameter group
  MaybeNumber<int64_t> samples;       ///< rows (sequences) the record consumed, all iterations together
  MaybeNumber<int64_t> tokens;        ///< tokens the record consumed, when the log prints them
  StepTimestamp timestamp;            ///< "YYYY-MM-DD HH:MM:SS[.ffffff]" when the line carries one
  int32_t skipped_iterations = 0;     ///< iterations the engine skipped (loss-scale overflow)
  int32_t line = 0;                   ///< 1-based line of the record in its log

  bool operator==(const Step&) const = default;
};

}  // namespace ladle
