#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace ladle::util {

/// Incremental SHA-256 (OpenSSL libcrypto underneath).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view bytes);
  /// Lowercase hex digest; the object cannot be updated afterwards.
  std::string hex_digest();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Lowercase hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace ladle::util
