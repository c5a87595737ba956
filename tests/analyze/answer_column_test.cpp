// answer_column_test.cpp: the scores file's `answer` column. With several answers per
// prompt (`answers K`) it says which answer a row scores, 1 to K, and anything else is an
// error at the cell; with one answer per prompt it is ignored like any other column, since
// a file may hold the answers' text under that name.
#include <doctest/doctest.h>

#include "tests/analyze/analyze_support.hpp"

using namespace analyze_test;

namespace {

std::filesystem::path answers_spec() { return source_dir() / "tests/simulate/fixtures/answers.audit"; }

}  // namespace

TEST_CASE("one answer per prompt: an `answer` column of text is ignored") {
  auto dir = temp_dir("answer_text");
  std::ofstream(dir / "scores.csv") << "seed,model,arm,language,hls,register,skeleton,condition,answer,D1,D2,D3,Q2,Q3\n"
                                       "1,gpt,baseline,zh,high,formal,S1,B,\"It depends, see a doctor.\",1,1,2,2,2\n"
                                       "1,gpt,baseline,en,high,formal,S1,B,Rest.,1,1,3,2,2\n";
  Run r = run_analyze(reference_dir() / "small.audit", dir / "scores.csv", dir / "out");
  INFO(r.err);
  CHECK(r.code == 0);
}

TEST_CASE("several answers per prompt: the `answer` column is read, and a place outside 1..K is an error at its cell") {
  auto dir = temp_dir("answer_place");
  std::ofstream(dir / "scores.csv") << "seed,model,arm,tone,answer,D1\n"
                                       "s000,gpt,baseline,plain,1,3\n"
                                       "s000,gpt,baseline,plain,4,3\n";
  Run r = run_analyze(answers_spec(), dir / "scores.csv", dir / "out");
  std::string err = r.err;
  for (std::size_t at; (at = err.find(dir.string())) != std::string::npos;) err.replace(at, dir.string().size(), "DIR");
  CHECK(r.code == 1);
  CHECK(err == "DIR/scores.csv:3:25: error: answer '4' is not a whole number from 1 to 3 (the spec's answers per prompt)\n"
               "s000,gpt,baseline,plain,4,3\n"
               "                        ^\n"
               "1 error generated.\n");
}
