#include "interpreter/parse/nesting.hpp"

#include <cctype>

namespace mirac {

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The end of the string literal or comment starting at `i`, or `i` when none starts there.
std::size_t skip_literal(std::string_view text, std::size_t i) {
  if (text.substr(i, 3) == "\"\"\"") {
    std::size_t end = text.find("\"\"\"", i + 3);
    return end == std::string_view::npos ? text.size() : end + 3;
  }
  if (text[i] == '"') {
    ++i;
    while (i < text.size() && text[i] != '"' && text[i] != '\n') i += text[i] == '\\' ? 2 : 1;
    return i + 1;
  }
  if (text.substr(i, 2) == "//") {
    std::size_t end = text.find('\n', i);
    return end == std::string_view::npos ? text.size() : end;
  }
  if (text.substr(i, 2) == "/*") {
    std::size_t end = text.find("*/", i + 2);
    return end == std::string_view::npos ? text.size() : end + 2;
  }
  return i;
}

}  // namespace

std::size_t too_deeply_nested_at(std::string_view text) {
  int brackets = 0, prefixes = 0;  // prefixes: a run of - and not, each one a level
  for (std::size_t i = 0; i < text.size();) {
    if (std::size_t after = skip_literal(text, i); after != i) {
      i = after;
      prefixes = 0;
      continue;
    }
    char c = text[i];
    bool is_not = text.substr(i, 3) == "not" && (i == 0 || !word_char(text[i - 1])) &&
                  (i + 3 >= text.size() || !word_char(text[i + 3]));
    if (c == '(' || c == '[' || c == '{') {
      if (++brackets > kMaxSpecNesting) return i;
    } else if (c == ')' || c == ']' || c == '}') {
      --brackets;
    }
    if (c == '-' || is_not) {
      if (++prefixes + brackets > kMaxSpecNesting) return i;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      prefixes = 0;  // an operand ends the run: `a - b - c` nests nothing
    }
    i += is_not ? 3 : 1;
  }
  return std::string_view::npos;
}

}  // namespace mirac
