#include "runtime/store/bodies.hpp"

#include <openssl/evp.h>

#include <stdexcept>

#include "runtime/json/json_string.hpp"

namespace mirac {
namespace {

constexpr char kMarker = '\x01';
constexpr std::string_view kOwnText = "T";  ///< reference to the row's own text

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("store: SHA-256 failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xF];
  }
  return out;
}

// The end (one past the closing quote) of the string literal opening at `body[start]`, or
// npos when it never closes.
std::size_t literal_end(std::string_view body, std::size_t start) {
  for (std::size_t i = start + 1; i < body.size(); ++i) {
    if (body[i] == '\\') ++i;
    else if (body[i] == '"') return i + 1;
  }
  return std::string_view::npos;
}

}  // namespace

EncodedBody encode_body(std::string_view body, std::string_view own_text, std::size_t min_part) {
  EncodedBody out;
  out.body = std::string(body);
  if (body.find(kMarker) != std::string_view::npos) return out;
  std::string own_literal;
  if (!own_text.empty()) {
    try {
      append_json_string(own_literal, own_text);
    } catch (const std::exception&) {
      own_literal.clear();  // not UTF-8: never written that way, so nothing to refer to
    }
  }
  std::string encoded;
  encoded.reserve(body.size());
  std::size_t copied = 0;
  for (std::size_t i = body.find('"'); i != std::string_view::npos; i = body.find('"', i)) {
    const std::size_t end = literal_end(body, i);
    if (end == std::string_view::npos) break;
    const std::string_view literal = body.substr(i, end - i);
    std::string reference;
    if (!own_literal.empty() && literal == own_literal) {
      reference = kOwnText;
    } else if (literal.size() >= min_part) {
      reference = sha256_hex(literal);
      out.parts.emplace_back(reference, std::string(literal));
    }
    if (!reference.empty()) {
      encoded.append(body.substr(copied, i - copied));
      encoded += kMarker;
      encoded += reference;
      encoded += kMarker;
      copied = end;
    }
    i = end;
  }
  if (copied == 0) {  // nothing worth a reference
    out.parts.clear();
    return out;
  }
  encoded.append(body.substr(copied));
  // Trusted only if it decodes to the original.
  std::string check;
  auto from_parts = [&](const std::string& id, std::string& literal) {
    for (const auto& [part_id, text] : out.parts)
      if (part_id == id) return literal = text, true;
    return false;
  };
  if (!decode_body(encoded, own_text, from_parts, check) || check != body) {
    out.parts.clear();
    return out;
  }
  out.encoded = true;
  out.body = std::move(encoded);
  return out;
}

bool decode_body(std::string_view stored, std::string_view own_text,
                 const std::function<bool(const std::string& id, std::string& literal)>& part, std::string& out) {
  out.clear();
  out.reserve(stored.size());
  std::size_t at = 0;
  while (at < stored.size()) {
    const std::size_t open = stored.find(kMarker, at);
    if (open == std::string_view::npos) break;
    const std::size_t close = stored.find(kMarker, open + 1);
    if (close == std::string_view::npos) return false;
    out.append(stored.substr(at, open - at));
    const std::string id(stored.substr(open + 1, close - open - 1));
    if (id == kOwnText) {
      append_json_string(out, own_text);
    } else {
      std::string literal;
      if (!part(id, literal)) return false;
      out += literal;
    }
    at = close + 1;
  }
  out.append(stored.substr(at));
  return true;
}

}  // namespace mirac
