// hash_set.hpp: request hashes held compactly. A request hash is 64 lower-case hex digits
// (SHA-256); kept as its 32 bytes it needs no allocation and about half the memory of a
// string, which counts when a store at ten times MIRA holds some 860,000 answers (issue
// 29). Anything else a store may hold as a hash is kept as its text, so the two forms
// never meet.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "runtime/store/hash_key.hpp"

namespace mirac {

/// The 32 bytes of a hex SHA-256, as four words.
using HashDigest = std::array<std::uint64_t, 4>;

struct HashDigestKey {
  // The digest is uniform already: its first word is as good a key as any.
  std::size_t operator()(const HashDigest& d) const noexcept { return static_cast<std::size_t>(d[0] * 0x9E3779B97F4A7C15ull); }
};

/// The digest of a 64-digit lower-case hex hash; none for any other text.
std::optional<HashDigest> hash_digest(std::string_view hash);
/// The 64 lower-case hex digits of a digest (hash_digest's inverse).
std::string digest_hex(const HashDigest& digest);

/// A set of request hashes (the store's done answers, say).
class HashSet {
 public:
  /// Whether `hash` was not there yet.
  bool insert(std::string_view hash);
  bool insert(const HashDigest& digest) { return digests_.insert(digest).second; }
  bool count(std::string_view hash) const;
  bool count(const HashDigest& digest) const { return digests_.count(digest) > 0; }
  std::size_t size() const { return digests_.size() + others_.size(); }
  bool empty() const { return size() == 0; }
  void reserve(std::size_t n) { digests_.reserve(n); }

 private:
  std::unordered_set<HashDigest, HashDigestKey> digests_;
  std::unordered_set<std::string, RequestHashKey> others_;
};

/// Request hashes to values (the store's row of each answer).
template <class Value>
class HashMap {
 public:
  /// Adds `hash` unless it is there already (as unordered_map::emplace).
  void emplace(std::string_view hash, Value value) {
    if (auto d = hash_digest(hash)) digests_.emplace(*d, std::move(value));
    else others_.emplace(std::string(hash), std::move(value));
  }
  void emplace(const HashDigest& digest, Value value) { digests_.emplace(digest, std::move(value)); }
  Value* find(const HashDigest& digest) {
    auto it = digests_.find(digest);
    return it == digests_.end() ? nullptr : &it->second;
  }
  /// The value of `hash`, or null.
  Value* find(std::string_view hash) {
    if (auto d = hash_digest(hash)) {
      auto it = digests_.find(*d);
      return it == digests_.end() ? nullptr : &it->second;
    }
    auto it = others_.find(std::string(hash));
    return it == others_.end() ? nullptr : &it->second;
  }
  std::size_t size() const { return digests_.size() + others_.size(); }
  bool empty() const { return size() == 0; }
  void reserve(std::size_t n) { digests_.reserve(n); }
  void clear() {
    digests_.clear();
    others_.clear();
  }

 private:
  std::unordered_map<HashDigest, Value, HashDigestKey> digests_;
  std::unordered_map<std::string, Value, RequestHashKey> others_;
};

}  // namespace mirac
