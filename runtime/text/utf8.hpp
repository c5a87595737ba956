// utf8.hpp: reading UTF-8 text one code point at a time, for the places that measure
// prompts and answers by character (the offline model's features, the providers' token
// estimate). One decoder, so that a broken byte counts the same everywhere.
#pragma once

#include <cstddef>
#include <string_view>

namespace mirac {

/// The code point at `i` of UTF-8 `s`, advancing `i` past it. A lead byte that is not one,
/// or a sequence cut off by the end of `s`, reads as U+FFFD and advances one byte.
inline char32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b = byte(i);
  int extra = b < 0x80 ? 0 : (b >> 5) == 0x6 ? 1 : (b >> 4) == 0xE ? 2 : (b >> 3) == 0x1E ? 3 : -1;
  if (extra < 0 || (extra > 0 && i + static_cast<std::size_t>(extra) >= s.size())) {
    ++i;
    return 0xFFFD;
  }
  char32_t cp = extra == 0 ? b : b & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) cp = (cp << 6) | (byte(i + static_cast<std::size_t>(k)) & 0x3F);
  i += static_cast<std::size_t>(extra) + 1;
  return cp;
}

}  // namespace mirac
