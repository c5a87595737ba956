// dim_scale_kappa_test.cpp: agreement between a judge and people on a dimension with a
// scale of its own (`scale 1..10` beside the rubric's 1..5, issue 30). Its kappa counts
// scores above 5 as scale points, and its values are the ones worked out by hand below.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "tests/analyze/analyze_support.hpp"

using namespace analyze_test;

namespace {

using Json = nlohmann::json;

const char* kSpec = R"(audit tenpoint { scores judge }
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
rubric mixed {
  scale 1..5
  worst high
  dim D1 "Depth" {
    1 "Deep"
    5 "Shallow"
  }
  dim OVERALL "Overall harm" {
    scale 1..10
    1 "None"
    10 "Severe"
  }
}
judge judge = openai("judge-a") { rubric mixed }
analysis agree = agreement(D1, OVERALL) { raters judge, human }
)";

// OVERALL of the twelve answers (q0 plain, q0 warm, q1 plain, ...), by the judge and by people.
const int kJudge[12] = {1, 3, 4, 6, 7, 9, 10, 2, 5, 8, 6, 3};
const int kPeople[12] = {2, 3, 5, 6, 6, 10, 9, 2, 4, 8, 7, 1};

// By hand, with x the judge's and y the people's scores (n = 12):
//   x - y = -1 0 -1 0 1 -1 1 0 1 0 -1 2: exact 4/12, adjacent 11/12, mean signed error 1/12.
//   Quadratic weighted kappa over the labels 1..10, weights (i-j)^2/81, is
//   1 - sum (x-y)^2 / ((1/n) sum_i sum_j (x_i - y_j)^2)   (the 1/81 cancels)
//     = 1 - 11 / (sum x^2 + sum y^2 - 2 (sum x)(sum y) / n)
//     = 1 - 11 / (430 + 425 - 2 * 64 * 63 / 12) = 1 - 11/183 = 172/183.
// The confusion-matrix form sklearn's cohen_kappa_score(x, y, labels=range(1, 11),
// weights="quadratic") computes, replayed in plain Python with fractions (sklearn was not
// installed), gave 172/183 too.
// On the rubric's 1..5, scores 6 to 10 would not be scale points and there would be no kappa.
constexpr double kKappa = 172.0 / 183.0;

const Json* analysis_entry(const Json& results, const std::string& dimension) {
  for (const auto& a : results["analyses"])
    if (a["name"] == "agree")
      for (const auto& e : a["results"])
        if (e["dimension"] == dimension) return &e;
  return nullptr;
}

}  // namespace

TEST_CASE("kappa between a judge and people on a 1..10 dimension, against values worked out by hand") {
  auto dir = temp_dir("dim_scale_kappa");
  std::ofstream(dir / "tenpoint.audit") << kSpec;
  std::string csv = "rater,seed,model,arm,tone,D1,OVERALL\n";
  const char* tones[] = {"plain", "warm"};
  for (int i = 0; i < 12; ++i) {
    // D1 on 1..5, the same for both raters: its kappa is 1.
    const int d1 = 1 + i % 5;
    csv += fmt::format("judge,q{},gpt,baseline,{},{},{}\n", i / 2, tones[i % 2], d1, kJudge[i]);
    csv += fmt::format("human,q{},gpt,baseline,{},{},{}\n", i / 2, tones[i % 2], d1, kPeople[i]);
  }
  std::ofstream(dir / "scores.csv") << csv;
  Run r = run_analyze(dir / "tenpoint.audit", dir / "scores.csv", dir / "out");
  INFO(r.err);
  REQUIRE(r.code == 0);

  const Json* overall = analysis_entry(r.results, "OVERALL");
  REQUIRE(overall != nullptr);
  INFO(overall->dump());
  const Json& pair = (*overall)["pairs"][0];
  CHECK(pair["raters"] == Json::array({"judge", "human"}));
  CHECK(pair["n"] == 12);
  CHECK(pair["exact"].get<double>() == doctest::Approx(4.0 / 12).epsilon(1e-12));
  CHECK(pair["adjacent"].get<double>() == doctest::Approx(11.0 / 12).epsilon(1e-12));
  CHECK(pair["mean_signed_error"].get<double>() == doctest::Approx(1.0 / 12).epsilon(1e-12));
  REQUIRE(pair["qwk"].is_number());
  CHECK(pair["qwk"].get<double>() == doctest::Approx(kKappa).epsilon(1e-12));
  CHECK_FALSE(pair.contains("qwk_note"));

  const Json* d1 = analysis_entry(r.results, "D1");
  REQUIRE(d1 != nullptr);
  CHECK((*d1)["pairs"][0]["qwk"].get<double>() == doctest::Approx(1.0).epsilon(1e-12));
}
