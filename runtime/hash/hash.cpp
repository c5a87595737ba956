#include "runtime/hash/hash.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace mirac {

namespace {

std::string hex_of(const unsigned char* digest, unsigned int length) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 0xF];
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("sha256_hex: EVP_Digest failed");
  return hex_of(digest, length);
}

struct Sha256::Context {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~Context() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : ctx_(std::make_unique<Context>()) {
  if (!ctx_->md || EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("Sha256: EVP_DigestInit_ex failed");
}

Sha256::Sha256(const Sha256& other) : ctx_(std::make_unique<Context>()) {
  if (!ctx_->md || !other.ctx_ || EVP_MD_CTX_copy_ex(ctx_->md, other.ctx_->md) != 1)
    throw std::runtime_error("Sha256: EVP_MD_CTX_copy_ex failed");
}

Sha256& Sha256::operator=(const Sha256& other) {
  if (this != &other) *this = Sha256(other);
  return *this;
}

Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;
Sha256::~Sha256() = default;

Sha256& Sha256::update(std::string_view data) {
  if (EVP_DigestUpdate(ctx_->md, data.data(), data.size()) != 1) throw std::runtime_error("Sha256: EVP_DigestUpdate failed");
  return *this;
}

std::string Sha256::hex() const {
  Sha256 last(*this);  // finishing a digest ends its context; this one may go on
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(last.ctx_->md, digest, &length) != 1) throw std::runtime_error("Sha256: EVP_DigestFinal_ex failed");
  return hex_of(digest, length);
}

}  // namespace mirac
