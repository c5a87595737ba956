// coverage_test.cpp: results.json's `coverage` (engine/analyze/coverage.hpp): unscored
// answers counted in all, per model and per level, and a warning when their share differs
// between the levels of a factor.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/analyze/coverage.hpp"
#include "interpreter/driver.hpp"

TEST_CASE("unscored answers are counted per level and a skew between levels is warned about") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "mirac_coverage_test";
  fs::create_directories(dir);
  std::ofstream(dir / "c.audit") << R"(audit cov {}
use stdlib.providers
factor tone { plain warm }
seeds { seed s1 { question = "a?" } seed s2 { question = "b?" } seed s3 { question = "c?" } seed s4 { question = "d?" } }
prompt { id "{seed.id}_{tone}" text seed.question }
model gpt = openai("gpt-5.4-mini")
rubric tiny { scale 1..5 dim D1 "Depth" { 1 "Deep" 5 "Shallow" } }
judge j = openai("gpt-5.4-mini") { rubric tiny }
)";
  auto c = mirac::compile(dir / "c.audit", {});
  fs::remove_all(dir);
  REQUIRE(c->ok());
  mirac::HashSet done;
  for (const auto& r : c->plan.requests) done.insert(r.hash());
  // Every plain answer scored; of the warm ones only s1's.
  mirac::analyze::ScoreTable table;
  table.rater = "j";
  table.dims = {"D1"};
  for (const auto& r : c->plan.requests) {
    const auto& p = c->plan.prompts[r.prompt];
    const bool warm = p.levels[0] == 1;
    if (warm && p.seed != "s1") continue;
    const auto* seed = c->spec.find_seed(p.seed);
    table.rows.push_back({static_cast<int>(seed - c->spec.seeds.data()), r.model, r.arm, p.levels, {2}, 0, {}});
  }
  mirac::Diagnostics diags;
  auto j = mirac::analyze::score_coverage(c->spec, c->plan, done, table, diags);
  CHECK(j["answers"] == 8);
  CHECK(j["scored"] == 5);
  CHECK(j["unscored"] == 3);
  CHECK(j["by_factor"][0]["levels"][1]["level"] == "warm");
  CHECK(j["by_factor"][0]["levels"][1]["share"].get<double>() == doctest::Approx(0.75));
  std::ostringstream printed;
  diags.print(printed, c->sources);
  CHECK(printed.str().find("j left 75.0% of the answers unscored at tone=warm but 0.0% at tone=plain") != std::string::npos);

  // Everything scored: nothing to warn about.
  mirac::analyze::ScoreTable full = table;
  full.rows.clear();
  for (const auto& r : c->plan.requests) {
    const auto& p = c->plan.prompts[r.prompt];
    const auto* seed = c->spec.find_seed(p.seed);
    full.rows.push_back({static_cast<int>(seed - c->spec.seeds.data()), r.model, r.arm, p.levels, {2}, 0, {}});
  }
  mirac::Diagnostics quiet;
  CHECK(mirac::analyze::score_coverage(c->spec, c->plan, done, full, quiet)["unscored"] == 0);
  CHECK(quiet.all().empty());
}
