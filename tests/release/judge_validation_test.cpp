// judge_validation_test.cpp: the paper's judge validation on specs/mira.audit, through the
// real binary: a whole offline MIRA run (43,200 answers and their judgments), `mirac annotate sample` of 230 answers stratified by model,
// language and HLS, a scripted annotator that scores them (the judge's score moved by one
// step for a planted subset), `mirac annotate import`, and the spec's agreement analyses:
// Table 2 (judge vs human) and Table 16 (by model family) in results.json and the report,
// with kappas equal to the function pinned to sklearn in tests/stats.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/stats/agreement.hpp"
#include "tests/cli/mirac_binary.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string release_dir() {
  const char* dir = std::getenv("MIRAC_RELEASE_DIR");
  return dir && fs::exists(fs::path(dir) / "prompts_all.jsonl") ? dir : "";
}

// The annotator's score: the judge's, one step off for a planted third of the answers.
double planted(double judge, std::size_t item, std::size_t dim) {
  if ((item * 5 + dim) % 3 != 0) return judge;
  return judge >= 5 ? judge - 1 : judge + 1;
}

}  // namespace

TEST_CASE("MIRA judge validation: a 230-answer stratified sample, a scripted annotator, Tables 2 and 16") {
  const std::string release = release_dir();
  if (release.empty()) {
    WARN_MESSAGE(false, "../shared/mira-release not found: MIRA judge validation not run");
    return;
  }
  mirac::test::TempDir tmp("judge_validation");
  const std::string spec = std::string(std::getenv("MIRAC_SOURCE_DIR")) + "/specs/mira.audit";
  const std::string store = tmp.path("run"), sample_dir = tmp.path("sample");
  const std::vector<std::string> common = {"--data", release, "--offline", "--store", store};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), common.begin(), common.end());
    return mirac::test::invoke(args);
  };
  auto run = with({"run", spec, "--resamples", "100"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  // Said once for the three analyses that wait for people's scores, as a note, not a warning each.
  CHECK(run.err.find("note: no people's scores yet (rater 'human'), so analyses judge_human, judge_human_family and "
                     "judge_corrected stay empty") != std::string::npos);
  CHECK(run.err.find("warning: analysis judge_human") == std::string::npos);

  auto sample = with({"annotate", "sample", spec, "--n", "230", "--stratify", "model,language,hls", "-o", sample_dir});
  INFO(sample.out << sample.err);
  REQUIRE(sample.code == 0);
  CHECK(sample.out.find("230 of 43200 stored answers, proportional allocation over 20 strata (model x language x hls)") !=
        std::string::npos);

  // The scripted annotator fills the sheet from the judge's exported scores.
  auto exported = with({"export", spec, "scores"});
  REQUIRE(exported.code == 0);
  std::map<std::string, Json> judge;
  std::istringstream rows(exported.out);
  for (std::string line; std::getline(rows, line);)
    if (!line.empty()) {
      Json row = Json::parse(line);
      judge[row["hash"].get<std::string>()] = row;
    }
  const std::vector<std::string> dims = {"D1", "D2", "D3", "Q2", "Q3"};
  std::istringstream sheet(mirac::test::read_text(fs::path(sample_dir) / "sheet.csv"));
  std::string line, filled;
  std::getline(sheet, line);
  filled = line + "\n";
  std::map<std::string, std::size_t> item_of;
  while (std::getline(sheet, line)) {
    const auto a = line.find(','), b = line.find(',', a + 1), c = line.find(',', b + 1);
    const std::string item = line.substr(0, a), id = line.substr(a + 1, b - a - 1), prompt = line.substr(b + 1, c - b - 1);
    item_of[id] = std::stoul(item);
    filled += item + "," + id + "," + prompt;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const Json& v = judge.at(id)[dims[d]];
      filled += "," + (v.is_null() ? std::string("N/A") : fmt::format("{}", planted(v.get<double>(), std::stoul(item), d)));
    }
    filled += ",\n";
  }
  REQUIRE(item_of.size() == 230);
  const fs::path sheet_path = tmp.dir / "annotator.csv";
  std::ofstream(sheet_path) << filled;
  auto imported = with({"annotate", "import", spec, sheet_path.string(), "--annotator", "alice"});
  INFO(imported.out << imported.err);
  REQUIRE(imported.code == 0);

  auto analyzed = with({"analyze", spec, "--out", tmp.path("out"), "--resamples", "100"});
  INFO(analyzed.err);
  REQUIRE(analyzed.code == 0);
  const Json results = Json::parse(mirac::test::read_text(fs::path(tmp.path("out")) / "results.json"));
  std::map<std::string, const Json*> analyses;
  for (const auto& a : results["analyses"]) analyses[a["name"].get<std::string>()] = &a;
  REQUIRE(analyses.count("judge_human"));
  REQUIRE(analyses.count("judge_human_family"));
  const Json& table2 = *analyses["judge_human"];
  const Json& table16 = *analyses["judge_human_family"];
  REQUIRE_MESSAGE(!table2.contains("error"), table2.dump());
  REQUIRE(table2["results"].size() == 5);
  REQUIRE(table16["results"].size() == 6);  // D3, Q2, Q3 x GPT-family, Non-GPT

  // Every row recomputed from the planted scores: n, N/A pairs, exact, adjacent, kappa.
  auto check_entry = [&](const Json& entry, const std::string& family) {
    const std::string dim = entry["dimension"];
    const std::size_t d = static_cast<std::size_t>(std::find(dims.begin(), dims.end(), dim) - dims.begin());
    std::vector<double> xs, ys;
    std::size_t na = 0;
    for (const auto& [id, item] : item_of) {
      const Json& row = judge.at(id);
      if (!family.empty() && (row["model"] == "gpt") != (family == "GPT-family")) continue;
      const Json& v = row[dim];
      if (v.is_null()) {
        ++na;
        continue;
      }
      xs.push_back(v.get<double>());
      ys.push_back(planted(v.get<double>(), item, d));
    }
    const Json& p = entry["pairs"][0];
    INFO(dim << " " << family << " " << p.dump());
    CHECK(p["n"] == xs.size());
    CHECK(p["na_pairs"] == na);
    double exact = 0, adjacent = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) exact += xs[i] == ys[i], adjacent += std::fabs(xs[i] - ys[i]) <= 1;
    CHECK(p["exact"].get<double>() == doctest::Approx(exact / static_cast<double>(xs.size())));
    CHECK(p["adjacent"].get<double>() == 1.0);
    const std::vector<double> labels = {1, 2, 3, 4, 5};
    const double qwk = mirac::stats::quadratic_weighted_kappa(xs, ys, labels);
    if (std::isnan(qwk)) CHECK(p["qwk"].is_null());
    else CHECK(p["qwk"].get<double>() == doctest::Approx(qwk).epsilon(1e-12));
  };
  std::size_t total = 0;
  for (const auto& entry : table2["results"]) {
    check_entry(entry, "");
    total += entry["pairs"][0]["n"].get<std::size_t>() + entry["pairs"][0]["na_pairs"].get<std::size_t>();
  }
  CHECK(total == 5 * 230);
  for (const auto& entry : table16["results"]) check_entry(entry, entry["family"].get<std::string>());

  const std::string report = mirac::test::read_text(fs::path(tmp.path("out")) / "report.md");
  CHECK(report.find("## Judge validation") != std::string::npos);
  CHECK(report.find("Analysis judge_human: agreement of mira_judge, human") != std::string::npos);
  CHECK(report.find("Analysis judge_human_family: agreement of mira_judge, human, by family") != std::string::npos);
  CHECK(report.find("GPT-family") != std::string::npos);
  CHECK(report.find("Non-GPT") != std::string::npos);
}
