#include "runtime/store/bodies.hpp"

#include <openssl/evp.h>

#include <stdexcept>

#include "runtime/json/json_string.hpp"

namespace mirac {
namespace {

constexpr char kMarker = '\x01';
constexpr std::string_view kOwnText = "T";  ///< reference to the row's own text
constexpr std::string_view kQuoted = "Q";   ///< reference to the quoted answer's text
/// A quoted text shorter than this is not looked for: a reference would save little, and
/// a short text can occur by chance.
constexpr std::size_t kMinQuoted = 16;

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

// `text` as JSON writes it, with (whole) or without (inside) its quotes; empty when it is
// not UTF-8, since then it was never written that way and there is nothing to refer to.
std::string as_json(std::string_view text, bool whole) {
  std::string out;
  if (text.empty()) return out;
  try {
    whole ? append_json_string(out, text) : append_json_escaped(out, text);
  } catch (const std::exception&) {
    out.clear();
  }
  return out;
}

struct Writer {
  EncodedBody& to;
  std::string& out;
  void reference(std::string_view id) {
    out += kMarker;
    out += id;
    out += kMarker;
  }
  // `bytes` as a shared part when it is long enough, else as they are.
  void part_or_bytes(std::string_view bytes, std::size_t min_part) {
    if (bytes.size() < min_part) {
      out.append(bytes);
      return;
    }
    std::string id = sha256_hex(bytes);
    reference(id);
    to.parts.emplace_back(std::move(id), std::string(bytes));
  }
};

}  // namespace

EncodedBody encode_body(std::string_view body, const BodyTexts& texts, const PartSizes& sizes) {
  EncodedBody result;
  result.body = std::string(body);
  if (body.find(kMarker) != std::string_view::npos) return result;
  const std::string own_literal = as_json(texts.own, true);
  const std::string quoted = texts.quoted.size() >= kMinQuoted ? as_json(texts.quoted, false) : std::string();
  std::string encoded;
  encoded.reserve(body.size());
  Writer w{result, encoded};
  std::size_t copied = 0;
  for (std::size_t i = body.find('"'); i != std::string_view::npos; i = body.find('"', i)) {
    const std::size_t end = literal_end(body, i);
    if (end == std::string_view::npos) break;
    const std::string_view literal = body.substr(i, end - i);
    const std::size_t quote = quoted.empty() ? std::string_view::npos : literal.find(quoted);
    if (!own_literal.empty() && literal == own_literal) {
      encoded.append(body.substr(copied, i - copied));
      w.reference(kOwnText);
      copied = end;
    } else if (quote != std::string_view::npos) {
      encoded.append(body.substr(copied, i - copied));
      std::size_t from = 0;
      for (std::size_t at = quote; at != std::string_view::npos; at = literal.find(quoted, from)) {
        w.part_or_bytes(literal.substr(from, at - from), sizes.piece);
        w.reference(kQuoted);
        from = at + quoted.size();
      }
      w.part_or_bytes(literal.substr(from), sizes.piece);
      result.quotes = true;
      copied = end;
    } else if (literal.size() >= sizes.literal) {
      encoded.append(body.substr(copied, i - copied));
      w.part_or_bytes(literal, sizes.literal);
      copied = end;
    }
    i = end;
  }
  auto verbatim = [&] {
    result.parts.clear();
    result.quotes = false;
    return result;
  };
  if (copied == 0) return verbatim();  // nothing worth a reference
  encoded.append(body.substr(copied));
  // Trusted only if it decodes to the original.
  std::string check;
  auto from_parts = [&](const std::string& id, std::string& literal) {
    for (const auto& [part_id, text] : result.parts)
      if (part_id == id) return literal = text, true;
    return false;
  };
  if (!decode_body(encoded, texts, from_parts, check) || check != body) return verbatim();
  result.encoded = true;
  result.body = std::move(encoded);
  return result;
}

bool decode_body(std::string_view stored, const BodyTexts& texts,
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
      append_json_string(out, texts.own);
    } else if (id == kQuoted) {
      append_json_escaped(out, texts.quoted);
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
