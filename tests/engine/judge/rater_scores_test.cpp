// rater_scores_test.cpp: a scores file with a `rater` column (what a run with an agreement
// analysis writes): the analyses' rater's rows are the table's, the others kept apart;
// unknown raters and a file without the analyses' rater are errors at their place; panel
// rows may hold values between scale points, judge rows may not.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "interpreter/driver.hpp"
#include "interpreter/scores/scores.hpp"

namespace {

namespace fs = std::filesystem;

struct Fixture {
  fs::path dir = fs::temp_directory_path() / "mirac_rater_scores_test";
  std::unique_ptr<mirac::Compilation> c;
  Fixture() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "s.audit") << R"(audit raters { scores avg }
use stdlib.providers
factor tone { plain warm }
seeds { seed s1 { question = "q?" } seed s2 { question = "r?" } }
prompt { id "{seed.id}_{tone}" text seed.question }
model gpt = openai("gpt-5.4-mini")
rubric tiny { scale 1..5 dim D1 "Depth" { 1 "Deep" 5 "Shallow" } }
judge a = openai("gpt-5.4-mini") { rubric tiny }
judge b = anthropic("claude-sonnet-4-6") { rubric tiny }
panel avg = mean(a, b)
)";
    c = mirac::compile(dir / "s.audit", {});
    REQUIRE(c->ok());
  }
  ~Fixture() { fs::remove_all(dir); }
  std::optional<mirac::analyze::ScoreTable> load(const std::string& csv, std::string& errors) {
    std::ofstream(dir / "scores.csv") << csv;
    mirac::Diagnostics diags;
    auto t = mirac::analyze::load_scores(c->spec, dir / "scores.csv", c->sources, diags);
    std::ostringstream out;
    diags.print(out, c->sources);
    errors = out.str();
    return t;
  }
};

}  // namespace

TEST_CASE("a rater column splits the analyses' rater from the others") {
  Fixture f;
  std::string errors;
  auto t = f.load("rater,seed,model,tone,D1\navg,s1,gpt,plain,2.5\na,s1,gpt,plain,2\nb,s1,gpt,plain,3\n"
                  "avg,s2,gpt,warm,4\na,s2,gpt,warm,4\n",
                  errors);
  INFO(errors);
  REQUIRE(t);
  CHECK(t->rater == "avg");
  REQUIRE(t->rows.size() == 2);
  CHECK(t->rows[0].scores[0] == 2.5);
  REQUIRE(t->others.size() == 2);
  CHECK(t->rows_of("a")->size() == 2);
  CHECK(t->rows_of("b")->size() == 1);
  CHECK(t->rows_of("c") == nullptr);
}

TEST_CASE("unknown raters, a judge's fractional score and a file without the analyses' rater") {
  Fixture f;
  std::string errors;
  CHECK_FALSE(f.load("rater,seed,model,tone,D1\navg,s1,gpt,plain,2\nab,s1,gpt,plain,2\na,s2,gpt,warm,3.5\n", errors));
  CHECK(errors.find(":3:1: error: unknown rater 'ab'; did you mean 'a'?") != std::string::npos);
  CHECK(errors.find(":4:") != std::string::npos);
  CHECK(errors.find("score '3.5' for D1 is not an integer") != std::string::npos);
  CHECK_FALSE(f.load("rater,seed,model,tone,D1\na,s1,gpt,plain,2\n", errors));
  CHECK(errors.find("the scores file has no rows of rater 'avg', whose scores the analyses use") != std::string::npos);
}
