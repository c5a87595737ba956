// failures_test.cpp: how analyses report what goes wrong: duplicate pairing keys warned
// about once per comparison, `effect none` without d_z (and `adjust none` unadjusted), and
// one failing analysis that leaves the others computed. Runs the library (compile,
// load_scores, analyze_scores), so the messages are checked as `mirac analyze` prints them.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <sstream>

#include <fmt/format.h>

#include "engine/analyze/analyze.hpp"
#include "interpreter/driver.hpp"
#include "tests/analyze/analyze_support.hpp"

using namespace analyze_test;

namespace {

// Two languages x two tones x two framings; `dup` pairs on seed and model only, so each
// key holds both framings: every key of both strata is a duplicate.
const char* kSpec = R"(audit failures { title "failures" }
use stdlib.providers
factor language { zh en }
factor tone { plain warm }
factor framing { x y }
seeds {
  seed 1 { question = "q1" }
  seed 2 { question = "q2" }
  seed 3 { question = "q3" }
  seed 4 { question = "q4" }
}
prompt {
  id "{seed.id}_{language}_{tone}_{framing}"
  text seed.question
}
model gpt = openai("gpt-5.4")
arm baseline { system none }
arm careful { system "Be careful." }
rubric r {
  scale 1..5
  worst high
  dim D1 "One" { 1 "low" 5 "high" }
  dim D2 "Two" { 1 "low" 5 "high" }
}
analysis nodz = wilcoxon(D1) {
  compare tone: warm vs plain
  within language
  adjust none
  effect none
}
analysis dup = wilcoxon(D1, D2) {
  compare tone: warm vs plain
  pairs seed, model
  within language
}
analysis fine = wilcoxon(D1, D2) {
  compare tone: warm vs plain
  within language
}
analysis ext = spearman(D1) {
  by language
  against csv("ext.csv")
}
analysis pairs_dup = paired(D1, D2) {
  compare arm: careful vs baseline
  pairs seed, model
}
)";

// The line of `analysis NAME` in kSpec, for the positions of messages.
int line_of(const std::string& name) {
  std::string spec = kSpec;
  std::size_t at = spec.find("analysis " + name + " ");
  return 1 + static_cast<int>(std::count(spec.begin(), spec.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

struct Analyzed {
  std::unique_ptr<mirac::Compilation> c;
  mirac::analyze::Output out;
  std::string err;  ///< the analysis diagnostics as printed, temp directory replaced by DIR
};

// Compiles kSpec in a fresh directory with synthetic scores (warm scores one higher than
// plain on seeds 1-3), lets `change` alter the checked spec, and analyzes.
Analyzed analyze(const std::string& name, const std::function<void(mirac::Spec&)>& change = {}) {
  auto dir = temp_dir("failures_" + name);
  std::ofstream(dir / "t.audit", std::ios::binary) << kSpec;
  std::string csv = "seed,model,arm,language,tone,framing,D1,D2\n";
  for (int seed = 1; seed <= 4; ++seed)
    for (const char* arm : {"baseline", "careful"})
      for (const char* language : {"zh", "en"})
        for (const char* tone : {"plain", "warm"})
          for (const char* framing : {"x", "y"}) {
            int score = 2 + (std::string(tone) == "warm" && seed <= 3 ? 1 : 0) + (seed == 2 && framing[0] == 'y' ? 1 : 0) +
                        (arm[0] == 'c' && seed == 1 ? 1 : 0);
            csv += fmt::format("{},gpt,{},{},{},{},{},{}\n", seed, arm, language, tone, framing, score, 6 - score);
          }
  std::ofstream(dir / "scores.csv", std::ios::binary) << csv;
  std::ofstream(dir / "ext.csv", std::ios::binary) << "language,D1\nzh,1\nen,2\n";
  Analyzed a;
  a.c = mirac::compile(dir / "t.audit", mirac::CheckOptions{});
  std::ostringstream compile_err;
  a.c->diags.print(compile_err, a.c->sources);
  INFO(compile_err.str());
  REQUIRE(a.c->ok());
  mirac::Diagnostics diags;
  auto table = mirac::analyze::load_scores(a.c->spec, dir / "scores.csv", a.c->sources, diags);
  REQUIRE(table);
  mirac::Spec spec = a.c->spec;
  if (change) change(spec);
  a.out = mirac::analyze::analyze_scores(spec, *table, mirac::analyze::AnalyzeOptions{}, a.c->sources, diags);
  std::ostringstream err;
  diags.print(err, a.c->sources);
  a.err = err.str();
  for (std::size_t at; (at = a.err.find(dir.string())) != std::string::npos;) a.err.replace(at, dir.string().size(), "DIR");
  return a;
}

const nlohmann::ordered_json& analysis(const Analyzed& a, const std::string& name) {
  for (const auto& x : a.out.json.at("analyses"))
    if (x.at("name") == name) return x;
  FAIL("no analysis " << name);
  throw std::logic_error("unreachable");
}

const mirac::analyze::Table* table(const Analyzed& a, const std::string& name) {
  for (const auto& t : a.out.tables)
    if (t.name == name) return &t;
  return nullptr;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("duplicate pairing keys are warned about once per comparison, with their count") {
  Analyzed a = analyze("dup");
  // wilcoxon: four seeds x two strata, each key holding both framings and arms, two
  // dimensions sharing them; paired: four seeds, each key holding every cell.
  CHECK(count(a.err, "pairing key") == 2);  // dup (wilcoxon) and pairs_dup (paired), once each
  CHECK(a.err.find(fmt::format("DIR/t.audit:{}:10: warning: analysis dup: 8 pairing keys of tone: warm vs plain have "
                               "more than one answer on a side and are left out (4 in zh, 4 in en; see results.json); "
                               "name every factor that varies in 'pairs'\n", line_of("dup"))) != std::string::npos);
  CHECK(a.err.find(fmt::format("DIR/t.audit:{}:10: warning: analysis pairs_dup: 4 pairing keys of arm: careful vs "
                               "baseline have more than one answer on a side and are left out (see results.json)",
                               line_of("pairs_dup"))) != std::string::npos);
  // The per-test counts stay in results.json.
  for (const auto& t : analysis(a, "dup").at("tests")) CHECK(t.at("duplicate_keys") == 4);
  for (const auto& t : analysis(a, "fine").at("tests")) CHECK(t.at("duplicate_keys") == 0);
}

TEST_CASE("effect none leaves d_z out of the JSON and the CSV") {
  Analyzed a = analyze("effect");
  const auto& nodz = analysis(a, "nodz");
  CHECK(nodz.at("effect") == "none");
  REQUIRE(nodz.at("tests").size() == 2);
  for (const auto& t : nodz.at("tests")) {
    CHECK_FALSE(t.contains("cohen_dz"));
    CHECK(t.contains("mean_delta"));
    // `none` is a reserved word; `adjust none` still means unadjusted p-values.
    REQUIRE(t.at("wilcoxon").is_object());
    CHECK(t.at("q") == t.at("wilcoxon").at("p"));
  }
  CHECK(nodz.at("adjust") == "none");
  const auto* csv = table(a, "wilcoxon_nodz");
  REQUIRE(csv);
  CHECK(std::find(csv->header.begin(), csv->header.end(), "cohen_dz") == csv->header.end());
  for (const auto& row : csv->rows) CHECK(row.size() == csv->header.size());
  // The default still reports it.
  CHECK(analysis(a, "fine").at("effect") == "cohen_dz");
  CHECK(analysis(a, "fine").at("tests")[0].contains("cohen_dz"));
  const auto* fine = table(a, "wilcoxon_fine");
  REQUIRE(fine);
  CHECK(std::find(fine->header.begin(), fine->header.end(), "cohen_dz") != fine->header.end());
}

TEST_CASE("an analysis that fails is its own error; the others are still computed") {
  // A malformed option that check would have refused stands in for a fault of mirac's:
  // `against` without a value makes the spearman code throw std::out_of_range.
  Analyzed a = analyze("internal", [](mirac::Spec& spec) {
    for (auto& x : spec.analyses)
      for (auto& o : x.options)
        if (x.name.name == "ext" && o.key.name == "against") o.values.clear();
  });
  const auto& ext = analysis(a, "ext");
  CHECK(ext.at("kind") == "spearman");
  REQUIRE(ext.contains("error"));
  CHECK(ext.at("error").get<std::string>().rfind("internal error: ", 0) == 0);
  CHECK_FALSE(ext.contains("results"));
  CHECK(table(a, "spearman_ext") == nullptr);
  // Before and after it, the other analyses completed.
  CHECK(analysis(a, "nodz").at("tests").size() == 2);
  CHECK(analysis(a, "fine").at("tests").size() == 4);
  CHECK(analysis(a, "pairs_dup").contains("comparisons"));
  CHECK(table(a, "wilcoxon_fine") != nullptr);
  CHECK(table(a, "paired_pairs_dup") != nullptr);
  // Reported at the analysis's declaration, by name.
  CHECK(a.err.find(fmt::format("DIR/t.audit:{}:10: error: analysis ext failed: internal error: ", line_of("ext"))) !=
        std::string::npos);
  CHECK(a.err.find("(please report it with the spec and scores)\nanalysis ext = spearman(D1) {\n         ^~~\n") !=
        std::string::npos);
}

TEST_CASE("without the fault, the same analysis is computed") {
  Analyzed a = analyze("ext");
  CHECK_FALSE(analysis(a, "ext").contains("error"));
  CHECK(table(a, "spearman_ext") != nullptr);
}
