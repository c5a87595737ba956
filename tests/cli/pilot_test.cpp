// pilot_test.cpp: a variant whose texts cover one seed of three, piloted with --only seed=...
// through the real binary: check and plan pass on that seed, the run sends and samples
// requests of it alone, and without the selection check says once how to pilot (issue 30).
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
