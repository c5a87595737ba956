// pilot_test.cpp: a variant whose texts cover one seed of three, piloted with --only seed=...
// through the real binary: check and plan pass on that seed, the run sends and samples
// requests of it alone, and without the selection check says once how to pilot. A judged
// pilot (tests/cli/pilot_judged.audit, two seeds of five): plan counts the selection alone
// (issue 30).
#include <doctest/doctest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "mirac_binary.hpp"

namespace {

std::string pilot_spec() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return (std::filesystem::path(root) / "tests/golden/data/pilot_variant_selected.audit").string();
}

std::string judged_spec() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return (std::filesystem::path(root) / "tests/cli/pilot_judged.audit").string();
}

}  // namespace

TEST_CASE("a variant covering one seed is piloted on it with --only seed=") {
  auto unselected = mirac::test::invoke({"check", pilot_spec()});
  INFO(unselected.out << unselected.err);
  CHECK(unselected.code == 1);
  CHECK(unselected.err.find("lock file 'lock_pilot.jsonl' covers 1 of the 3 seeds (s1): pilot the spec on them with "
                            "--only seed=s1") != std::string::npos);
  CHECK(unselected.err.find("1 error generated") != std::string::npos);

  auto checked = mirac::test::invoke({"check", pilot_spec(), "--only", "seed=s1"});
  INFO(checked.out << checked.err);
  CHECK(checked.code == 0);
  CHECK(checked.out.find("ok (1 seeds, 4 prompts, 4 requests)") != std::string::npos);

  auto gap = mirac::test::invoke({"check", pilot_spec(), "--only", "seed=s1,s2"});
  CHECK(gap.code == 1);
  CHECK(gap.err.find("has no text for seed 's2' in cell zh.plain") != std::string::npos);

  auto unknown = mirac::test::invoke({"check", pilot_spec(), "--only", "seed=s9"});
  CHECK(unknown.code == 1);
  CHECK(unknown.err.find("--only seed=s9 selects seed 's9', which the spec does not have") != std::string::npos);

  // The plan holds no prompt of another seed.
  auto plan = mirac::test::invoke({"plan", pilot_spec(), "--only", "seed=s1", "--show", "plan"});
  INFO(plan.err);
  REQUIRE(plan.code == 0);
  const auto dumped = nlohmann::json::parse(plan.out);
  REQUIRE(dumped["prompt_table"].size() == 4);
  for (const auto& p : dumped["prompt_table"]) CHECK(p["seed"] == "s1");

  // A sampled offline pilot sends requests of the selected seed alone.
  mirac::test::TempDir tmp("pilot_run");
  auto run = mirac::test::invoke(
      {"run", pilot_spec(), "--offline", "--only", "seed=s1", "--sample", "3", "--store", tmp.path("run")});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find(": 3 requests") != std::string::npos);
}

TEST_CASE("mirac plan with a selection counts and prices the selected requests alone") {
  // The pilot's plan: 2 seeds x 4 cells, one model and arm, one judge: 8 prompts, requests
  // and judge calls. --only language=zh keeps 4 of each.
  auto text = mirac::test::invoke({"plan", judged_spec(), "--only", "seed=s1,s2,language=zh"});
  INFO(text.out << text.err);
  REQUIRE(text.code == 0);
  CHECK(text.out.find("selected by --only seed=s1,s2,language=zh: every count, token and cost below is of these "
                      "requests alone\n") != std::string::npos);
  CHECK(text.out.find("prompts             4  of 8 in the plan (2 of 2 seeds)\n") != std::string::npos);
  CHECK(text.out.find("requests            4  of 8 in the plan\n") != std::string::npos);
  CHECK(text.out.find("judge calls         4  of 8 in the plan\n") != std::string::npos);
  CHECK(text.out.find("  mini                4  openai(\"gpt-5.4-mini\")") != std::string::npos);
  CHECK(text.out.find("  language      zh 4  en 0\n") != std::string::npos);
  CHECK(text.out.find("  tone          plain 2  warm 2\n") != std::string::npos);

  // As JSON: the selection's counts, the whole plan's under "selected"; the forecasts of the
  // two languages add up to the whole plan's (each total rounded once).
  auto json_of = [](std::vector<std::string> args) {
    auto r = mirac::test::invoke(args);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out);
  };
  const auto whole = json_of({"plan", judged_spec(), "--only", "seed=s1,s2", "--json"});
  const auto zh = json_of({"plan", judged_spec(), "--only", "seed=s1,s2,language=zh", "--json"});
  const auto en = json_of({"plan", judged_spec(), "--only", "seed=s1,s2,language=en", "--json"});
  CHECK(whole["requests"] == 8);
  CHECK(zh["selected"]["by"] == "--only seed=s1,s2,language=zh");
  CHECK(zh["selected"]["plan"] == nlohmann::json({{"seeds", 2}, {"prompts", 8}, {"requests", 8}, {"judge_calls", 8}}));
  CHECK(zh["seeds"] == 2);
  CHECK(zh["prompts"] == 4);
  CHECK(zh["requests"] == 4);
  CHECK(zh["judge_calls"] == 4);
  CHECK(zh["requests_by_factor"]["language"] == nlohmann::json({{"zh", 4}, {"en", 0}}));
  for (const char* key : {"input_tokens", "max_output_tokens"}) {
    const long long sum = zh["forecast"][key].get<long long>() + en["forecast"][key].get<long long>();
    CHECK(std::llabs(sum - whole["forecast"][key].get<long long>()) <= 1);
    CHECK(zh["forecast"][key].get<long long>() < whole["forecast"][key].get<long long>());
  }
  CHECK(zh["forecast"]["max_cost_usd"].get<double>() + en["forecast"]["max_cost_usd"].get<double>() ==
        doctest::Approx(whole["forecast"]["max_cost_usd"].get<double>()).epsilon(1e-6));
  CHECK(zh["forecast"]["judging"][0]["calls"] == 4);
  CHECK(json_of({"plan", judged_spec(), "--only", "seed=s1,s2", "--sample", "3", "--json"})["requests"] == 3);
}
