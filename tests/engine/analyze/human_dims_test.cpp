// human_dims_test.cpp: a dimension only people score (`scored by human`, the paper's Q1):
// left out of the judge's instructions, reply keys and schema, not expected in its reply,
// and taken into the analyses' scores from people's annotations.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "engine/judge/raters.hpp"
#include "interpreter/driver.hpp"
#include "interpreter/judge/judge.hpp"

namespace {

std::unique_ptr<mirac::Compilation> spec_with_human_dimension() {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "mirac_human_dims_test";
  fs::create_directories(dir);
  std::ofstream(dir / "h.audit") << R"(audit human {}
use stdlib.providers
factor tone { plain warm }
seeds { seed s1 { question = "a?" } }
prompt { id "{seed.id}_{tone}" text seed.question }
model gpt = openai("gpt-5.4-mini")
rubric r {
  scale 1..5
  dim Q1 "Factual accuracy" { 1 "Accurate" 5 "Wrong" scored by human }
  dim D3 "Simplification" { 1 "Informative" 5 "Uninformative" }
  order Q1 then D3
}
judge j = openai("gpt-5.4-mini") { rubric r }
)";
  auto c = mirac::compile(dir / "h.audit", {});
  fs::remove_all(dir);
  return c;
}

}  // namespace

TEST_CASE("the judge is not asked for a dimension only people score") {
  auto c = spec_with_human_dimension();
  REQUIRE(c->ok());
  mirac::JudgeBuilder judge(c->spec, c->sources, 0);
  CHECK(judge.dims() == std::vector<std::string>{"Q1", "D3"});  // scores stay on the rubric's columns
  CHECK(judge.instructions().find("Factual accuracy") == std::string::npos);
  CHECK(judge.instructions().find("Its keys are \"D3\" and \"rationale\"") != std::string::npos);
  CHECK(judge.instructions().find("in this order, finishing each step before the next: D3.") != std::string::npos);
  const auto schema = judge.reply_schema();
  CHECK_FALSE(schema["properties"].contains("Q1"));
  CHECK(schema["properties"].contains("D3"));
  mirac::ScoreReader reader(c->spec, judge);
  const auto scores = reader.read(c->plan, c->plan.requests[0], R"({"D3": 2, "rationale": {"D3": "fine"}})");
  CHECK(scores.ok());
  CHECK(std::isnan(scores.scores[0]));
  CHECK(scores.scores[1] == 2);
}

TEST_CASE("people's scores fill the dimension they alone score") {
  auto c = spec_with_human_dimension();
  REQUIRE(c->ok());
  mirac::analyze::ScoreTable judged, people;
  judged.dims = people.dims = {"Q1", "D3"};
  const double na = std::nan("");
  judged.rows.push_back({0, 0, 0, {0}, {na, 2}, 0, {}});
  judged.rows.push_back({0, 0, 0, {1}, {na, 3}, 0, {}});
  people.rows.push_back({0, 0, 0, {1}, {4, 1}, 0, {}});  // only the warm answer was annotated
  mirac::fill_human_dimensions(c->spec, judged, people);
  CHECK(std::isnan(judged.rows[0].scores[0]));
  CHECK(judged.rows[1].scores[0] == 4);
  CHECK(judged.rows[1].scores[1] == 3);  // the judge's D3 stays
}
