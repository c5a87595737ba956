// errors_test.cpp: malformed score files and usage errors, with the exact messages.
#include <doctest/doctest.h>

#include "tests/analyze/analyze_support.hpp"

using namespace analyze_test;

namespace {

const std::string kHeader = "seed,model,arm,language,hls,register,skeleton,condition,D1,D2,D3,Q2,Q3\n";

// Runs analyze on small.audit with `csv` as the scores file; returns stderr with the
// temporary directory replaced by DIR.
std::pair<int, std::string> run_with(const std::string& name, const std::string& csv) {
  auto dir = temp_dir("errors_" + name);
  std::ofstream(dir / "scores.csv", std::ios::binary) << csv;
  Run r = run_analyze(reference_dir() / "small.audit", dir / "scores.csv", dir / "out");
  std::string err = r.err;
  for (std::size_t at; (at = err.find(dir.string())) != std::string::npos;) err.replace(at, dir.string().size(), "DIR");
  return {r.code, err};
}

}  // namespace

TEST_CASE("a missing column is reported at the header") {
  auto [code, err] = run_with("column", "seed,model,arm,language,hls,register,skeleton,condition,D1,D2,D3,Q2\n"
                                        "1,gpt,baseline,zh,high,formal,S1,B,1,1,2,2\n");
  CHECK(code == 1);
  CHECK(err == "DIR/scores.csv:1:1: error: scores file has no column 'Q3'\n"
               "seed,model,arm,language,hls,register,skeleton,condition,D1,D2,D3,Q2\n"
               "^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
               "1 error generated.\n");
}

TEST_CASE("a scores file's provenance lines are skipped; problems are still shown at their own lines") {
  auto [code, err] = run_with("provenance", "# mirac 0.1.0\n# spec small sha256 abc\n"
                                            "seed,model,arm,language,hls,register,skeleton,condition,D1,D2,D3,Q2\n"
                                            "1,gpt,baseline,zh,middle,formal,S1,B,1,1,2,2\n");
  CHECK(code == 1);
  CHECK(err == "DIR/scores.csv:3:1: error: scores file has no column 'Q3'\n"
               "seed,model,arm,language,hls,register,skeleton,condition,D1,D2,D3,Q2\n"
               "^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
               "1 error generated.\n");
}

TEST_CASE("bad cells are reported at their row and column, every one of them") {
  auto [code, err] = run_with("cells", kHeader +
                                           "1,gpt,baseline,zh,high,formal,S1,B,1,1,2,2,2\n"
                                           "1,gpt,baseline,zh,middle,formal,S1,B,1,1,2,2,2\n"
                                           "1,gtp,baseline,zh,high,formal,S1,B,1,1,2,2,2\n"
                                           "1,gpt,baseline,zh,high,formal,S1,B,1,1,2.5,2,2\n"
                                           "1,gpt,baseline,zh,high,formal,S1,B,1,1,2,7,2\n"
                                           "99,gpt,baseline,zh,high,formal,S1,B,1,1,2,2,2\n"
                                           "1,gpt,baseline,zh,high,formal,S1,B,1,1,2,2\n");
  CHECK(code == 1);
  CHECK(err == "DIR/scores.csv:3:19: error: 'middle' is not a level of factor 'hls'\n"
               "1,gpt,baseline,zh,middle,formal,S1,B,1,1,2,2,2\n"
               "                  ^~~~~~\n"
               "note: factor 'hls' has the levels high, low\n"
               "DIR/scores.csv:4:3: error: unknown model 'gtp'\n"
               "1,gtp,baseline,zh,high,formal,S1,B,1,1,2,2,2\n"
               "  ^~~\n"
               "DIR/scores.csv:5:40: error: score '2.5' for D3 is not an integer (write an empty cell or N/A for N/A)\n"
               "1,gpt,baseline,zh,high,formal,S1,B,1,1,2.5,2,2\n"
               "                                       ^~~\n"
               "DIR/scores.csv:6:42: error: score 7 for Q2 is outside the scale 1..5\n"
               "1,gpt,baseline,zh,high,formal,S1,B,1,1,2,7,2\n"
               "                                         ^\n"
               "DIR/scores.csv:7:1: error: unknown seed '99'; did you mean '9'?\n"
               "99,gpt,baseline,zh,high,formal,S1,B,1,1,2,2,2\n"
               "^~\n"
               "DIR/scores.csv:8:1: error: row 7 has 12 fields but the header has 13\n"
               "1,gpt,baseline,zh,high,formal,S1,B,1,1,2,2\n"
               "^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
               "note: a row ends at the end of its line unless the line break is inside double quotes; a missing "
               "value is an empty field between two commas\n"
               "6 errors generated.\n");
}

TEST_CASE("a level of another factor in a factor's column names that factor, as the checker does") {
  auto [code, err] = run_with("other_factor", kHeader + "1,gpt,baseline,high,zh,formal,S1,B,1,1,2,2,2\n");
  CHECK(code == 1);
  CHECK(err == "DIR/scores.csv:2:16: error: 'high' is not a level of factor 'language'\n"
               "1,gpt,baseline,high,zh,formal,S1,B,1,1,2,2,2\n"
               "               ^~~~\n"
               "note: factor 'language' has the levels zh, en\n"
               "note: 'high' is a level of factor 'hls'\n"
               "DIR/scores.csv:2:21: error: 'zh' is not a level of factor 'hls'\n"
               "1,gpt,baseline,high,zh,formal,S1,B,1,1,2,2,2\n"
               "                    ^~\n"
               "note: factor 'hls' has the levels high, low\n"
               "note: 'zh' is a level of factor 'language'\n"
               "2 errors generated.\n");
}

TEST_CASE("usage errors: no run store without --scores, no resamples, unreadable file") {
  const std::string store = (std::filesystem::temp_directory_path() / "mirac_analyze_no_store").string();
  auto analyze = [&](std::string scores, int resamples, std::ostream& out, std::ostream& err) {
    std::vector<std::string> args = {"analyze", (reference_dir() / "small.audit").string(), "--resamples",
                                     std::to_string(resamples), "--seed", "1", "--store", store};
    if (!scores.empty()) args.insert(args.end(), {"--scores", scores});
    return mirac::run_cli(args, out, err);
  };
  std::ostringstream out, err;
  std::filesystem::remove_all(store);
  CHECK(analyze("", 10, out, err) == 2);
  CHECK(err.str().find("no run store at ") != std::string::npos);
  std::ostringstream err2;
  CHECK(analyze("x.csv", 0, out, err2) == 2);
  CHECK(err2.str() == "mirac analyze: --resamples must be at least 1\n");
  std::ostringstream err3;
  CHECK(analyze("/nonexistent/s.csv", 10, out, err3) == 1);
  CHECK(err3.str() == "/nonexistent/s.csv: error: cannot read scores file\n1 error generated.\n");
}

TEST_CASE("duplicate answers in a pair group are reported, never merged") {
  // Two answers for the same seed, model, arm and cell: DID_FLAG's group is left out.
  std::string csv = kHeader + "1,gpt,baseline,zh,high,formal,S1,B,1,1,1,2,2\n"
                              "1,gpt,baseline,zh,low,formal,S1,B,1,1,4,2,2\n"
                              "1,gpt,baseline,zh,low,formal,S1,B,1,1,3,2,2\n"
                              "2,gpt,baseline,zh,high,formal,S1,B,1,1,1,2,2\n"
                              "2,gpt,baseline,zh,low,formal,S1,B,1,1,3,2,2\n";
  auto dir = temp_dir("duplicates");
  std::ofstream(dir / "scores.csv", std::ios::binary) << csv;
  Run r = run_analyze(reference_dir() / "small.audit", dir / "scores.csv", dir / "out");
  const nlohmann::json* did = nullptr;
  for (const auto& f : r.results.at("flags"))
    if (f.at("name") == "DID_FLAG") did = &f;
  REQUIRE(did);
  const auto& p = did->at("pairings")[0];
  CHECK(p.at("duplicate_groups") == 1);
  CHECK(p.at("duplicates")[0].at("lines") == nlohmann::json::array({3, 4, 2}));
  CHECK(p.at("by_model_arm")[0].at("pairs") == 1);
  CHECK(p.at("by_model_arm")[0].at("count") == 1);
  CHECK(r.err.find("warning: flag DID_FLAG: 1 pair group of hls: low vs high holds more than one answer") != std::string::npos);
  // A mixed model cannot be fitted on these five rows: the reason is said without the name of
  // the function inside mirac that found it (`build_design: `, `lmm_fit: `).
  INFO(r.err);
  CHECK(r.err.find("warning: analysis rq1_inter skipped: no rows with a response (") != std::string::npos);
  CHECK(r.err.find("build_design:") == std::string::npos);
  CHECK(r.err.find("lmm_fit:") == std::string::npos);
}
