#include "runtime/json/json_string.hpp"

#include <nlohmann/json.hpp>

namespace mirac {
namespace {

// Length of the well-formed UTF-8 sequence (RFC 3629, as nlohmann's decoder accepts) that
// starts at `p`, or 0 when it is not one: overlong forms, surrogates and code points past
// U+10FFFF are refused.
std::size_t utf8_sequence(const unsigned char* p, const unsigned char* end) {
  auto in = [](unsigned char c, unsigned char lo, unsigned char hi) { return c >= lo && c <= hi; };
  const std::size_t left = static_cast<std::size_t>(end - p);
  const unsigned char c = p[0];
  if (in(c, 0xC2, 0xDF)) return left >= 2 && in(p[1], 0x80, 0xBF) ? 2 : 0;
  if (in(c, 0xE0, 0xEF)) {
    if (left < 3) return 0;
    const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return in(p[1], lo, hi) && in(p[2], 0x80, 0xBF) ? 3 : 0;
  }
  if (in(c, 0xF0, 0xF4)) {
    if (left < 4) return 0;
    const unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return in(p[1], lo, hi) && in(p[2], 0x80, 0xBF) && in(p[3], 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  out.reserve(out.size() + text.size() + 2);
  out += '"';
  append_json_escaped(out, text);
  out += '"';
}

void append_json_escaped(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::size_t start = out.size();
  out.reserve(out.size() + text.size());
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    // A run of bytes that need nothing (well-formed UTF-8 included), copied at once.
    const unsigned char* run = p;
    while (p < end) {
      const unsigned char c = *p;
      if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
        ++p;
      } else if (const std::size_t n = c >= 0x80 ? utf8_sequence(p, end) : 0; n > 0) {
        p += n;
      } else {
        break;
      }
    }
    out.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p - run));
    if (p == end) break;
    const unsigned char c = *p;
    if (c >= 0x80) {  // not well-formed UTF-8
      out.resize(start);
      const std::string quoted = nlohmann::json(std::string(text)).dump();  // throws nlohmann's error
      out.append(quoted, 1, quoted.size() - 2);
      return;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
    }
    ++p;
  }
}

void append_json(std::string& out, const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, key);
        out += ':';
        append_json(out, item);
      }
      out += '}';
      return;
    }
    case nlohmann::json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& item : value) {
        if (!first) out += ',';
        first = false;
        append_json(out, item);
      }
      out += ']';
      return;
    }
    case nlohmann::json::value_t::string:
      append_json_string(out, value.get_ref<const std::string&>());
      return;
    default:
      out += value.dump();
  }
}

std::string dump_json(const nlohmann::json& value) {
  std::string out;
  append_json(out, value);
  return out;
}

}  // namespace mirac
