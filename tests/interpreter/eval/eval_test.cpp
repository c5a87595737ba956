// eval_test.cpp: expression evaluation and templates.
#include <doctest/doctest.h>

#include <map>

#include "interpreter/model/diagnostics.hpp"
#include "interpreter/eval/eval.hpp"
#include "interpreter/parse/parse.hpp"

namespace {

class MapScope : public mirac::Scope {
 public:
  std::map<std::string, mirac::Value> values;
  std::optional<mirac::Value> name(const std::string& n) const override {
    auto it = values.find(n);
    if (it == values.end()) return std::nullopt;
    return it->second;
  }
  std::vector<std::string> names() const override {
    std::vector<std::string> out;
    for (const auto& [k, v] : values) out.push_back(k);
    return out;
  }
};

// Parses `contrast x = EXPR` and returns EXPR evaluated in `scope`.
mirac::Value eval(const std::string& expr, const MapScope& scope) {
  mirac::SourceManager s;
  mirac::Diagnostics d;
  auto m = mirac::parse_module(s.add("e.audit", "contrast x = " + expr), s, d);
  REQUIRE_MESSAGE(!d.has_errors(), expr);
  return mirac::evaluate(std::get<mirac::ast::ContrastDecl>(m.decls.at(0).node).value, scope);
}

}  // namespace

TEST_CASE("arithmetic, comparison, logic and N/A") {
  MapScope s;
  s.values["D1"] = mirac::Value::of(5.0);
  s.values["D3"] = mirac::Value::na();
  CHECK(eval("1 + 2 * 3", s).number == 7);
  CHECK(eval("(1 + 2) * 3", s).number == 9);
  CHECK(eval("10 - 4 - 3", s).number == 3);
  CHECK(eval("D1 >= 5 and not (D1 < 2)", s).boolean);
  // N/A is unknown: comparisons and arithmetic with it are N/A, and so is `not` of it; a
  // known side decides `and` (false) and `or` (true); an N/A condition does not hold.
  const auto na = mirac::Value::Kind::na;
  CHECK(eval("D3 >= 3", s).kind == na);
  CHECK(eval("D3 < 3", s).kind == na);
  CHECK(eval("not (D3 < 3)", s).kind == na);
  CHECK_FALSE(mirac::truthy(eval("not (D3 < 3)", s)));
  CHECK(eval("D3 != 3", s).kind == na);
  CHECK(eval("D3 - 1", s).kind == na);
  CHECK(eval("D3 >= 3 and D1 < 2", s).kind == mirac::Value::Kind::boolean);  // false decides
  CHECK_FALSE(eval("D3 >= 3 and D1 < 2", s).boolean);
  CHECK_FALSE(eval("D1 < 2 and D3 >= 3", s).boolean);
  CHECK(eval("D3 >= 3 and D1 == 5", s).kind == na);
  CHECK(eval("D3 >= 3 or D1 == 5", s).boolean);  // true decides
  CHECK(eval("D1 == 5 or D3 >= 3", s).boolean);
  CHECK(eval("D3 >= 3 or D1 < 2", s).kind == na);
  CHECK(eval("not (D3 >= 3 or D1 < 2)", s).kind == na);
  CHECK(eval("if D3 > 2 then 1 else 0", s).kind == na);
  CHECK(eval("abs(2 - D1)", s).number == 3);
  CHECK(eval("max(1, D1, 3)", s).number == 5);
  CHECK(eval("if D1 == 5 then \"refused\" else \"ok\"", s).text == "refused");
}

TEST_CASE("string functions") {
  MapScope s;
  s.values["q"] = mirac::Value::of(std::string("What is it?"));
  CHECK(eval("lower_first(q)", s).text == "what is it?");
  CHECK(eval("upper_first(\"abc\")", s).text == "Abc");
  // After leading punctuation, spaces and symbols, in any cased script (issue 30).
  CHECK(eval("lower_first(\"¿Cuál es la dosis?\")", s).text == "¿cuál es la dosis?");
  CHECK(eval("lower_first(\"¡Ayuda!\")", s).text == "¡ayuda!");
  CHECK(eval("lower_first(\"Élodie a mal\")", s).text == "élodie a mal");
  CHECK(eval("upper_first(\"« ça va »\")", s).text == "« Ça va »");
  CHECK(eval("lower_first(\"Ελένη\")", s).text == "ελένη");
  CHECK(eval("lower_first(\"中文 What\")", s).text == "中文 What");  // no case: left alone
  CHECK(eval("lower_first(\"3 Tablets\")", s).text == "3 Tablets");
  CHECK(eval("lower_first(\"\")", s).text.empty());
  CHECK(eval("lower(\"ÉTÉ Ab\")", s).text == "été ab");
  CHECK(eval("upper(\"straße ça\")", s).text == "STRAẞE ÇA");  // one letter for one (Unicode's capital ß)
  CHECK(eval("strip_suffix(\"Hello. What is it?\", q)", s).text == "Hello. ");
  CHECK(eval("strip_prefix(\"Hello. What\", \"Hello. \")", s).text == "What");
  CHECK(eval("replace(\"a-b-c\", \"-\", \"+\")", s).text == "a+b+c");
  CHECK(eval("len(\"中文ab\")", s).number == 4);
  CHECK(eval("trim(\"  x \")", s).text == "x");
  CHECK(eval("\"a\" ++ 1", s).text == "a1");
}

TEST_CASE("templates: placeholders, escaped braces, errors") {
  MapScope s;
  s.values["name"] = mirac::Value::of(std::string("World"));
  CHECK(mirac::expand_template("Hello, {name}! {{literal}}", {}, s) == "Hello, World! {literal}");
  CHECK_THROWS_WITH_AS(mirac::expand_template("{nmae}", {}, s), "placeholder '{nmae}' names nothing known; did you mean 'name'?",
                       mirac::EvalError);
  CHECK_THROWS_AS(mirac::expand_template("{name", {}, s), mirac::EvalError);
}

TEST_CASE("unknown names and functions suggest the closest") {
  MapScope s;
  s.values["question"] = mirac::Value::of(std::string("q"));
  CHECK_THROWS_WITH_AS(eval("questoin", s), "unknown name 'questoin'; did you mean 'question'?", mirac::EvalError);
  CHECK_THROWS_WITH_AS(eval("lowerfirst(question)", s), "unknown function 'lowerfirst'; did you mean 'lower_first'?",
                       mirac::EvalError);
  CHECK_THROWS_WITH_AS(eval("question + 1", s), "operator '+' needs numbers; use '++' to join texts", mirac::EvalError);
}
