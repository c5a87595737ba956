// expression_test.cpp: expressions parse to the expected tree (precedence, postfix, cell
// selection, if) and print back with minimal parentheses.
#include <doctest/doctest.h>

#include "helpers.hpp"

namespace {

struct Case {
  std::string source;
  std::string tree;       ///< dump_ast of the expression
  std::string formatted = {};  ///< format_module of it; "" means the same as source
};

// Parses `contrast X = <expr>` and returns the dump of the expression alone.
std::string tree_of(const mirac::test::Parsed& p) {
  std::string dump = mirac::dump_ast(p.module);
  std::string prefix = "(contrast X ";
  REQUIRE(dump.rfind(prefix, 0) == 0);
  return dump.substr(prefix.size(), dump.size() - prefix.size() - 2);  // drop ")\n"
}

void check_cases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    INFO("expression: " << c.source);
    auto p = mirac::test::parse_text("contrast X = " + c.source + "\n");
    REQUIRE_MESSAGE(p->errors.empty(), p->errors);
    CHECK(tree_of(*p) == c.tree);
    std::string want = "contrast X = " + (c.formatted.empty() ? c.source : c.formatted) + "\n";
    CHECK(mirac::format_module(p->module, p->sources) == want);
  }
}

}  // namespace

TEST_CASE("literals and names") {
  check_cases({
      {"42", "42"},
      {"1.50", "1.50"},
      {"1e-3", "1e-3"},
      {"\"text\"", "\"text\""},
      {"\"\"\"long\"\"\"", "\"long\"", "\"\"\"\n  long\n\"\"\""},
      {"true", "true"},
      {"false", "false"},
      {"none", "none"},
      {"model", "model"},
      {"[]", "(list)"},
      {"[1, \"a\", none]", "(list 1 \"a\" none)"},
      {"[ 1 , 2 , ]", "(list 1 2)", "[1, 2]"},
  });
}

TEST_CASE("operator precedence, lowest first: or, and, comparison, .., + - ++, * /, unary") {
  check_cases({
      {"a or b and c", "(or a (and b c))"},
      {"a and b or c", "(or (and a b) c)"},
      {"(a or b) and c", "(and (or a b) c)"},
      {"a == b and c != d", "(and (== a b) (!= c d))"},
      {"not a == b", "(== (not a) b)"},
      {"not (a == b)", "(not (== a b))"},
      {"a < b + c", "(< a (+ b c))"},
      {"a <= b", "(<= a b)"},
      {"a >= b", "(>= a b)"},
      {"a > b", "(> a b)"},
      {"(a == b) == c", "(== (== a b) c)"},
      {"a == (b == c)", "(== a (== b c))"},
      {"1..5", "(.. 1 5)"},
      {"1 .. n + 1", "(.. 1 (+ n 1))", "1..n + 1"},
      {"(1..5) == r", "(== (.. 1 5) r)", "1..5 == r"},
      {"a + b * c", "(+ a (* b c))"},
      {"(a + b) * c", "(* (+ a b) c)"},
      {"a - b - c", "(- (- a b) c)"},
      {"a - (b - c)", "(- a (- b c))"},
      {"a / b * c", "(* (/ a b) c)"},
      {"a / (b * c)", "(/ a (* b c))"},
      {"a ++ b ++ c", "(++ (++ a b) c)"},
      {"a ++ (b ++ c)", "(++ a (++ b c))"},
      {"-a * b", "(* (- a) b)"},
      {"-(a * b)", "(- (* a b))"},
      {"- - a", "(- (- a))", "--a"},
      {"not not a", "(not (not a))"},
      {"((a))", "a", "a"},
      {"a-b", "(- a b)", "a - b"},
  });
}

TEST_CASE("postfix: fields, cell selection, calls") {
  check_cases({
      {"seed.question", "(. seed question)"},
      {"seed.authority.zh", "(. (. seed authority) zh)"},
      {"a.D3 - b.D3", "(- (. a D3) (. b D3))"},
      {"D3[zh, colloquial, low]", "(cell D3 zh colloquial low)"},
      {"D3[language=zh, hls = low]", "(cell D3 language=zh hls=low)", "D3[language=zh, hls=low]"},
      {"D3[zh].mean", "(. (cell D3 zh) mean)"},
      {"f()", "(call f)"},
      {"lower_first(seed.question)", "(call lower_first (. seed question))"},
      {"replace(s, \"a\", \"b\").size", "(. (call replace s \"a\" \"b\") size)"},
      {"(a + b).x", "(. (+ a b) x)"},
      {"-a.b", "(- (. a b))"},
      {"(-a).b", "(. (- a) b)"},
      {"1.x", "(. 1 x)"},
      {"\"s\".len", "(. \"s\" len)"},
      {"[1, 2][zh]", "(cell (list 1 2) zh)"},
  });
}

TEST_CASE("if then else") {
  check_cases({
      {"if a then b else c", "(if a b c)"},
      {"if a then b else c + 1", "(if a b (+ c 1))"},
      {"(if a then b else c) + 1", "(+ (if a b c) 1)"},
      {"1 + (if a then b else c)", "(+ 1 (if a b c))"},
      {"if a then if b then c else d else e", "(if a (if b c d) e)"},
      {"if a then b else if c then d else e", "(if a b (if c d e))"},
      {"if a or b then x == 1 else not y", "(if (or a b) (== x 1) (not y))"},
      {"-(if a then 1 else 2)", "(- (if a 1 2))"},
      {"(if a then b else c).x", "(. (if a b c) x)"},
      {"f(if a then b else c)", "(call f (if a b c))"},
  });
}
