#include "ladle/util/sha256.hpp"

#include <openssl/evp.h>

#include "ladle/util/error.hpp"

namespace ladle::util {

struct Sha256::State {
  EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : state_(std::make_unique<State>()) {
  state_->ctx = EVP_MD_CTX_new();
  LADLE_ASSERT(state_->ctx != nullptr, "EVP_MD_CTX_new failed");
  LADLE_ASSERT(EVP_DigestInit_ex(state_->ctx, EVP_sha256(), nullptr) == 1, "sha256 init failed");
}

Sha256::~Sha256() { EVP_MD_CTX_free(state_->ctx); }

void Sha256::update(std::string_view bytes) {
  LADLE_ASSERT(EVP_DigestUpdate(state_->ctx, bytes.data(), bytes.size()) == 1, "sha256 update");
}

std::string Sha256::hex_digest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  LADLE_ASSERT(EVP_DigestFinal_ex(state_->ctx, digest, &length) == 1, "sha256 final");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(length * 2, '0');
  for (unsigned int i = 0; i < length; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 15];
  }
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 hash;
  hash.update(bytes);
  return hash.hex_digest();
}

}  // namespace ladle::util
