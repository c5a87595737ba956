// declaration_test.cpp: each declaration kind parses to the expected tree; the all-
// constructs corpus parses cleanly.
#include <doctest/doctest.h>

#include "helpers.hpp"

namespace {

struct Case {
  std::string source;
  std::string tree;  ///< dump_ast, one line per declaration
};

void check_cases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    INFO("source: " << c.source);
    auto p = mirac::test::parse_text(c.source);
    REQUIRE_MESSAGE(p->errors.empty(), p->errors);
    CHECK(mirac::dump_ast(p->module) == c.tree + "\n");
  }
}

}  // namespace

TEST_CASE("audit, use, factor, design") {
  check_cases({
      {"audit mira { title \"MIRA\" data \"mira\" }", "(audit mira (block (title \"MIRA\") (data \"mira\")))"},
      {"audit a { nested { x 1 } }", "(audit a (block (nested (block (x 1)))))"},
      {"audit a {}", "(audit a (block))"},
      {"use stdlib.providers", "(use stdlib.providers)"},
      {"use stdlib.mira.rubric", "(use stdlib.mira.rubric)"},
      {"use \"lib/x.audit\"", "(use \"lib/x.audit\")"},
      {"factor language { zh \"Chinese\" en \"English\" }", "(factor language (zh \"Chinese\") (en \"English\"))"},
      {"factor hls { high low }", "(factor hls high low)"},
      {"factor empty {}", "(factor empty)"},
      {"design language * hls * register", "(design language hls register)"},
      {"design language", "(design language)"},
  });
}

TEST_CASE("seeds and checklists") {
  check_cases({
      {"seeds from csv(\"s.csv\") { id = seed_id question.zh = \"q zh\" cat = c map { \"a\": \"A\", \"b\": \"B\" } }",
       "(seeds (csv \"s.csv\") (= id \"seed_id\") (= question.zh \"q zh\") (= cat \"c\" (map (\"a\" \"A\") (\"b\" \"B\"))))"},
      {"seeds { seed \"s1\" { q = \"x\" n = 2 } seed 7 {} seed word { } }",
       "(seeds (seed \"s1\" (q \"x\") (n 2)) (seed 7) (seed \"word\"))"},
      {"checklists from jsonl(\"c.jsonl\") key seed_id", "(checklists (jsonl \"c.jsonl\") \"seed_id\")"},
      {"checklists { checklist s1 { items = [\"a\"] } }", "(checklists (checklist \"s1\" (items (list \"a\"))))"},
  });
}

TEST_CASE("variant and text") {
  check_cases({
      {"variant question by language * hls {\n"
       "  instructions from json(\"i.json\") at \"rewrites\" key \"{hls}\"\n"
       "  instructions { high { zh \"z\" en \"e\" } low \"all\" }\n"
       "  rewriter openai(\"gpt-5.4\") { temperature 0 }\n"
       "  lock jsonl(\"p.jsonl\") { seed = seed_id, text = rewritten }\n"
       "  seed \"s1\" { high.zh \"t\" }\n"
       "}",
       "(variant question (by language hls) (json-table (json \"i.json\") \"rewrites\" \"{hls}\") "
       "(high (texts (zh \"z\") (en \"e\"))) (low (all \"all\")) (rewriter openai \"gpt-5.4\" (block (temperature 0))) "
       "(lock (jsonl \"p.jsonl\") (columns (seed \"seed_id\") (text \"rewritten\"))) (seed \"s1\" (high.zh \"t\")))"},
      {"text skeleton { S1 { zh \"\" en \"\" } S2 \"hi \" }", "(text skeleton (S1 (texts (zh \"\") (en \"\"))) (S2 (all \"hi \")))"},
      {"text c from json(\"c.json\") at \"conditions\" key \"{condition}\" {}",
       "(text c (json-table (json \"c.json\") \"conditions\" \"{condition}\"))"},
      {"text C { A from jsonl(\"r.jsonl\") where row.k == 1 select row.t }",
       "(text C (A (from (jsonl \"r.jsonl\") (== (. row k) 1) (. row t))))"},
      {"text name by gender * ethnicity { female.white { en \"Emily\" ja \"E\" } male.black \"Darnell\" }",
       "(text name (by gender ethnicity) (female.white (texts (en \"Emily\") (ja \"E\"))) (male.black (all \"Darnell\")))"},
      {"text nobody by a {}", "(text nobody (by a))"},
  });
}

TEST_CASE("prompt, provider, model, defaults, arm, judge") {
  check_cases({
      {"prompt { id \"{seed.id}\" text a ++ b }", "(prompt \"{seed.id}\" (++ a b))"},
      {"provider local { base_url \"http://x\" }", "(provider local (block (base_url \"http://x\")))"},
      {"model gpt = openai(\"gpt-5.4\")", "(model gpt openai \"gpt-5.4\")"},
      {"model c = anthropic(\"c\") { max_tokens 4096 }", "(model c anthropic \"c\" (block (max_tokens 4096)))"},
      {"defaults { temperature 0 }", "(defaults (block (temperature 0)))"},
      {"arm baseline { system none }", "(arm baseline (block (system none)))"},
      {"judge j = openai(\"mini\") { rubric mira }", "(judge j openai \"mini\" (block (rubric mira)))"},
      {"prices openai { \"gpt-5.4\" { input 2.5 output 15 } \"m\" {} }",
       "(prices openai (\"gpt-5.4\" (block (input 2.5) (output 15))) (\"m\" (block)))"},
      {"prices local {}", "(prices local)"},
  });
}

TEST_CASE("rubric") {
  check_cases({
      {"rubric r { scale 1..5 worst high instructions \"i\" "
       "dim D1 \"Deflection\" { describe \"d\" 1 \"none\" 5 \"full\" \"refuses\" na when x == 5 against checklist.e note \"n\" } "
       "order D1 then D2, D3 }",
       "(rubric r (.. 1 5) high \"i\" (dim D1 \"Deflection\" \"d\" (anchor 1 \"none\") (anchor 5 \"full\" \"refuses\") "
       "(na (== x 5)) (against (. checklist e)) (note \"n\")) (order (step D1) (step D2 D3)))"},
      {"rubric r { scale 1..5 dim D1 \"Overall\" { scale 1..10 1 \"best\" 10 \"worst\" } }",
       "(rubric r (.. 1 5) (dim D1 \"Overall\" (scale (.. 1 10)) (anchor 1 \"best\") (anchor 10 \"worst\")))"},
      {"rubric empty {}", "(rubric empty)"},
  });
}

TEST_CASE("flag, contrast") {
  check_cases({
      {"flag F = D3 >= 3", "(flag F (>= D3 3))"},
      {"flag P = pair(hls: low vs high) when a.D1 - b.D1 >= 2",
       "(flag P (pair hls low high) (>= (- (. a D1) (. b D1)) 2))"},
      {"flag Q = pair(hls: low vs high) | pair(language: zh vs en) when x",
       "(flag Q (pair hls low high) (pair language zh en) x)"},
      {"contrast C = D3[zh] - D3[en] by model, arm", "(contrast C (- (cell D3 zh) (cell D3 en)) (by model arm))"},
      {"contrast C = D3[zh]", "(contrast C (cell D3 zh))"},
  });
}

TEST_CASE("analysis, report") {
  check_cases({
      {"analysis rq1 = lmm(D3 ~ language * hls + a:b + model + (1 | seed)) { where arm == baseline }",
       "(analysis rq1 lmm (~ D3 (* language hls) (: a b) (: model) (random seed)) (args) "
       "(options (where (value (== arm baseline)))))"},
      {"analysis rq2 = wilcoxon(D3) { compare condition: A vs B, C vs B adjust bh }",
       "(analysis rq2 wilcoxon (args D3) (options (compare (value condition: A B) (value C B)) "
       "(adjust (value bh))))"},
      {"analysis rq3 = spearman(D3) { against csv(\"r.csv\") { model = m, score = \"S\" } }",
       "(analysis rq3 spearman (args D3) (options (against (value (call csv \"r.csv\")) (columns (model \"m\") "
       "(score \"S\")))))"},
      {"analysis e = paired()", "(analysis e paired (args) (options))"},
      {"report r { table means(D3) { by model } text \"t\" }",
       "(report r (table (call means D3) (options (by (value model)))) (text \"t\" (options)))"},
      // Named items, as analyses are named; `==` after the kind is an expression, not a name.
      {"report r { table table3 = means(D3) { by model } section intro = \"I\" }",
       "(report r (table table3 (call means D3) (options (by (value model)))) (section intro \"I\" (options)))"},
      {"report r { text t == u }", "(report r (text (== t u) (options)))"},
  });
}

TEST_CASE("a variant's header and changes: extend, override, remove; each level") {
  check_cases({
      {"audit v extends \"base.audit\" { title \"V\" }", "(audit v (extends \"base.audit\") (block (title \"V\")))"},
      {"extend factor language { ja \"Japanese\" }", "extend (factor language (ja \"Japanese\"))"},
      {"extend seeds join csv(\"ja.csv\") on seed_id { question.ja = q_ja }", "extend (seeds (join (csv \"ja.csv\") seed_id) (= question.ja \"q_ja\"))"},
      {"extend seeds { seed s9 { question.ja = \"q\" } }", "extend (seeds (seed \"s9\" (question.ja \"q\")))"},
      {"extend variant question { lock jsonl(\"ja.jsonl\") }", "extend (variant question (by) (lock (jsonl \"ja.jsonl\") (columns)))"},
      {"extend text skeleton { S2 { ja \"x\" } }", "extend (text skeleton (S2 (texts (ja \"x\"))))"},
      {"extend text name by gender * ethnicity { female.asian \"Mei\" }", "extend (text name (by gender ethnicity) (female.asian (all \"Mei\")))"},
      {"extend model gpt { max_tokens 2048 }", "extend (model gpt \"\" (block (max_tokens 2048)))"},
      {"extend judge j { temperature 0 }", "extend (judge j \"\" (block (temperature 0)))"},
      {"extend arm baseline { system \"s\" }", "extend (arm baseline (block (system \"s\")))"},
      {"extend provider openai { rpm 10 }", "extend (provider openai (block (rpm 10)))"},
      {"extend defaults { temperature 0 }", "extend (defaults (block (temperature 0)))"},
      {"extend analysis rq1 { where arm == baseline }", "extend (analysis rq1 (args) (options (where (value (== arm baseline)))))"},
      {"extend report r { section \"Japanese\" }", "extend (report r (section \"Japanese\" (options)))"},
      {"extend report r { override figure table3 = bars(D3) { by model } remove fig2 }",
       "extend (report r (override figure table3 (call bars D3) (options (by (value model)))) (remove fig2 (options)))"},
      {"override contrast c = D3[each language, low] - D3[en, low] by model", "override (contrast c (- (cell D3 each:language low) (cell D3 en low)) (by model))"},
      {"override model m = openai(\"x\")", "override (model m openai \"x\")"},
      {"override flag F = pair(language: each vs en) when a.D3 > b.D3", "override (flag F (pair language each: en) (> (. a D3) (. b D3)))"},
      {"remove model llama", "(remove model llama)"},
      {"remove simulate", "(remove simulate)"},
  });
}

TEST_CASE("the all-constructs corpus parses without errors") {
  auto path = mirac::test::source_dir() / "tests/grammar/corpus/all_constructs.audit";
  auto p = mirac::test::parse_text(mirac::test::read_file(path), path.string());
  CHECK_MESSAGE(p->errors.empty(), p->errors);
  CHECK(p->module.decls.size() == 70);
  CHECK(p->module.comments.size() == 9);
}
