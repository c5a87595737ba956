// mira_test.cpp: a whole analyze of specs/mira.audit on 43,200 synthetic rows (60 seeds x
// 72 cells x 5 models x 2 arms), when the authors' release is present. Checks the shape of
// the results (counts of pairs, terms, tests); the numbers themselves are checked against
// external references on small.audit (pipeline_test.cpp).
#include <doctest/doctest.h>

#include <algorithm>

#include "interpreter/driver.hpp"
#include "tests/analyze/analyze_support.hpp"
#include "tests/analyze/synthetic_scores.hpp"

using namespace analyze_test;

TEST_CASE("analyze specs/mira.audit on 43,200 synthetic rows") {
  const char* release = std::getenv("MIRAC_RELEASE_DIR");
  if (!release || !std::filesystem::exists(std::filesystem::path(release) / "seedfinal.csv")) {
    MESSAGE("MIRAC_RELEASE_DIR not set or without the release: skipped");
    return;
  }
  const auto spec_path = source_dir() / "specs/mira.audit";
  mirac::CheckOptions options;
  options.data_root = release;
  auto c = mirac::compile(spec_path, options);
  REQUIRE(c->ok());
  auto dir = temp_dir("mira");
  std::ofstream(dir / "scores.csv", std::ios::binary) << synthetic_scores_csv(c->spec, 42);
  Run r = run_analyze(spec_path, dir / "scores.csv", dir / "out", 100, 1, release);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto& j = r.results;
  CHECK(j.at("manifest").at("scores").at("rows") == 43200);
  // The mitigation arm's system prompt file is an input like the data files.
  std::vector<std::string> inputs;
  for (const auto& i : j.at("manifest").at("inputs")) inputs.push_back(i.at("path"));
  for (const char* file : {"seedfinal.csv", "seed_checklists.jsonl", "prompts_all.jsonl", "mitigation.txt"})
    CHECK_MESSAGE(std::count(inputs.begin(), inputs.end(), file) == 1, file);
  CHECK(j.at("manifest").at("simulated") == false);
  CHECK(j.at("means").size() == 10);
  for (const auto& f : j.at("flags")) {
    if (f.at("name") != "DID_FLAG") continue;
    for (const auto& row : f.at("by_model_arm")) CHECK(row.at("pairs") == 2160);  // 4320 prompts / 2
  }
  for (const auto& a : j.at("analyses")) {
    INFO(a.at("name"));
    if (a.at("kind") == "lmm") {
      CHECK(a.at("n").get<int>() > 21000);
      CHECK(a.at("fixed").size() == 22);  // 1 + 7 (language*hls*register) + 4 models + 2 conditions + 8 categories
      CHECK(a.at("random")[0].at("groups") == 60);
      CHECK(a.at("convergence").at("status") == "converged");
    } else if (a.at("kind") == "wilcoxon") {
      CHECK(a.at("tests").size() == 4);  // (A vs B, C vs B) x (zh, en)
      for (const auto& t : a.at("tests")) CHECK(t.at("duplicate_keys") == 0);
    } else if (a.at("kind") == "paired") {
      const auto& groups = a.at("comparisons")[0].at("groups");
      CHECK(groups.size() == 5);
      for (const auto& g : groups) CHECK(g.at("pairs") == 4320);
    }
  }
  CHECK(j.at("contrasts").size() == 3);
  // The paper's Figure 6: the 60 seeds over nine categories, Gynecology/Obstetrics (10) and
  // Mental Health (8) first, six each in the other seven. Notes and questions are prose.
  const auto& seeds = j.at("seeds");
  CHECK(seeds.at("count") == 60);
  const auto& category = seeds.at("fields").at("category");
  REQUIRE(category.size() == 9);
  CHECK(category[0].at("value") == "Gynecology/Obstetrics");
  CHECK(category[0].at("seeds") == 10);
  CHECK(category[1].at("value") == "Mental Health");
  CHECK(category[1].at("seeds") == 8);
  for (std::size_t k = 2; k < 9; ++k) CHECK(category[k].at("seeds") == 6);
  CHECK(seeds.at("fields").contains("kind"));
  CHECK_FALSE(seeds.at("fields").contains("notes"));
  CHECK_FALSE(seeds.at("fields").contains("question"));
  // Its report draws them (the item fig6 of specs/mira.audit, whose files carry its name).
  CHECK(std::filesystem::exists(dir / "out/figures/fig6.vl.json"));
}
