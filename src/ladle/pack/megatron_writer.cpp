#include "ladle/pack/megatron_writer.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ladle/util/error.hpp"

namespace ladle::pack {

namespace {

constexpr char kIndexHeader[9] = {'M', 'M', 'I', 'D', 'I', 'D', 'X', '\0', '\0'};
constexpr uint64_t kIndexVersion = 1;
constexpr size_t kMaxUint16Vocab = 65500;

template <typename T>
void put_le(std::string& out, T value) {
  for (size_t i = 0; i < sizeof(T); ++i) {
    out += static_cast<char>((static_cast<uint64_t>(value) >> (8 * i)) & 0xFF);
  }
}

void sync_close(std::FILE* f, const std::string& path) {
  const bool ok = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    throw Error(ErrorKind::io, fmt::format("cannot write: {}", std::strerror(errno)), {path});
  }
}

}  // namespace

MegatronDtype token_dtype_for_vocab(size_t vocab_size) {
  return vocab_size < kMaxUint16Vocab ? MegatronDtype::uint16 : MegatronDtype::int32;
}

size_t dtype_size(MegatronDtype dtype) {
  switch (dtype) {
    case MegatronDtype::uint8:
      return 1;
    case MegatronDtype::uint16:
      return 2;
    case MegatronDtype::int32:
      return 4;
  }
  return 0;
}

MegatronWriter::MegatronWriter(std::string prefix, MegatronDtype dtype)
    : prefix_(std::move(prefix)), dtype_(dtype) {
  const std::string path = prefix_ + ".bin";
  bin_ = std::fopen(path.c_str(), "wb");
  if (!bin_) throw Error(ErrorKind::io, fmt::format("cannot create: {}", std::strerror(errno)), {path});
}

MegatronWriter::~MegatronWriter() {
  if (bin_) std::fclose(bin_);
}

void MegatronWriter::write_bin(const void* data, size_t bytes) {
  if (std::fwrite(data, 1, bytes, bin_) != bytes) {
    throw Error(ErrorKind::io, fmt::format("cannot write: {}", std::strerror(errno)),
                {prefix_ + ".bin"});
  }
  bin_hash_.update(std::string_view(static_cast<const char*>(data), bytes));
  bin_bytes_ += bytes;
}

void MegatronWriter::add(const int32_t* items, size_t count) {
  const size_t size = dtype_size(dtype_);
  buffer_.resize(count * size);
  for (size_t i = 0; i < count; ++i) {
    const auto v = static_cast<uint32_t>(items[i]);
    for (size_t b = 0; b < size; ++b) buffer_[i * size + b] = static_cast<char>((v >> (8 * b)) & 0xFF);
  }
  write_bin(buffer_.data(), buffer_.size());
  lengths_.push_back(static_cast<int32_t>(count));
}

void MegatronWriter::add(const uint8_t* items, size_t count) {
  LADLE_ASSERT(dtype_ == MegatronDtype::uint8, "byte sequences go to uint8 datasets");
  write_bin(items, count);
  lengths_.push_back(static_cast<int32_t>(count));
}

void MegatronWriter::finish() {
  sync_close(bin_, prefix_ + ".bin");
  bin_ = nullptr;
  bin_sha256_ = bin_hash_.hex_digest();
  std::string idx(kIndexHeader, sizeof(kIndexHeader));
  put_le<uint64_t>(idx, kIndexVersion);
  idx += static_cast<char>(dtype_);
  put_le<uint64_t>(idx, lengths_.size());
  put_le<uint64_t>(idx, lengths_.size() + 1);
  for (int32_t length : lengths_) put_le<uint32_t>(idx, static_cast<uint32_t>(length));
  uint64_t pointer = 0;
  for (int32_t length : lengths_) {
    put_le<uint64_t>(idx, pointer);
    pointer += static_cast<uint64_t>(length) * dtype_size(dtype_);
  }
  for (uint64_t d = 0; d <= lengths_.size(); ++d) put_le<uint64_t>(idx, d);
  const std::string path = prefix_ + ".idx";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(idx.data(), 1, idx.size(), f) != idx.size()) {
    if (f) std::fclose(f);
    throw Error(ErrorKind::io, fmt::format("cannot write: {}", std::strerror(errno)), {path});
  }
  sync_close(f, path);
  idx_sha256_ = util::sha256_hex(idx);
  idx_bytes_ = idx.size();
}

}  // namespace ladle::pack
