#include "interpreter/eval/placeholder_range.hpp"

#include <string>
#include <utility>

namespace mirac {

namespace {

// The path of "placeholder '{path}' ...", the form of every placeholder message of
// expand_template (eval.cpp); empty for any other message.
std::string_view placeholder_path(std::string_view message) {
  constexpr std::string_view prefix = "placeholder '{";
  if (message.substr(0, prefix.size()) != prefix) return {};
  std::size_t close = message.find("}'", prefix.size());
  if (close == std::string_view::npos) return {};
  return message.substr(prefix.size(), close - prefix.size());
}

// The byte offsets [first, last) of the first placeholder `{path}` in `text`, scanned as
// expand_template scans a value: `{{` and `}}` are braces, a placeholder ends at the next
// `}`. With `escapes` (a "..." string) a backslash escape is skipped whole, `\u{hex}`
// included, so that its braces are not taken for a placeholder's. npos when there is none.
std::pair<std::size_t, std::size_t> find_placeholder(std::string_view text, std::string_view path, bool escapes) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (escapes && c == '\\') {
      if (i + 2 < text.size() && text[i + 1] == 'u' && text[i + 2] == '{') {
        std::size_t close = text.find('}', i);
        if (close == std::string_view::npos) break;
        i = close;
      } else {
        ++i;
      }
      continue;
    }
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      ++i;
      continue;
    }
    if (c != '{') continue;
    std::size_t close = text.find('}', i);
    if (close == std::string_view::npos) break;
    if (text.substr(i + 1, close - i - 1) == path) return {i, close + 1};
    i = close;
  }
  return {std::string_view::npos, std::string_view::npos};
}

}  // namespace

SourceRange placeholder_range(const SourceManager& sources, SourceRange literal, std::string_view message) {
  std::string_view path = placeholder_path(message);
  if (path.empty() || !literal.valid() || static_cast<std::size_t>(literal.file) >= sources.size()) return literal;
  const std::string& file = sources.text(literal.file);
  if (literal.begin.byte >= literal.end.byte || literal.end.byte > file.size()) return literal;
  std::string_view text = std::string_view(file).substr(literal.begin.byte, literal.end.byte - literal.begin.byte);
  // A long string has no escapes; a "..." string has; text from a data file is taken as
  // written (a JSON string's escapes hold no braces that matter here).
  bool long_string = text.substr(0, 3) == "\"\"\"";
  bool escapes = !long_string && text.substr(0, 1) == "\"";
  auto [first, last] = find_placeholder(text, path, escapes);
  if (first == std::string_view::npos) return literal;
  return sources.range(literal.file, literal.begin.byte + first, literal.begin.byte + last);
}

}  // namespace mirac
