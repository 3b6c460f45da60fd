#pragma once
// Megatron-LM's indexed dataset (`.bin` + `.idx`, the "MMIDIDX" format of
// megatron/core/datasets/indexed_dataset.py), written one sequence at a time.
//
// .bin: the sequences' items back to back, little-endian, in the dataset's dtype.
// .idx: the 9 bytes "MMIDIDX\0\0"; version, uint64 LE = 1; dtype code, uint8 (1 uint8, 2 int8,
// 3 int16, 4 int32, 5 int64, 6 float64, 7 float32, 8 uint16); sequence count, uint64 LE; document
// count, uint64 LE; then int32 LE sequence lengths (items), int64 LE sequence byte offsets into
// .bin, and int64 LE document indices: 0 followed by the running sequence count after each
// document. ladle writes every row as one sequence and one document, so the document indices are
// 0, 1, ..., rows.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ladle/util/sha256.hpp"

namespace ladle::pack {

/// Megatron dtype codes ladle writes.
enum class MegatronDtype : uint8_t { uint8 = 1, int32 = 4, uint16 = 8 };

/// The token dtype Megatron's preprocessing picks for a vocabulary (DType.optimal_dtype): uint16
/// below 65,500 ids, int32 otherwise.
MegatronDtype token_dtype_for_vocab(size_t vocab_size);

/// Bytes per item of `dtype`.
size_t dtype_size(MegatronDtype dtype);

/// Streams sequences into `<prefix>.bin` and writes `<prefix>.idx` on finish(); hashes both.
class MegatronWriter {
 public:
  /// Opens `<prefix>.bin` for writing. Throws Error(io).
  MegatronWriter(std::string prefix, MegatronDtype dtype);
  ~MegatronWriter();
  MegatronWriter(const MegatronWriter&) = delete;
  MegatronWriter& operator=(const MegatronWriter&) = delete;

  /// Appends one sequence (one document) of `count` items, converted to the dataset's dtype (the
  /// uint8 overload is for uint8 datasets only). Throws Error(io).
  void add(const int32_t* items, size_t count);
  void add(const uint8_t* items, size_t count);

  /// Flushes and syncs `.bin`, writes and syncs `.idx`. Throws Error(io).
  void finish();

  const std::string& bin_sha256() const { return bin_sha256_; }
  const std::string& idx_sha256() const { return idx_sha256_; }
  uint64_t bin_bytes() const { return bin_bytes_; }
  uint64_t idx_bytes() const { return idx_bytes_; }

 private:
  void write_bin(const void* data, size_t bytes);
  std::string prefix_;
  MegatronDtype dtype_;
  std::FILE* bin_ = nullptr;
  util::Sha256 bin_hash_;
  std::vector<int32_t> lengths_;
  std::vector<char> buffer_;
  uint64_t bin_bytes_ = 0;
  uint64_t idx_bytes_ = 0;
  std::string bin_sha256_;
  std::string idx_sha256_;
};

}  // namespace ladle::pack
