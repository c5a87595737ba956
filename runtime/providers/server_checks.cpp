#include "runtime/providers/server_checks.hpp"

#include <cstdint>
#include <string_view>

#include "runtime/text/utf8.hpp"

namespace mirac {
namespace {

bool is_cjk(char32_t cp) {
  return (cp >= 0x3040 && cp <= 0x30FF) ||   // kana
         (cp >= 0x3400 && cp <= 0x9FFF) ||   // CJK ideographs and extension A
         (cp >= 0xAC00 && cp <= 0xD7AF) ||   // Hangul syllables
         (cp >= 0xF900 && cp <= 0xFAFF) ||   // compatibility ideographs
         (cp >= 0x20000 && cp <= 0x2FFFF);  // supplementary ideographs
}

// Letters and digits of any script but CJK extend a word; ASCII punctuation, spaces and
// the other symbols below U+0080 end one. Non-ASCII punctuation is rare enough in prompts
// to be taken as letters: that only lowers the count.
bool is_word_part(char32_t cp) {
  if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  return !is_cjk(cp) && !(cp >= 0x3000 && cp <= 0x303F) && !(cp >= 0xFF00 && cp <= 0xFFEF);
}

void count(std::string_view text, long long& words, long long& cjk) {
  bool in_word = false;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = next_code_point(text, i);
    if (is_cjk(cp)) ++cjk;
    bool part = is_word_part(cp);
    if (part && !in_word) ++words;
    in_word = part;
  }
}

}  // namespace

long long fewest_prompt_tokens(const ModelCall& call) {
  long long words = 0, cjk = 0;
  count(call.user, words, cjk);
  if (call.system) count(*call.system, words, cjk);
  return words + cjk / 4;
}

long long PromptTokenFloor::operator()(const ModelCall& call) {
  long long words = 0, cjk = 0;
  count(call.user, words, cjk);
  if (call.system) {
    auto [it, fresh] = systems_.try_emplace(call.system.get());
    if (fresh) count(*call.system, it->second.words, it->second.cjk);
    words += it->second.words;
    cjk += it->second.cjk;
  }
  return words + cjk / 4;
}

std::string server_warnings(const ModelCall& call, const ParsedAnswer& answer) {
  PromptTokenFloor floor;
  return server_warnings(call, answer, floor);
}

std::string server_warnings(const ModelCall& call, const ParsedAnswer& answer, PromptTokenFloor& floor) {
  std::string out;
  auto add = [&](const char* code) { out += out.empty() ? code : std::string(" ") + code; };
  if (auto limit = token_limit_sent(call); limit && answer.output_tokens > *limit) add(kLimitIgnored);
  if (answer.input_tokens > 0) {
    const long long fewest = floor(call);
    if (fewest >= kShortestCheckedPrompt && static_cast<double>(answer.input_tokens) < kShortenedShare * static_cast<double>(fewest))
      add(kPromptShortened);
  }
  return out;
}

bool has_warning(const std::string& warnings, const char* code) {
  std::string_view w(warnings), c(code);
  for (std::size_t at = w.find(c); at != std::string_view::npos; at = w.find(c, at + 1)) {
    bool starts = at == 0 || w[at - 1] == ' ';
    bool ends = at + c.size() == w.size() || w[at + c.size()] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace mirac
