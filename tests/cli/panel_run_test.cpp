// panel_run_test.cpp: several judges and a panel through the real binary, offline: adding
// a second judge to a finished run sends only the new judge's requests (no audited model
// is asked again), and the analyses then use the panel the header's `scores` names.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "mirac_binary.hpp"

namespace {

std::string otc_text() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return mirac::test::read_text(std::filesystem::path(root) / "examples/otc/otc.audit");
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("a second judge and a panel: only judge requests are sent, the analyses use the panel") {
  mirac::test::TempDir tmp("panel_run");
  const std::string store = tmp.path("run");
  const std::string one_judge = tmp.path("otc.audit"), two_judges = tmp.path("otc2.audit");
  const std::string text = otc_text();
  std::ofstream(one_judge) << text;
  std::string panel = replaced(text, "audit otc {", "audit otc {\n  scores judges");
  panel = replaced(panel, "judge judge = openai(\"gpt-5.4-mini\") { rubric mira temperature 0 }",
                   "judge judge = openai(\"gpt-5.4-mini\") { rubric mira temperature 0 }\n"
                   "judge second = anthropic(\"claude-sonnet-4-6\") { rubric mira temperature 0 }\n"
                   "panel judges = median(judge, second)");
  std::ofstream(two_judges) << panel;

  auto first = mirac::test::invoke({"run", one_judge, "--offline", "--store", store});
  INFO(first.out << first.err);
  REQUIRE(first.code == 0);

  auto plan = mirac::test::invoke({"plan", two_judges});
  auto plan_json = mirac::test::invoke({"plan", two_judges, "--json"});
  INFO(plan.out << plan.err);
  CHECK(plan.out.find("median(judge, second) rubric mira") != std::string::npos);
  CHECK(plan.out.find("analyses use the scores of judges") != std::string::npos);
  auto summary = nlohmann::json::parse(plan_json.out);
  CHECK(summary["scores"] == "judges");
  CHECK(summary["panels"][0]["judges"] == nlohmann::json::array({"judge", "second"}));

  auto second = mirac::test::invoke({"run", two_judges, "--offline", "--store", store});
  INFO(second.out << second.err);
  REQUIRE(second.code == 0);
  CHECK(second.out.find("48 requests: 48 already answered, 0 sent") != std::string::npos);
  CHECK(second.out.find("judge judge: 48 answers, 48 scored") != std::string::npos);
  CHECK(second.out.find("judge second: 48 answers, 48 scored") != std::string::npos);
  CHECK(second.out.find("otc: 48 score rows") != std::string::npos);

  // The panel's scores, as the analysis read them, analyze again from the file.
  const auto scores = std::filesystem::path(store) / "results" / "scores.csv";
  auto again = mirac::test::invoke({"analyze", two_judges, "--offline", "--scores", scores.string(), "--out",
                                    tmp.path("again"), "--resamples", "200"});
  INFO(again.err);
  CHECK(again.code == 0);
  auto results = nlohmann::json::parse(mirac::test::read_text(std::filesystem::path(tmp.path("again")) / "results.json"));
  CHECK(results["means"].size() == 4);
}
