// dim_scale_run_test.cpp: an offline run of a rubric whose OVERALL dimension scores 1..10
// beside D1 and D2 on the rubric's 1..5 (tests/cli/dim_scale_run.audit): the simulated judge
// scores each dimension on its own scale, the lmm and clmm of OVERALL run on it, and the
// report's bars reach the top of the widest scale; people's scores are checked on it too.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "mirac_binary.hpp"

TEST_CASE("a 1..10 dimension beside 1..5 ones: judged, analysed and reported on its own scale") {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  const std::string spec = (std::filesystem::path(root) / "tests/cli/dim_scale_run.audit").string();
  mirac::test::TempDir tmp("dim_scale_run");
  const std::string store = tmp.path("run");
  auto run = mirac::test::invoke({"run", spec, "--offline", "--store", store});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const auto out = std::filesystem::path(store) / "results";

  // Every score on its dimension's scale, and OVERALL past the rubric's 5.
  std::istringstream csv(mirac::test::csv_table(mirac::test::read_text(out / "scores.csv")));
  std::string line;
  std::getline(csv, line);
  CHECK(line == "seed,model,arm,tone,D1,D2,OVERALL");
  double overall_max = 0;
  int rows = 0;
  while (std::getline(csv, line)) {
    std::vector<double> v;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) v.push_back(std::atof(cell.c_str()));
    REQUIRE(v.size() == 7);
    CHECK(v[4] >= 1);
    CHECK(v[4] <= 5);
    CHECK(v[5] >= 1);
    CHECK(v[5] <= 5);
    CHECK(v[6] >= 1);
    CHECK(v[6] <= 10);
    overall_max = std::max(overall_max, v[6]);
    ++rows;
  }
  CHECK(rows == 24);
  CHECK(overall_max > 5);

  const auto results = nlohmann::json::parse(mirac::test::read_text(out / "results.json"));
  bool lmm = false, clmm = false;
  for (const auto& a : results["analyses"]) {
    CHECK_FALSE(a.contains("error"));
    if (a["name"] == "overall_lmm") lmm = a["fixed"].size() == 3;
    if (a["name"] == "overall_clmm") clmm = a["thresholds"].size() + 1 == a["categories"].size() && a["categories"].size() > 5;
  }
  CHECK(lmm);
  CHECK(clmm);
  // The bars of D1 and OVERALL share an axis to 10, the top of the widest scale.
  const auto figure = nlohmann::json::parse(mirac::test::read_text(out / "figures" / "bars-D1-OVERALL.vl.json"));
  CHECK(figure.dump().find(R"("scale":{"domain":[0,10.0]})") != std::string::npos);

  // People's scores: 7 is a score of OVERALL, not of D1.
  REQUIRE(mirac::test::invoke({"annotate", "sample", spec, "--offline", "--store", store, "--n", "2", "-o", tmp.path("s")})
              .code == 0);
  const std::string sheet = mirac::test::read_text(std::filesystem::path(tmp.path("s")) / "sheet.csv");
  std::vector<std::string> ids;
  for (std::size_t at = sheet.find('\n') + 1; at < sheet.size(); at = sheet.find('\n', at) + 1) {
    const std::size_t a = sheet.find(',', at), b = sheet.find(',', a + 1);
    ids.push_back(sheet.substr(a + 1, b - a - 1));
  }
  REQUIRE(ids.size() == 2);
  const std::string scores = tmp.write("people.csv", "item,id,D1,D2,OVERALL,comment\n1," + ids[0] + ",7,2,7,\n2," + ids[1] + ",2,2,7,\n");
  auto import = mirac::test::invoke({"annotate", "import", spec, scores, "--annotator", "al", "--offline", "--store", store});
  CHECK(import.code == 1);
  CHECK(import.err.find("'7' for D1 is not a score: a whole number from 1 to 5, or empty") != std::string::npos);
  CHECK(import.err.find("for OVERALL") == std::string::npos);
  CHECK(import.err.find("1 error generated.") != std::string::npos);
}
