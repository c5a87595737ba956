// placeholder_range_test.cpp: the caret of a template error moves from the string to the
// placeholder it names, in "..." strings (escapes before it) and long strings alike.
#include <doctest/doctest.h>

#include <string>

#include "interpreter/eval/eval.hpp"
#include "interpreter/eval/placeholder_range.hpp"

namespace {

class EmptyScope : public mirac::Scope {
 public:
  std::optional<mirac::Value> name(const std::string&) const override { return std::nullopt; }
};

// The message expand_template gives for `value`, so that the test holds the two together.
std::string message_of(const std::string& value) {
  try {
    mirac::expand_template(value, {}, EmptyScope{});
  } catch (const mirac::EvalError& e) {
    return e.what();
  }
  return "";
}

// The range of the one string literal of `text`: from its first quote to its last.
mirac::SourceRange literal(const mirac::SourceManager& s, mirac::FileId f, const std::string& text) {
  return s.range(f, text.find('"'), text.rfind('"') + 1);
}

}  // namespace

TEST_CASE("the caret goes under the placeholder, after escapes and wide characters") {
  mirac::SourceManager s;
  const std::string text = "text \"头痛 \\\"q\\\" \\u{7b} {{x}} {quesiton} and {quesiton}\"\n";
  mirac::FileId f = s.add("a.audit", text);
  mirac::SourceRange r = placeholder_range(s, literal(s, f, text), message_of("{quesiton}"));
  CHECK(r.begin.line == 1);
  CHECK(r.begin.byte == text.find("{quesiton}"));
  CHECK(r.begin.column == 29);  // in code points: the two CJK characters count one each
  CHECK(r.end.byte == r.begin.byte + std::string("{quesiton}").size());
}

TEST_CASE("in a long string the placeholder's own line and column") {
  mirac::SourceManager s;
  const std::string text = "text \"\"\"\n    Answer it.\n\n    The question: {seed.quesiton}\n    \"\"\"\n";
  mirac::FileId f = s.add("a.audit", text);
  mirac::SourceRange r = placeholder_range(s, literal(s, f, text), message_of("{seed.quesiton}"));
  CHECK(r.begin.line == 4);
  CHECK(r.begin.column == 19);
  CHECK(r.end.column == 34);
}

TEST_CASE("the whole string when the placeholder cannot be found for sure") {
  mirac::SourceManager s;
  // Written with an escape, `{x}` is not in the source text as such.
  const std::string text = "text \"\\u{7b}x}\"\n";
  mirac::FileId f = s.add("a.audit", text);
  mirac::SourceRange whole = literal(s, f, text);
  CHECK(placeholder_range(s, whole, message_of("{x}")).begin.byte == whole.begin.byte);
  // Escaped braces hold no placeholder; other messages name none.
  const std::string braces = "text \"{{x}}\"\n";
  mirac::FileId g = s.add("b.audit", braces);
  mirac::SourceRange in_braces = literal(s, g, braces);
  CHECK(placeholder_range(s, in_braces, message_of("{x}")).begin.byte == in_braces.begin.byte);
  CHECK(placeholder_range(s, in_braces, "unknown name 'x'").begin.byte == in_braces.begin.byte);
  CHECK(placeholder_range(s, mirac::SourceRange{}, message_of("{x}")).file == -1);
}
