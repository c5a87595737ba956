// hash_set.cpp: see hash_set.hpp.
#include "runtime/store/hash_set.hpp"

namespace mirac {

std::optional<HashDigest> hash_digest(std::string_view hash) {
  if (hash.size() != 64) return std::nullopt;
  HashDigest d{};
  for (std::size_t i = 0; i < 64; ++i) {
    const char c = hash[i];
    std::uint64_t nibble = 0;
    if (c >= '0' && c <= '9') nibble = static_cast<std::uint64_t>(c - '0');
    else if (c >= 'a' && c <= 'f') nibble = static_cast<std::uint64_t>(c - 'a' + 10);
    else return std::nullopt;  // upper case or not hex: kept as text
    d[i / 16] = (d[i / 16] << 4) | nibble;
  }
  return d;
}

void HashSet::insert(std::string_view hash) {
  if (auto d = hash_digest(hash)) digests_.insert(*d);
  else others_.emplace(hash);
}

bool HashSet::count(std::string_view hash) const {
  if (auto d = hash_digest(hash)) return digests_.count(*d) > 0;
  return others_.count(std::string(hash)) > 0;
}

}  // namespace mirac
