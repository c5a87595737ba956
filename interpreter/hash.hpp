// hash.hpp: content hashes (SHA-256, via OpenSSL's libcrypto, which libcurl already uses).
#pragma once

#include <string>
#include <string_view>

namespace mirac {

/// Lower-case hex SHA-256 of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace mirac
