// bodies.hpp: how the store keeps request and response bodies small without losing a byte.
// A MIRA store repeats a few long strings tens of thousands of times (the judge's
// instructions in every judge request, the mitigation arm's system prompt in each of its
// requests), holds every answer twice (its text, and inside the raw response) and, in each
// judge request, a third time (the judge reads the answer). A stored body is its original
// with such strings replaced by references: a long string literal by the SHA-256 of a shared
// part (kept once, in table `parts`), the answer's own text by a reference to the row's
// `text`, and the judged answer's text by a reference to that answer's `text`; what a judge
// message holds around the answer (the prompt and its context before, the checklist after,
// the same for every model and arm) becomes shared parts in turn. Decoding gives the
// original byte for byte; encoding checks that it does before it trusts the result, and
// otherwise keeps the body verbatim.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mirac {

struct EncodedBody {
  bool encoded = false;  ///< false: `body` is the original, verbatim
  bool quotes = false;   ///< the body refers to the quoted text (decoding needs it)
  std::string body;
  /// The shared parts the body refers to: (id, the bytes it stands for).
  std::vector<std::pair<std::string, std::string>> parts;
};

/// Texts a body may refer to rather than hold.
struct BodyTexts {
  std::string_view own;     ///< the row's own answer text: as a whole string literal
  std::string_view quoted;  ///< the text of the answer a request quotes: inside a literal
};

/// What becomes a shared part: a whole string literal at least `literal` bytes long, and a
/// piece of a literal around a quoted text at least `piece` bytes long.
struct PartSizes {
  std::size_t literal = std::string::npos;
  std::size_t piece = std::string::npos;
};

/// Encodes `body`: a literal that is exactly `texts.own` as JSON writes it becomes a
/// reference to it; in any other literal each occurrence of `texts.quoted` (escaped as JSON
/// escapes it) becomes a reference to it, and the pieces around them of at least
/// `sizes.piece` bytes become shared parts; a literal without it becomes a shared part when
/// it is at least `sizes.literal` bytes long. A body that holds the reference marker byte
/// (0x01, never raw in valid JSON) is kept verbatim, as is one that would not decode to itself.
EncodedBody encode_body(std::string_view body, const BodyTexts& texts, const PartSizes& sizes);

/// The original of an encoded body. `part` returns a shared part by id (false when the store
/// has none: the result is then incomplete and decode_body returns false).
bool decode_body(std::string_view stored, const BodyTexts& texts,
                 const std::function<bool(const std::string& id, std::string& literal)>& part, std::string& out);

}  // namespace mirac
