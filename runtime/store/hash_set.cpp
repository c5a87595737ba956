// hash_set.cpp: see hash_set.hpp.
#include "runtime/store/hash_set.hpp"

namespace mirac {

namespace {

// Each byte's value as a lower-case hex digit, or 16 for any other byte.
constexpr std::array<std::uint8_t, 256> kHexValue = [] {
  std::array<std::uint8_t, 256> table{};
  for (auto& v : table) v = 16;
  for (int c = '0'; c <= '9'; ++c) table[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) table[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c - 'a' + 10);
  return table;
}();

}  // namespace

std::optional<HashDigest> hash_digest(std::string_view hash) {
  if (hash.size() != 64) return std::nullopt;
  HashDigest d{};
  std::uint8_t bad = 0;  // upper case or not hex: kept as text
  for (std::size_t word = 0; word < 4; ++word) {
    std::uint64_t w = 0;
    for (std::size_t i = word * 16; i < word * 16 + 16; ++i) {
      const std::uint8_t v = kHexValue[static_cast<unsigned char>(hash[i])];
      bad |= v;
      w = (w << 4) | (v & 15u);
    }
    d[word] = w;
  }
  if (bad & 16u) return std::nullopt;
  return d;
}

std::string digest_hex(const HashDigest& digest) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(64, '0');
  for (std::size_t word = 0; word < 4; ++word)
    for (std::size_t i = 0; i < 16; ++i) out[word * 16 + i] = kDigits[(digest[word] >> (60 - 4 * i)) & 15u];
  return out;
}

bool HashSet::insert(std::string_view hash) {
  if (auto d = hash_digest(hash)) return insert(*d);
  return others_.emplace(hash).second;
}

bool HashSet::count(std::string_view hash) const {
  if (auto d = hash_digest(hash)) return count(*d);
  return others_.count(std::string(hash)) > 0;
}

}  // namespace mirac
