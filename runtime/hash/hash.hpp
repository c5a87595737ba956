// hash.hpp: content hashes (SHA-256, via OpenSSL's libcrypto, which libcurl already uses).
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace mirac {

/// Lower-case hex SHA-256 of `data`.
std::string sha256_hex(std::string_view data);

/// SHA-256 fed in pieces. A copy carries the state so far: many texts that share a long
/// beginning hash it once (a judge's messages for one prompt differ only from the answer on).
class Sha256 {
 public:
  Sha256();
  Sha256(const Sha256& other);
  Sha256& operator=(const Sha256& other);
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;
  ~Sha256();

  Sha256& update(std::string_view data);
  /// Lower-case hex digest of everything fed so far; this state is left as it was.
  std::string hex() const;

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

}  // namespace mirac
