// annotate_test.cpp: `mirac annotate sample` and `mirac annotate import` through the real
// binary, offline: the sample is seeded and stratified as asked (proportional or equal), and
// a sheet is checked row by row before anything is stored.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "mirac_binary.hpp"

namespace {

std::string otc() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return (std::filesystem::path(root) / "examples/otc/otc.audit").string();
}

std::vector<std::string> sheet_ids(const std::string& csv) {
  std::vector<std::string> ids;
  std::size_t start = csv.find('\n') + 1;
  while (start < csv.size()) {
    const auto end = csv.find('\n', start);
    const std::string line = csv.substr(start, end - start);
    const auto a = line.find(','), b = line.find(',', a + 1);
    ids.push_back(line.substr(a + 1, b - a - 1));
    start = end + 1;
  }
  return ids;
}

}  // namespace

TEST_CASE("annotate sample: seeded, stratified, proportional or equal; blind to judges, models and arms") {
  mirac::test::TempDir tmp("annotate_sample");
  const std::string store = tmp.path("run");
  REQUIRE(mirac::test::invoke({"run", otc(), "--offline", "--store", store, "--answers-only"}).code == 0);
  auto a = mirac::test::invoke({"annotate", "sample", otc(), "--offline", "--store", store, "--n", "10", "--stratify",
                                "model", "--seed", "3", "-o", tmp.path("a")});
  INFO(a.out << a.err);
  REQUIRE(a.code == 0);
  auto b = mirac::test::invoke({"annotate", "sample", otc(), "--offline", "--store", store, "--n", "10", "--stratify",
                                "model", "--seed", "3", "-o", tmp.path("b")});
  const std::string sheet = mirac::test::read_text(std::filesystem::path(tmp.path("a")) / "sheet.csv");
  CHECK(sheet == mirac::test::read_text(std::filesystem::path(tmp.path("b")) / "sheet.csv"));  // same seed, same sample
  CHECK(sheet.rfind("item,id,prompt_id,D1,D2,D3,Q2,Q3,comment\n", 0) == 0);
  CHECK(sheet.find("mini") == std::string::npos);  // no model names, no arms
  CHECK(sheet.find("baseline") == std::string::npos);
  CHECK(sheet_ids(sheet).size() == 10);
  auto manifest = nlohmann::json::parse(mirac::test::read_text(std::filesystem::path(tmp.path("a")) / "sample.json"));
  CHECK(manifest["allocation"] == "proportional");
  CHECK(manifest["strata"].size() == 2);
  CHECK(manifest["strata"][0]["sampled"] == 5);

  auto equal = mirac::test::invoke({"annotate", "sample", otc(), "--offline", "--store", store, "--n", "6", "--stratify",
                                    "literacy,tone", "--equal", "-o", tmp.path("c")});
  INFO(equal.out);
  REQUIRE(equal.code == 0);
  CHECK(equal.out.find("6 of 48 stored answers, equal allocation over 4 strata (literacy x tone)") != std::string::npos);
  auto bad = mirac::test::invoke({"annotate", "sample", otc(), "--offline", "--store", store, "--stratify", "colour"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("'colour' is not a factor, model, arm, seed, cell or seed field") != std::string::npos);
  auto none = mirac::test::invoke({"annotate", "sample", otc(), "--store", tmp.path("nothing")});
  CHECK(none.code == 2);
  CHECK(none.err.find("no run store") != std::string::npos);
}

TEST_CASE("annotate import checks every row: ids, duplicates, the scale, N/A where the rubric forbids it") {
  mirac::test::TempDir tmp("annotate_import");
  const std::string store = tmp.path("run");
  REQUIRE(mirac::test::invoke({"run", otc(), "--offline", "--store", store, "--answers-only"}).code == 0);
  REQUIRE(mirac::test::invoke({"annotate", "sample", otc(), "--offline", "--store", store, "--n", "3", "-o", tmp.path("s")})
              .code == 0);
  const auto ids = sheet_ids(mirac::test::read_text(std::filesystem::path(tmp.path("s")) / "sheet.csv"));
  REQUIRE(ids.size() == 3);
  const std::string bad = tmp.path("bad.csv");
  std::ofstream(bad) << "item,id,D1,D2,D3,comment\n"
                     << "1," << ids[0] << ",2,N/A,3,fine\n"
                     << "2," << ids[0] << ",2,2,2,\n"
                     << "3,deadbeef,1,1,1,\n"
                     << "4," << ids[1] << ",7,2,N/A,\n"
                     << "5," << ids[2] << ",N/A,,,\n";
  auto rejected = mirac::test::invoke({"annotate", "import", otc(), bad, "--annotator", "bo", "--offline", "--store", store});
  INFO(rejected.err);
  CHECK(rejected.code == 1);
  CHECK(rejected.err.find("answer '" + ids[0] + "' appears twice") != std::string::npos);
  CHECK(rejected.err.find("'deadbeef' is not the id of an answer of this spec's plan") != std::string::npos);
  CHECK(rejected.err.find("'7' for D1 is not a score: a whole number from 1 to 5, or empty") != std::string::npos);
  CHECK(rejected.err.find("D1 is N/A, but the rubric always scores it") != std::string::npos);
  CHECK(rejected.err.find("4 errors generated.") != std::string::npos);  // D3 may be N/A: it has `na when`
  CHECK(rejected.err.find("nothing imported") != std::string::npos);

  const std::string good = tmp.path("good.csv");
  std::ofstream(good) << "item,id,D1,D2,D3,comment\n1," << ids[0] << ",2,N/A,3,\"fine, really\"\n2," << ids[1] << ",1,,,\n";
  auto stored = mirac::test::invoke({"annotate", "import", otc(), good, "--annotator", "bo", "--offline", "--store", store});
  INFO(stored.err);
  CHECK(stored.code == 0);
  CHECK(stored.out.find("4 scores of 2 answers stored for annotator bo") != std::string::npos);
  auto who = mirac::test::invoke({"annotate", "import", otc(), good, "--offline", "--store", store});
  CHECK(who.code == 2);
  CHECK(who.err.find("give --annotator NAME or --adjudicated") != std::string::npos);
}
