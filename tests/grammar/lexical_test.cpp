// lexical_test.cpp: table-driven tests of single grammar rules, in the manner of PEGTL's
// verify_rule: an input, the expected result, and the bytes left (or the error raised).
#include <doctest/doctest.h>

#include <tao/pegtl/contrib/analyze.hpp>

#include "grammar/errors.hpp"
#include "interpreter/parse/parse.hpp"

namespace g = mirac::grammar;
namespace pegtl = tao::pegtl;

namespace {

template <typename Rule>
using control = pegtl::must_if<g::error_table>::control<Rule>;

enum class Result { success, local_failure, global_failure };

struct Row {
  std::string input;
  Result result;
  std::size_t left = 0;   ///< bytes not consumed, on success
  std::string error = {};  ///< "line:col: message", on global failure
};

// Runs `Rule` on `row.input` and checks the outcome against the row.
template <typename Rule>
void verify(const Row& row) {
  INFO("input: " << row.input);
  pegtl::memory_input in(row.input, "t");
  try {
    bool ok = pegtl::parse<Rule, pegtl::nothing, control>(in);
    CHECK(row.result == (ok ? Result::success : Result::local_failure));
    if (ok) CHECK(in.size() == row.left);
  } catch (const pegtl::parse_error& e) {
    const auto& p = e.positions().front();
    CHECK(row.result == Result::global_failure);
    CHECK(std::to_string(p.line) + ":" + std::to_string(p.column) + ": " + std::string(e.message()) == row.error);
  }
}

template <typename Rule>
void verify_all(const std::vector<Row>& rows) {
  for (const auto& row : rows) verify<Rule>(row);
}

constexpr auto ok = Result::success;
constexpr auto no = Result::local_failure;
constexpr auto err = Result::global_failure;

}  // namespace

TEST_CASE("the grammar has no left recursion or empty loops") {
  CHECK(pegtl::analyze<g::one_declaration>(0) == 0);
  CHECK(pegtl::analyze<g::ws>(0) == 0);
}

TEST_CASE("quoted strings and escapes") {
  verify_all<g::string_lit>({
      {R"("abc")", ok},
      {R"("")", ok},
      {R"("a\"b" rest)", ok, 5},
      {R"("tab\t nl\n cr\r nul\0 back\\ quote\"")", ok},
      {R"("\u{4e2d}\u{1F600}")", ok},
      {R"("中文 {seed.id}")", ok},
      {R"(abc)", no},
      {R"("\q")", err, 0, "1:3: unknown escape sequence: use \\n, \\t, \\r, \\\", \\\\, \\0 or \\u{hex}"},
      {R"("\u{}")", err, 0, "1:5: expected hexadecimal digits in '\\u{...}'"},
      {R"("\u{41")", err, 0, "1:7: expected '}'"},
      // Unterminated literals are reported where the scan stopped: the end of the line.
      {"\"abc", err, 0,
       "1:1: unterminated string: a \"...\" string ends on the line it starts (use \"\"\"...\"\"\" for text over several lines)"},
      {"\"ab\ncd\"", err, 0,
       "1:1: unterminated string: a \"...\" string ends on the line it starts (use \"\"\"...\"\"\" for text over several lines)"},
  });
}

TEST_CASE("long strings") {
  verify_all<g::string_lit>({
      {"\"\"\"one line\"\"\"", ok},
      {"\"\"\"\n  a\n  b\n  \"\"\" x", ok, 2},
      {"\"\"\"\"\"\"", ok},
      {"\"\"\"no \\n escapes \" or \"\" here\"\"\"", ok},
      {"\"\"\"\nnever closed\n", err, 0, "1:1: unterminated string: no '\"\"\"' closes this one"},
  });
}

TEST_CASE("string literal values") {
  struct Case {
    std::string written, value;
  };
  std::vector<Case> cases = {
      {R"("plain")", "plain"},
      {R"("a\"b\\c")", "a\"b\\c"},
      {R"("\n\t\r")", "\n\t\r"},
      {R"("\u{41}\u{e9}\u{4e2d}\u{1F600}")", "A\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80"},
      {R"("\u{D800}")", "\xEF\xBF\xBD"},  // a surrogate becomes U+FFFD
      {R"("{{braces}} {kept}")", "{{braces}} {kept}"},
      {"\"\"\"one line\"\"\"", "one line"},
      // The newline after the opening quotes and the closing line go; common indentation goes.
      {"\"\"\"\n    first\n      second\n\n    third\n    \"\"\"", "first\n  second\n\nthird"},
      {"\"\"\"\n\tx\n\ty\n\"\"\"", "x\ny"},
      {"\"\"\"\r\n  crlf\r\n  lines\r\n  \"\"\"", "crlf\nlines"},
      {"\"\"\"  \\n stays raw\"\"\"", "\\n stays raw"},
  };
  for (const auto& c : cases) {
    INFO(c.written);
    CHECK(mirac::decode_string_literal(c.written) == c.value);
  }
}

TEST_CASE("comments and blanks") {
  verify_all<g::ws>({
      {"", ok},
      {"  \n\t ", ok},
      {"// line comment\nx", ok, 1},
      {"// at end of file", ok},
      {"/* block */ /* another\n over lines */x", ok, 1},
      {"/* not /* nested */ */", ok, 2},
      {"/* never closed", err, 0, "1:1: unterminated block comment: no '*/' closes this '/*'"},
      {"/ x", ok, 3},
  });
}

TEST_CASE("numbers") {
  verify_all<g::number>({
      {"0", ok},
      {"42", ok},
      {"1.5", ok},
      {"1e10", ok},
      {"2.5E-3", ok},
      {"7e+2", ok},
      {"1.", ok, 1},
      {"1..5", ok, 3},
      {"1e", ok, 1},
      {".5", no},
      {"-1", no},  // a negative number is unary minus
  });
}

TEST_CASE("names and reserved words") {
  verify_all<g::ident>({
      {"abc", ok},
      {"_x1", ok},
      {"D3", ok},
      {"andy", ok},
      {"notable", ok},
      {"a-b", ok, 2},
      {"1x", no},
      {"and", no},
      {"or", no},
      {"not", no},
      {"if", no},
      {"then", no},
      {"else", no},
      {"true", no},
      {"false", no},
      {"none", no},
      {"vs", no},
      {"语言", no},
  });
}
