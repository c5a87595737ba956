#include "runtime/offline/text_features.hpp"

#include <algorithm>
#include <cctype>

#include "runtime/text/utf8.hpp"

namespace mirac {

namespace {

// Chinese characters (CJK unified ideographs and extension A), which text runs together
// without spaces; kana and Hangul are not counted.
bool is_han(char32_t cp) { return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF); }

const std::set<std::string>& stopwords() {
  static const std::set<std::string> words{
      "about", "after", "also", "been", "before", "being", "could", "does", "each", "from", "have", "here",
      "into", "just", "like", "more", "most", "much", "only", "other", "should", "some", "such", "than", "that",
      "their", "them", "then", "there", "these", "they", "this", "those", "very", "what", "when", "where",
      "which", "while", "will", "with", "would", "your", "you're", "really", "please", "know", "want"};
  return words;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

TextProfile profile_of(const std::string& text) {
  TextProfile p;
  std::size_t letters = 0, cjk = 0;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = next_code_point(text, i);
    ++p.length;
    if (is_han(cp)) ++cjk, ++letters;
    else if (cp < 128 && std::isalpha(static_cast<int>(cp))) ++letters;
  }
  p.cjk_share = letters ? static_cast<double>(cjk) / static_cast<double>(letters) : 0.0;
  return p;
}

std::vector<std::string> sentences_of(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  auto flush = [&] {
    auto b = current.find_first_not_of(" \t\r\n");
    auto e = current.find_last_not_of(" \t\r\n");
    if (b != std::string::npos) out.push_back(current.substr(b, e - b + 1));
    current.clear();
  };
  for (std::size_t i = 0; i < text.size();) {
    std::size_t start = i;
    char32_t cp = next_code_point(text, i);
    current.append(text, start, i - start);
    // A full stop inside a number ("38.5") does not end a sentence.
    bool decimal = cp == '.' && i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
    if ((cp == '.' && !decimal) || cp == '!' || cp == '?' || cp == '\n' || cp == U'。' || cp == U'！' || cp == U'？')
      flush();
  }
  flush();
  return out;
}

std::set<std::string> content_tokens(const std::string& text) {
  std::set<std::string> out;
  std::string word;
  std::string previous_cjk;
  auto end_word = [&] {
    if (word.size() >= 4 && !stopwords().count(word)) out.insert(word);
    word.clear();
  };
  for (std::size_t i = 0; i < text.size();) {
    std::size_t start = i;
    char32_t cp = next_code_point(text, i);
    if (cp < 128 && (std::isalpha(static_cast<int>(cp)) || cp == '\'')) {
      word += static_cast<char>(std::tolower(static_cast<int>(cp)));
      previous_cjk.clear();
      continue;
    }
    end_word();
    if (is_han(cp)) {
      std::string here = text.substr(start, i - start);
      if (!previous_cjk.empty()) out.insert(previous_cjk + here);
      previous_cjk = here;
    } else {
      previous_cjk.clear();
    }
  }
  end_word();
  return out;
}

std::string salient_words(const std::string& text, std::size_t n) {
  if (profile_of(text).cjk_share > 0.3) {
    auto sentences = sentences_of(text);
    std::string last = sentences.empty() ? text : sentences.back();
    std::string out;
    std::size_t taken = 0;
    for (std::size_t i = 0; i < last.size() && taken < 2 * n;) {
      std::size_t start = i;
      if (is_han(next_code_point(last, i))) out.append(last, start, i - start), ++taken;
    }
    return out;
  }
  std::vector<std::string> words;
  std::string word;
  auto end_word = [&] {
    std::string w = lower(word);
    if (w.size() >= 5 && !stopwords().count(w) && std::find(words.begin(), words.end(), w) == words.end())
      words.push_back(w);
    word.clear();
  };
  for (char c : text) {
    if (std::isalpha(static_cast<unsigned char>(c))) word += c;
    else end_word();
  }
  end_word();
  std::string out;
  for (std::size_t i = 0; i < words.size() && i < n; ++i) out += (i ? " " : "") + words[i];
  return out;
}

bool contains_any(const std::string& text, const std::vector<const char*>& needles) {
  std::string low = lower(text);
  for (const char* n : needles)
    if (low.find(lower(n)) != std::string::npos) return true;
  return false;
}

}  // namespace mirac
