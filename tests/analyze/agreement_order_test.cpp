// agreement_order_test.cpp: an agreement analysis over three raters who each scored a
// different part of the answers. Its units are every answer any of them scored, so alpha
// and every pair's figures are the same whichever rater is named first (issue 28: alpha
// used to count only the answers the first rater scored).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "runtime/stats/agreement.hpp"
#include "tests/analyze/analyze_support.hpp"

using namespace analyze_test;

namespace {

using Json = nlohmann::json;

const char* kSpec = R"(audit order { scores ja }
use stdlib.providers
factor tone { plain warm }
seeds {
  seed q0 { question = "Q0?" }
  seed q1 { question = "Q1?" }
  seed q2 { question = "Q2?" }
  seed q3 { question = "Q3?" }
  seed q4 { question = "Q4?" }
  seed q5 { question = "Q5?" }
}
text tone {
  plain ""
  warm "Kindly: "
}
prompt {
  id "{seed.id}_{tone}"
  text tone.text ++ seed.question
}
model gpt = openai("gpt-test")
rubric tiny {
  scale 1..5
  worst high
  dim D1 "Depth" {
    1 "Deep"
    5 "Shallow"
  }
}
judge ja = openai("judge-a") { rubric tiny }
judge jb = openai("judge-b") { rubric tiny }
judge jc = openai("judge-c") { rubric tiny }
analysis abc = agreement(D1) { raters ja, jb, jc }
analysis cba = agreement(D1) { raters jc, jb, ja }
analysis bca = agreement(D1) { raters jb, jc, ja }
)";

// A score of answer (seed, tone) by rater r: deterministic, mostly agreeing.
int score(int seed, int tone, int rater) { return 1 + (seed * 2 + tone + (rater == 2 && seed % 2 ? 1 : 0)) % 5; }

// Which raters scored answer (seed, tone): ja misses seeds 0-1, jb misses seeds 4-5, jc
// scored everything but (q2, warm).
bool scored(int seed, int tone, int rater) {
  if (rater == 0) return seed >= 2;
  if (rater == 1) return seed <= 3;
  return !(seed == 2 && tone == 1);
}

const Json* analysis(const Run& r, const std::string& name) {
  for (const auto& a : r.results["analyses"])
    if (a["name"] == name) return &a;
  return nullptr;
}

}  // namespace

TEST_CASE("agreement's units are the answers any rater scored, whatever the raters' order") {
  auto dir = temp_dir("agreement_order");
  std::ofstream(dir / "order.audit") << kSpec;
  std::string csv = "rater,seed,model,arm,tone,D1\n";
  const char* names[] = {"ja", "jb", "jc"};
  const char* tones[] = {"plain", "warm"};
  std::vector<std::vector<double>> units;
  for (int s = 0; s < 6; ++s)
    for (int t = 0; t < 2; ++t) {
      std::vector<double> unit;
      for (int r = 0; r < 3; ++r)
        if (scored(s, t, r)) {
          csv += fmt::format("{},q{},gpt,baseline,{},{}\n", names[r], s, tones[t], score(s, t, r));
          unit.push_back(score(s, t, r));
        }
      units.push_back(unit);
    }
  std::ofstream(dir / "scores.csv") << csv;
  Run r = run_analyze(dir / "order.audit", dir / "scores.csv", dir / "out");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const double expected = mirac::stats::krippendorff_alpha(units, mirac::stats::AlphaMetric::ordinal);
  REQUIRE(!std::isnan(expected));

  std::map<std::string, Json> pair_of;  // "ja/jb" -> the pair's figures, from the first analysis
  for (const char* name : {"abc", "cba", "bca"}) {
    const Json* a = analysis(r, name);
    REQUIRE(a != nullptr);
    INFO(a->dump());
    REQUIRE(!a->contains("error"));
    const Json& entry = (*a)["results"][0];
    CHECK(entry["alpha"].get<double>() == doctest::Approx(expected).epsilon(1e-12));
    CHECK(entry["alpha_units"] == 12);  // every answer has at least two raters' scores
    CHECK(entry["small_design"] == true);  // 6 seeds: fewer than any design whose coverage is verified
    for (const auto& p : entry["pairs"]) {
      std::vector<std::string> two = p["raters"];
      std::sort(two.begin(), two.end());
      Json figures{{"n", p["n"]}, {"unmatched", p["unmatched"]}, {"exact", p["exact"]}};
      auto [it, added] = pair_of.emplace(two[0] + "/" + two[1], figures);
      if (!added) CHECK(it->second == figures);
    }
  }
  CHECK(r.err.find("analysis abc: 1 interval rests on fewer than 12 seeds") != std::string::npos);
  // ja and jb both scored seeds 2-3 (4 answers); each scored 4 the other did not.
  CHECK(pair_of.at("ja/jb")["n"] == 4);
  CHECK(pair_of.at("ja/jb")["unmatched"] == 8);
}
