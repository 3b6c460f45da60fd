#pragma once
// step_series.hpp: StepSeries, the records of a log held compactly.
//
// A 1 GB log holds millions of records; as Steps (88 bytes each) they take more memory than a
// command may (README, "Logs at scale"). A StepSeries holds them encoded, about 15 to 30 bytes a
// record, in blocks of kBlock records: each field as its difference from the record before
// (step, line, samples, tokens, the timestamp's digits), a number as the shortest decimal digits
// that read back to it exactly (2.31 as 231 and -2), and what a record does not print as one bit.
// The encoding is lossless: every Step reads back bit for bit (NaN payloads, -0.0 and
// infinities are stored as their 8 bytes). Records are appended and read back as Steps, by index
// or in order; nothing is changed in place.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <vector>

#include "ladle/runlog/step.hpp"

namespace ladle::runlog {

class StepSeries {
 public:
  static constexpr size_t kBlock = 64;  ///< records per encoded block

  StepSeries() = default;
  StepSeries(const std::vector<Step>& steps);  // NOLINT(google-explicit-constructor)

  void push_back(const Step& step);
  size_t size() const { return blocks_.size() * kBlock + tail_.size(); }
  bool empty() const { return size() == 0; }
  /// The record at `k` (< size()), decoded: O(kBlock).
  Step operator[](size_t k) const;
  Step front() const { return (*this)[0]; }
  Step back() const;
  /// The index of the record whose `step` is `step`, for a series sorted by step (a RunLog's is).
  std::optional<size_t> find(int64_t step) const;
  /// Bytes held by the encoded records (for the memory bench).
  size_t encoded_bytes() const;

  /// Reads the records in order, decoding each block once; `*it` is a Step by value.
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Step;
    using difference_type = std::ptrdiff_t;
    using reference = Step;
    using pointer = void;

    const_iterator() = default;
    Step operator*() const;
    const_iterator& operator++() {
      ++index_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++index_;
      return before;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.index_ == b.index_;
    }

   private:
    friend class StepSeries;
    const_iterator(const StepSeries* series, size_t index) : series_(series), index_(index) {}
    const StepSeries* series_ = nullptr;
    size_t index_ = 0;
    mutable std::vector<Step> decoded_;  ///< the block of index_, once read
    mutable size_t decoded_block_ = SIZE_MAX;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

  /// As std::vector<Step>: the same records in the same order (a NaN is unequal to itself).
  friend bool operator==(const StepSeries& a, const StepSeries& b);

 private:
  struct Block {
    int64_t first_step = 0;
    std::vector<uint8_t> bytes;
  };
  void decode_block(size_t block, std::vector<Step>& out, size_t count = kBlock) const;

  std::vector<Block> blocks_;
  std::vector<Step> tail_;  ///< the last records, fewer than kBlock, not yet encoded
};

}  // namespace ladle::runlog
