// step.cpp: StepTimestamp's packing of a timestamp's digits.
#include "ladle/runlog/step.hpp"

#include "ladle/util/error.hpp"

namespace ladle {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

constexpr int kFractionShift = 58;
constexpr uint64_t kDigitsMask = (uint64_t{1} << 47) - 1;
constexpr size_t kMaxFractionDigits = 19;
// Where the 14 digits of "YYYY-MM-DD HH:MM:SS" are, and what stands between them.
constexpr std::string_view kShape = "0000-00-00 00:00:00";

}  // namespace

StepTimestamp::StepTimestamp(std::string_view text) {
  bool ok = text.size() >= kShape.size();
  uint64_t digits = 0;
  for (size_t i = 0; ok && i < kShape.size(); ++i) {
    if (kShape[i] == '0') {
      ok = is_digit(text[i]);
      digits = digits * 10 + static_cast<uint64_t>(text[i] - '0');
    } else {
      ok = text[i] == kShape[i];
    }
  }
  uint64_t fraction = 0;
  size_t count = 0;
  if (ok && text.size() > kShape.size()) {
    ok = text[kShape.size()] == '.' && text.size() > kShape.size() + 1;
    for (size_t i = kShape.size() + 1; ok && i < text.size(); ++i) {
      ok = is_digit(text[i]);
      if (count < kMaxFractionDigits) {
        fraction = fraction * 10 + static_cast<uint64_t>(text[i] - '0');
        ++count;
      }
    }
  }
  LADLE_ASSERT(ok, "a step's timestamp is 'YYYY-MM-DD HH:MM:SS[.f...]' (find_timestamp's form)");
  packed_ = (uint64_t{1} << kPresentBit) | (static_cast<uint64_t>(count) << kFractionShift) | digits;
  fraction_ = fraction;
}

StepTimestamp::StepTimestamp(const std::optional<std::string>& text) {
  if (text) *this = StepTimestamp(std::string_view(*text));
}

std::string StepTimestamp::operator*() const {
  LADLE_ASSERT(has_value(), "a timestamp is read only when present");
  std::string out(kShape);
  uint64_t digits = packed_ & kDigitsMask;
  for (size_t i = kShape.size(); i-- > 0;) {
    if (kShape[i] != '0') continue;
    out[i] = static_cast<char>('0' + digits % 10);
    digits /= 10;
  }
  const size_t count = (packed_ >> kFractionShift) & 0x1f;
  if (count > 0) {
    std::string fraction(count, '0');
    uint64_t f = fraction_;
    for (size_t i = count; i-- > 0;) {
      fraction[i] = static_cast<char>('0' + f % 10);
      f /= 10;
    }
    out += '.';
    out += fraction;
  }
  return out;
}

}  // namespace ladle

// The size the header promises: a log's records take 88 bytes each.
static_assert(sizeof(ladle::Step) == 88);
