// hash_key.hpp: a hash-table hasher for request hashes (hex SHA-256). They are uniform
// already, so their first eight bytes are as good a key as a digest of all 64 and cost
// nothing to compute; judging and status look up 86,400 of them per pass.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string_view>

namespace mirac {

struct RequestHashKey {
  std::size_t operator()(std::string_view hash) const noexcept {
    if (hash.size() < sizeof(std::uint64_t)) return std::hash<std::string_view>{}(hash);
    std::uint64_t head = 0;
    std::memcpy(&head, hash.data(), sizeof head);
    return static_cast<std::size_t>(head * 0x9E3779B97F4A7C15ull);
  }
};

}  // namespace mirac
