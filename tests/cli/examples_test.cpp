// examples_test.cpp: the audit outside medicine (examples/tenancy) checks and runs offline
// end to end; its contrast that ranges over levels is computed per level, its flags per pairing.
#include <doctest/doctest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "mirac_binary.hpp"

namespace {

std::string tenancy_spec() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return (std::filesystem::path(root) / "examples/tenancy/tenancy.audit").string();
}

const nlohmann::json& named(const nlohmann::json& list, const std::string& name) {
  for (const auto& e : list)
    if (e["name"] == name) return e;
  FAIL("no entry named " << name);
  return list;
}

}  // namespace

TEST_CASE("the tenancy example checks and runs offline from prompts to report") {
  auto check = mirac::test::invoke({"check", tenancy_spec()});
  INFO(check.err);
  REQUIRE(check.code == 0);
  CHECK(check.out.find("ok (4 seeds, 16 prompts, 32 requests)") != std::string::npos);

  mirac::test::TempDir tmp("tenancy");
  const std::string store = tmp.path("run");
  auto run = mirac::test::invoke({"run", tenancy_spec(), "--offline", "--store", store});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("judge grader: 32 answers, 32 scored, 0 unusable replies, 0 failed") != std::string::npos);
  const auto out_dir = std::filesystem::path(store) / "results";
  auto results = nlohmann::json::parse(mirac::test::read_text(out_dir / "results.json"));
  // `SUBSTANCE[each urgency] - SUBSTANCE[calm]` ranges over urgent alone, so it keeps its name.
  REQUIRE(results["contrasts"].size() == 2);
  const auto& urgency = named(results["contrasts"], "urgency_gap");
  CHECK(urgency["definition"] == "SUBSTANCE[urgent] - SUBSTANCE[calm]");
  CHECK(urgency["groups"].size() == 2);  // one per model
  CHECK(named(results["contrasts"], "fluency_gap")["groups"][0]["estimate"].is_number());
  const auto& gap = named(results["flags"], "FLUENCY_GAP");
  CHECK(gap["pairings"][0]["pairing"] == "fluency: learner vs native");
  CHECK(results["analyses"][0]["name"] == "main");
  const std::string report = mirac::test::read_text(out_dir / "report.md");
  CHECK(report.find("# Tenancy questions by fluency and urgency (simulated answers)") == 0);
}
