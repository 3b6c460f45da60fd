// step_series.cpp: StepSeries' encoding of a block of records.
//
// A record, against the record before it in its block (the first against zeros):
//   varint  flags: which optional fields follow (kHas*), iterations != 1, skipped != 0
//   varint  zigzag(step - step before), zigzag(line - line before)
//   varint  zigzag(iterations), zigzag(skipped_iterations)        when flagged
//   number  step_time_s, loss, grad_norm, learning_rate            when present
//   varint  zigzag(tokens - tokens before), zigzag(samples - ...) when present ("before": the last
//           record of the block that printed one, else 0)
//   varint  zigzag(timestamp digits - digits before) << 5 | fractional digits, then the
//           fraction as a varint when it has digits                when present
// A number is varint tag = zigzag(e) << 1 with varint zigzag(m) after it for the value m * 10^e
// (m the shortest decimal digits that read back to it), or tag = 1 with its 8 bytes after it when
// no such pair reads back bit for bit (NaN, infinities, -0.0). Differences are taken modulo 2^64,
// so any int64 round-trips.
#include "ladle/runlog/step_series.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>

#include "ladle/util/error.hpp"

namespace ladle::runlog {

namespace {

enum : uint64_t {
  kHasStepTime = 1 << 0,
  kHasLoss = 1 << 1,
  kHasGradNorm = 1 << 2,
  kHasLearningRate = 1 << 3,
  kHasTokens = 1 << 4,
  kHasTimestamp = 1 << 5,
  kHasSamples = 1 << 6,
  kHasIterations = 1 << 7,
  kHasSkipped = 1 << 8,
};

constexpr uint64_t kFractionCountShift = 58;
constexpr uint64_t kDigitsMask = (uint64_t{1} << 47) - 1;
constexpr uint64_t kPresentBit = uint64_t{1} << 63;

uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t unzigzag(uint64_t u) { return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1); }
// a - b modulo 2^64, as the int64 it is in two's complement.
int64_t difference(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

void put_varint(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

struct Cursor {
  const uint8_t* at;
  const uint8_t* end;

  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      LADLE_ASSERT(at < end && shift < 64, "a StepSeries block holds whole varints");
      const uint8_t byte = *at++;
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return v;
    }
  }
  double raw_double() {
    LADLE_ASSERT(end - at >= 8, "a StepSeries block holds whole numbers");
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits |= static_cast<uint64_t>(at[i]) << (8 * i);
    at += 8;
    return std::bit_cast<double>(bits);
  }
};

// m * 10^e, correctly rounded: exact arithmetic where both factors are exact doubles (|m| < 2^53,
// |e| <= 22: one rounding), else the decimal text read by from_chars.
double decimal_value(int64_t m, int64_t e) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  constexpr int64_t kExact = int64_t{1} << 53;
  if (m > -kExact && m < kExact && e >= -22 && e <= 22) {
    const auto md = static_cast<double>(m);
    return e >= 0 ? md * kPow10[e] : md / kPow10[-e];
  }
  // At most 20 characters of m, 'e' and 20 of e.
  char text[48];
  const auto mantissa = std::to_chars(text, text + 20, m);
  LADLE_ASSERT(mantissa.ec == std::errc(), "an int64 takes at most 20 characters");
  char* p = mantissa.ptr;
  *p = 'e';
  const auto exponent = std::to_chars(p + 1, text + sizeof(text), e);
  LADLE_ASSERT(exponent.ec == std::errc(), "an int64 takes at most 20 characters");
  double value = 0;
  std::from_chars(text, exponent.ptr, value);
  return value;
}

// The shortest decimal m * 10^e that reads back to `v`, when there is one within int64.
std::optional<std::pair<int64_t, int64_t>> decimal_of(double v) {
  if (!std::isfinite(v) || (v == 0 && std::signbit(v))) return std::nullopt;
  char text[64];
  const auto [end, error] =
      std::to_chars(text, text + sizeof(text), v, std::chars_format::scientific);
  if (error != std::errc()) return std::nullopt;
  // d[.ddd]e[+-]XX
  const char* p = text;
  const bool negative = *p == '-';
  if (negative) ++p;
  int64_t m = 0;
  int digits = 0;
  int after_point = 0;
  bool point = false;
  for (; p < end && *p != 'e'; ++p) {
    if (*p == '.') {
      point = true;
      continue;
    }
    if (++digits > 18) return std::nullopt;
    m = m * 10 + (*p - '0');
    if (point) ++after_point;
  }
  if (p == end) return std::nullopt;
  int exponent = 0;
  const char* from = p + 1;
  if (*from == '+') ++from;
  if (std::from_chars(from, end, exponent).ec != std::errc()) return std::nullopt;
  const auto pair = std::make_pair(negative ? -m : m, static_cast<int64_t>(exponent) - after_point);
  if (std::bit_cast<uint64_t>(decimal_value(pair.first, pair.second)) !=
      std::bit_cast<uint64_t>(v)) {
    return std::nullopt;
  }
  return pair;
}

void put_number(std::vector<uint8_t>& out, double v) {
  if (const auto decimal = decimal_of(v)) {
    put_varint(out, zigzag(decimal->second) << 1);
    put_varint(out, zigzag(decimal->first));
    return;
  }
  put_varint(out, 1);
  const auto bits = std::bit_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(bits >> (8 * i)));
}

double get_number(Cursor& in) {
  const uint64_t tag = in.varint();
  if (tag == 1) return in.raw_double();
  const int64_t e = unzigzag(tag >> 1);
  return decimal_value(unzigzag(in.varint()), e);
}

// What a record is encoded against: the fields of the records before it in its block.
struct State {
  int64_t step = 0;
  int64_t line = 0;
  int64_t tokens = 0;
  int64_t samples = 0;
  int64_t timestamp_digits = 0;
};

void encode(const Step& s, State& state, std::vector<uint8_t>& out) {
  uint64_t flags = 0;
  if (s.step_time_s) flags |= kHasStepTime;
  if (s.loss) flags |= kHasLoss;
  if (s.grad_norm) flags |= kHasGradNorm;
  if (s.learning_rate) flags |= kHasLearningRate;
  if (s.tokens) flags |= kHasTokens;
  if (s.timestamp) flags |= kHasTimestamp;
  if (s.samples) flags |= kHasSamples;
  if (s.iterations != 1) flags |= kHasIterations;
  if (s.skipped_iterations != 0) flags |= kHasSkipped;
  put_varint(out, flags);
  put_varint(out, zigzag(difference(s.step, state.step)));
  put_varint(out, zigzag(difference(s.line, state.line)));
  state.step = s.step;
  state.line = s.line;
  if (flags & kHasIterations) put_varint(out, zigzag(s.iterations));
  if (flags & kHasSkipped) put_varint(out, zigzag(s.skipped_iterations));
  if (s.step_time_s) put_number(out, *s.step_time_s);
  if (s.loss) put_number(out, *s.loss);
  if (s.grad_norm) put_number(out, *s.grad_norm);
  if (s.learning_rate) put_number(out, *s.learning_rate);
  if (s.tokens) {
    put_varint(out, zigzag(difference(*s.tokens, state.tokens)));
    state.tokens = *s.tokens;
  }
  if (s.samples) {
    put_varint(out, zigzag(difference(*s.samples, state.samples)));
    state.samples = *s.samples;
  }
  if (s.timestamp) {
    const uint64_t packed = s.timestamp.packed();
    const auto digits = static_cast<int64_t>(packed & kDigitsMask);
    const uint64_t count = (packed >> kFractionCountShift) & 0x1f;
    put_varint(out, zigzag(digits - state.timestamp_digits) << 5 | count);
    if (count > 0) put_varint(out, s.timestamp.fraction());
    state.timestamp_digits = digits;
  }
}

Step decode(Cursor& in, State& state) {
  Step s;
  const uint64_t flags = in.varint();
  s.step = add(state.step, unzigzag(in.varint()));
  s.line = static_cast<int32_t>(add(state.line, unzigzag(in.varint())));
  state.step = s.step;
  state.line = s.line;
  if (flags & kHasIterations) s.iterations = unzigzag(in.varint());
  if (flags & kHasSkipped) s.skipped_iterations = static_cast<int32_t>(unzigzag(in.varint()));
  if (flags & kHasStepTime) s.step_time_s = get_number(in);
  if (flags & kHasLoss) s.loss = get_number(in);
  if (flags & kHasGradNorm) s.grad_norm = get_number(in);
  if (flags & kHasLearningRate) s.learning_rate = get_number(in);
  if (flags & kHasTokens) {
    state.tokens = add(state.tokens, unzigzag(in.varint()));
    s.tokens = state.tokens;
  }
  if (flags & kHasSamples) {
    state.samples = add(state.samples, unzigzag(in.varint()));
    s.samples = state.samples;
  }
  if (flags & kHasTimestamp) {
    const uint64_t word = in.varint();
    const uint64_t count = word & 0x1f;
    state.timestamp_digits += unzigzag(word >> 5);
    const uint64_t fraction = count > 0 ? in.varint() : 0;
    s.timestamp = StepTimestamp::from_packed(
        kPresentBit | count << kFractionCountShift | static_cast<uint64_t>(state.timestamp_digits),
        fraction);
  }
  return s;
}

}  // namespace

StepSeries::StepSeries(const std::vector<Step>& steps) {
  for (const Step& step : steps) push_back(step);
}

void StepSeries::push_back(const Step& step) {
  if (tail_.capacity() < kBlock) tail_.reserve(kBlock);
  tail_.push_back(step);
  if (tail_.size() < kBlock) return;
  std::vector<uint8_t> bytes;
  bytes.reserve(kBlock * 32);
  State state;
  for (const Step& s : tail_) encode(s, state, bytes);
  blocks_.push_back(Block{tail_.front().step, std::vector<uint8_t>(bytes.begin(), bytes.end())});
  tail_.clear();
}

void StepSeries::decode_block(size_t block, std::vector<Step>& out, size_t count) const {
  const std::vector<uint8_t>& bytes = blocks_[block].bytes;
  Cursor in{bytes.data(), bytes.data() + bytes.size()};
  State state;
  out.clear();
  for (size_t k = 0; k < count; ++k) out.push_back(decode(in, state));
}

Step StepSeries::operator[](size_t k) const {
  LADLE_ASSERT(k < size(), "a record is read within the series");
  const size_t block = k / kBlock;
  if (block >= blocks_.size()) return tail_[k - blocks_.size() * kBlock];
  const std::vector<uint8_t>& bytes = blocks_[block].bytes;
  Cursor in{bytes.data(), bytes.data() + bytes.size()};
  State state;
  Step step;
  for (size_t i = 0; i <= k % kBlock; ++i) step = decode(in, state);
  return step;
}

Step StepSeries::back() const {
  LADLE_ASSERT(!empty(), "back() of a series with records");
  return tail_.empty() ? (*this)[size() - 1] : tail_.back();
}

std::optional<size_t> StepSeries::find(int64_t step) const {
  // The last block that starts at or before `step`, then its records (or the tail's) in order.
  const auto after = std::upper_bound(blocks_.begin(), blocks_.end(), step,
                                      [](int64_t s, const Block& b) { return s < b.first_step; });
  size_t from = 0;
  size_t to = 0;
  if (after == blocks_.end() && (tail_.empty() || step < tail_.front().step)) {
    if (blocks_.empty()) return std::nullopt;
    from = (blocks_.size() - 1) * kBlock;
    to = blocks_.size() * kBlock;
  } else if (after == blocks_.end()) {
    for (size_t k = 0; k < tail_.size(); ++k) {
      if (tail_[k].step == step) return blocks_.size() * kBlock + k;
    }
    return std::nullopt;
  } else {
    if (after == blocks_.begin()) return std::nullopt;
    from = static_cast<size_t>(after - blocks_.begin() - 1) * kBlock;
    to = from + kBlock;
  }
  const std::vector<uint8_t>& bytes = blocks_[from / kBlock].bytes;
  Cursor in{bytes.data(), bytes.data() + bytes.size()};
  State state;
  for (size_t k = from; k < to; ++k) {
    if (decode(in, state).step == step) return k;
  }
  return std::nullopt;
}

size_t StepSeries::encoded_bytes() const {
  size_t total = tail_.capacity() * sizeof(Step) + blocks_.capacity() * sizeof(Block);
  for (const Block& block : blocks_) total += block.bytes.capacity();
  return total;
}

Step StepSeries::const_iterator::operator*() const {
  const size_t block = index_ / kBlock;
  if (block >= series_->blocks_.size())
    return series_->tail_[index_ - series_->blocks_.size() * kBlock];
  if (decoded_block_ != block) {
    series_->decode_block(block, decoded_);
    decoded_block_ = block;
  }
  return decoded_[index_ % kBlock];
}

bool operator==(const StepSeries& a, const StepSeries& b) {
  if (a.size() != b.size()) return false;
  return std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace ladle::runlog
