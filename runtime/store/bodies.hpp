// bodies.hpp: how the store keeps request and response bodies small without losing a byte.
// A MIRA store repeats a few long strings tens of thousands of times (the judge's
// instructions in every judge request, the mitigation arm's system prompt in each of its
// requests) and holds every answer twice (its text, and inside the raw response). A stored
// body is its original with such string literals replaced by references: a long literal
// by the SHA-256 of a shared part (kept once, in table `parts`), the answer's own text by a
// reference to the row's `text`. Decoding gives the original byte for byte; encoding checks
// that it does before it trusts the result, and otherwise keeps the body verbatim.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mirac {

struct EncodedBody {
  bool encoded = false;  ///< false: `body` is the original, verbatim
  std::string body;
  /// The shared parts the body refers to: (id, the literal as it stood, quotes included).
  std::vector<std::pair<std::string, std::string>> parts;
};

/// Encodes `body`: each JSON string literal at least `min_part` bytes long becomes a shared
/// part, and a literal that is exactly `own_text` as JSON writes it becomes a reference to
/// it. A body that holds the reference marker byte (0x01, never raw in valid JSON) is kept
/// verbatim, as is one that would not decode to itself.
EncodedBody encode_body(std::string_view body, std::string_view own_text, std::size_t min_part);

/// The original of an encoded body. `part` returns a shared part's literal by id (false when
/// the store has none: the result is then incomplete and decode_body returns false).
bool decode_body(std::string_view stored, std::string_view own_text,
                 const std::function<bool(const std::string& id, std::string& literal)>& part, std::string& out);

}  // namespace mirac
