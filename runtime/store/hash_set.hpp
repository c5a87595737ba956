// hash_set.hpp: request hashes held compactly. A request hash is 64 lower-case hex digits
// (SHA-256); kept as its 32 bytes it needs no allocation and about half the memory of a
// string, which counts when a store at ten times MIRA holds some 860,000 answers (issue
// 29). Anything else a store may hold as a hash is kept as its text, so the two forms
// never meet.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

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

/// Digests to values in one flat array, probed linearly: no allocation per entry and one
/// cache line per look-up, where a node-based map chased a pointer per entry and was the
/// part of reading a store that grew faster than the store (at ten times MIRA, about 20
/// times its 1x cost for 10 times the entries). Entries are never erased.
template <class Value>
class DigestTable {
 public:
  /// The value of `key` and whether it is new (as unordered_map::emplace).
  std::pair<Value*, bool> emplace(const HashDigest& key, Value value) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow(size_ + 1);
    std::size_t i = home(key);
    while (used_[i]) {
      if (slots_[i].first == key) return {&slots_[i].second, false};
      i = i + 1 == slots_.size() ? 0 : i + 1;
    }
    used_[i] = 1;
    slots_[i] = {key, std::move(value)};
    ++size_;
    return {&slots_[i].second, true};
  }
  /// Emplaces `entries` in order, as emplace() one by one would, each one's slot asked of
  /// memory a few entries ahead: in a table larger than the cache (ten times MIRA's row
  /// map is 28 MB) the misses overlap instead of each waiting its turn, which made filling
  /// the table from a store scan grow faster than the store.
  void emplace_all(std::vector<std::pair<HashDigest, Value>>& entries) {
    constexpr std::size_t kAhead = 8;
    reserve(size_ + entries.size());  // no growth below: the slots asked for stay put
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i + kAhead < entries.size()) prefetch(entries[i + kAhead].first);
      emplace(entries[i].first, std::move(entries[i].second));
    }
  }
  /// Asks memory for `key`'s slot, ahead of a find() or emplace() of it.
  void prefetch(const HashDigest& key) const {
    if (slots_.empty()) return;
    const std::size_t i = home(key);
    __builtin_prefetch(&slots_[i]);
    __builtin_prefetch(&used_[i]);
  }
  Value* find(const HashDigest& key) { return const_cast<Value*>(std::as_const(*this).find(key)); }
  const Value* find(const HashDigest& key) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(key); used_[i]; i = i + 1 == slots_.size() ? 0 : i + 1)
      if (slots_[i].first == key) return &slots_[i].second;
    return nullptr;
  }
  std::size_t size() const { return size_; }
  /// Room for `n` entries without growing.
  void reserve(std::size_t n) {
    if (n * 4 > slots_.size() * 3) grow(n);
  }
  void clear() {
    slots_ = {};
    used_ = {};
    size_ = 0;
  }

 private:
  // A digest is uniform already: its first word scaled to the table is as good a place as any.
  std::size_t home(const HashDigest& key) const {
    return static_cast<std::size_t>(((key[0] >> 32) * static_cast<std::uint64_t>(slots_.size())) >> 32);
  }
  void grow(std::size_t n) {
    // At most three quarters full; twice the size each time, so that growing costs no more
    // than a constant per entry.
    std::size_t capacity = std::max<std::size_t>({16, n * 4 / 3 + 1, slots_.size() * 2});
    capacity = std::min<std::size_t>(capacity, std::size_t{1} << 32);  // home() scales a 32-bit word
    std::vector<std::pair<HashDigest, Value>> slots(capacity);
    std::vector<std::uint8_t> used(capacity, 0);
    std::swap(slots, slots_);
    std::swap(used, used_);
    size_ = 0;
    for (std::size_t i = 0; i < slots.size(); ++i)
      if (used[i]) emplace(slots[i].first, std::move(slots[i].second));
  }
  std::vector<std::pair<HashDigest, Value>> slots_;
  std::vector<std::uint8_t> used_;
  std::size_t size_ = 0;
};

/// A set of request hashes (the store's done answers, say).
class HashSet {
  struct Present {};

 public:
  /// Adds the hashes of a stream (a store scan) a chunk at a time, through
  /// DigestTable::emplace_all; the rest at flush() or when it ends.
  class Inserter {
   public:
    explicit Inserter(HashSet& set) : set_(set) { chunk_.reserve(kChunk); }
    ~Inserter() { flush(); }
    Inserter(const Inserter&) = delete;
    Inserter& operator=(const Inserter&) = delete;
    void insert(std::string_view hash) {
      if (auto d = hash_digest(hash)) {
        chunk_.emplace_back(*d, Present{});
        if (chunk_.size() == kChunk) flush();
      } else {
        set_.others_.emplace(hash);
      }
    }
    void flush() {
      set_.digests_.emplace_all(chunk_);
      chunk_.clear();
    }

   private:
    static constexpr std::size_t kChunk = 4096;
    HashSet& set_;
    std::vector<std::pair<HashDigest, Present>> chunk_;
  };

  /// Whether `hash` was not there yet.
  bool insert(std::string_view hash);
  bool insert(const HashDigest& digest) { return digests_.emplace(digest, Present{}).second; }
  bool count(std::string_view hash) const;
  bool count(const HashDigest& digest) const { return digests_.find(digest) != nullptr; }
  std::size_t size() const { return digests_.size() + others_.size(); }
  bool empty() const { return size() == 0; }
  void reserve(std::size_t n) { digests_.reserve(n); }

 private:
  DigestTable<Present> digests_;
  std::unordered_set<std::string, RequestHashKey> others_;
};

/// Request hashes to values (the store's row of each answer).
template <class Value>
class HashMap {
 public:
  /// Adds the entries of a stream (a store scan) a chunk at a time, through
  /// DigestTable::emplace_all; the rest at flush() or when it ends.
  class Emplacer {
   public:
    explicit Emplacer(HashMap& map) : map_(map) { chunk_.reserve(kChunk); }
    ~Emplacer() { flush(); }
    Emplacer(const Emplacer&) = delete;
    Emplacer& operator=(const Emplacer&) = delete;
    void emplace(std::string_view hash, Value value) {
      if (auto d = hash_digest(hash)) {
        chunk_.emplace_back(*d, std::move(value));
        if (chunk_.size() == kChunk) flush();
      } else {
        map_.others_.emplace(std::string(hash), std::move(value));
      }
    }
    void flush() {
      map_.digests_.emplace_all(chunk_);
      chunk_.clear();
    }

   private:
    static constexpr std::size_t kChunk = 4096;
    HashMap& map_;
    std::vector<std::pair<HashDigest, Value>> chunk_;
  };

  /// Adds `hash` unless it is there already (as unordered_map::emplace).
  void emplace(std::string_view hash, Value value) {
    if (auto d = hash_digest(hash)) digests_.emplace(*d, std::move(value));
    else others_.emplace(std::string(hash), std::move(value));
  }
  void emplace(const HashDigest& digest, Value value) { digests_.emplace(digest, std::move(value)); }
  Value* find(const HashDigest& digest) { return digests_.find(digest); }
  const Value* find(const HashDigest& digest) const { return digests_.find(digest); }
  /// Asks memory for `digest`'s slot, ahead of a find() of it.
  void prefetch(const HashDigest& digest) const { digests_.prefetch(digest); }
  /// The value of `hash`, or null.
  Value* find(std::string_view hash) {
    if (auto d = hash_digest(hash)) return digests_.find(*d);
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
  DigestTable<Value> digests_;
  std::unordered_map<std::string, Value, RequestHashKey> others_;
};

}  // namespace mirac
