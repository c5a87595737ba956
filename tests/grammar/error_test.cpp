// error_test.cpp: the exact text of syntax errors (file:line:col, message, source line,
// caret, count) and recovery at the next declaration.
#include <doctest/doctest.h>

#include "helpers.hpp"

namespace {

struct Case {
  std::string source;
  std::string output;  ///< Diagnostics::print
};

void check_cases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    INFO("source: " << c.source);
    CHECK(mirac::test::parse_text(c.source)->errors == c.output);
  }
}

}  // namespace

TEST_CASE("syntax error messages") {
  check_cases({
      {"factor x { a b",
       "t.audit:1:15: error: expected '}' (to close '{' at line 1)\nfactor x { a b\n              ^\n1 error generated.\n"},
      {"flag F = D3 >=",
       "t.audit:1:15: error: expected an operand after the comparison\nflag F = D3 >=\n              ^\n"
       "1 error generated.\n"},
      {"contrast C = D3[zh,]",
       "t.audit:1:20: error: expected a level name or factor=level\ncontrast C = D3[zh,]\n                   ^\n"
       "1 error generated.\n"},
      {"use 42",
       "t.audit:1:5: error: expected a module name (stdlib.providers) or a file path string\nuse 42\n    ^\n"
       "1 error generated.\n"},
      {"seeds from csv(seeds.csv) {}",
       "t.audit:1:16: error: expected a file path string\nseeds from csv(seeds.csv) {}\n               ^\n"
       "1 error generated.\n"},
      {"model gpt = openai(gpt)",
       "t.audit:1:20: error: expected the model string, e.g. openai(\"gpt-5.4\")\nmodel gpt = openai(gpt)\n"
       "                   ^\n1 error generated.\n"},
      {"rubric r { dim D1 { } }",
       "t.audit:1:19: error: expected the dimension's title, a string\nrubric r { dim D1 { } }\n                  ^\n"
       "1 error generated.\n"},
      {"flag F = pair(hls: low high) when x",
       "t.audit:1:24: error: expected 'vs'\nflag F = pair(hls: low high) when x\n                       ^\n"
       "1 error generated.\n"},
      {"frobnicate x",
       "t.audit:1:1: error: expected a declaration: audit, use, factor, design, seeds, checklists, variant, text, "
       "prompt, provider, prices, model, defaults, arm, judge, panel, rubric, flag, contrast, analysis, report, simulate, "
       "extend, override or remove\nfrobnicate x\n^\n"
       "1 error generated.\n"},
      {"prompt { text \"x\" }",
       "t.audit:1:10: error: expected 'id' and the prompt id template\nprompt { text \"x\" }\n         ^\n"
       "1 error generated.\n"},
      {"variant q language {}",
       "t.audit:1:11: error: expected 'by' and the factors the variant depends on\nvariant q language {}\n"
       "          ^\n1 error generated.\n"},
      {"text F { A from jsonl(\"r.jsonl\") select y }",
       "t.audit:1:34: error: expected 'where' and a row condition\ntext F { A from jsonl(\"r.jsonl\") select y }\n"
       "                                 ^\n1 error generated.\n"},
      {"analysis a = lmm(D3 ~ )",
       "t.audit:1:23: error: expected a term: a name, a:b, a*b or (1 | group)\nanalysis a = lmm(D3 ~ )\n"
       "                      ^\n1 error generated.\n"},
      {"contrast C = (a + b",
       "t.audit:1:20: error: expected ')'\ncontrast C = (a + b\n                   ^\n1 error generated.\n"},
      {"contrast C = \"a\\q\"",
       "t.audit:1:17: error: unknown escape sequence: use \\n, \\t, \\r, \\\", \\\\, \\0 or \\u{hex}\n"
       "contrast C = \"a\\q\"\n                ^\n1 error generated.\n"},
      {"contrast C = if a then b",
       "t.audit:1:25: error: expected 'else'\ncontrast C = if a then b\n                        ^\n1 error generated.\n"},
      {"/* never closed",
       "t.audit:1:1: error: unterminated block comment: no '*/' closes this '/*'\n/* never closed\n^\n"
       "1 error generated.\n"},
      // Columns count code points; the caret line widens under wide characters.
      {"factor 语言 { zh }",
       "t.audit:1:8: error: expected a name\nfactor 语言 { zh }\n       ^~\n1 error generated.\n"},
  });
}

TEST_CASE("recovery: two broken declarations, the good ones between them are kept") {
  std::string source =
      "factor language { zh en }\n"
      "factor hls { high, low }\n"  // a comma where '}' or a level is expected
      "design language * hls\n"
      "model gpt = openai(\"gpt\")\n"
      "flag F = D3 >= and 2\n"  // a comparison without its right operand
      "contrast C = D3[zh] - D3[en]\n";
  auto p = mirac::test::parse_text(source);
  CHECK(p->errors ==
        "t.audit:2:18: error: expected '}' (to close '{' at line 2)\n"
        "factor hls { high, low }\n"
        "                 ^\n"
        "t.audit:5:16: error: expected an operand after the comparison\n"
        "flag F = D3 >= and 2\n"
        "               ^\n"
        "2 errors generated.\n");
  CHECK(mirac::dump_ast(p->module) ==
        "(factor language zh en)\n"
        "(design language hls)\n"
        "(model gpt openai \"gpt\")\n"
        "(contrast C (- (cell D3 zh) (cell D3 en)))\n");
}
