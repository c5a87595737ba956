// text_features.hpp: the countable features of a text that the offline provider works
// from (docs/running.md, "Offline runs"): script, length, sentences, content words.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace mirac {

struct TextProfile {
  std::size_t length = 0;  ///< code points
  double cjk_share = 0;    ///< share of CJK ideographs among letters and ideographs
};

TextProfile profile_of(const std::string& text);

/// Sentences split at . ! ? and their full-width forms, and at line breaks; trimmed,
/// empty ones dropped.
std::vector<std::string> sentences_of(const std::string& text);

/// Content tokens for overlap: lower-cased Latin words of four letters or more (minus
/// common function words), and every pair of adjacent CJK ideographs.
std::set<std::string> content_tokens(const std::string& text);

/// Up to `n` content words of `text` in order of appearance, joined by spaces (Latin) or
/// the first `2n` ideographs of its last sentence (CJK).
std::string salient_words(const std::string& text, std::size_t n);

/// Whether `text` contains any of `needles` (ASCII needles compare case-insensitively).
bool contains_any(const std::string& text, const std::vector<const char*>& needles);

}  // namespace mirac
