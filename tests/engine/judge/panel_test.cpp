// panel_test.cpp: how a panel combines its judges' scores (engine/judge/raters.hpp): mean
// and median per dimension over the judges that gave a score, then the rubric's `na when`
// applied to the panel's own scores.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "engine/judge/raters.hpp"
#include "interpreter/driver.hpp"

namespace {

namespace fs = std::filesystem;
constexpr double kNA = std::numeric_limits<double>::quiet_NaN();

// A spec with a rubric whose D2 is N/A when D1 is 5, two judges and both kinds of panel.
std::unique_ptr<mirac::Compilation> panel_spec() {
  const fs::path dir = fs::temp_directory_path() / "mirac_panel_test";
  fs::create_directories(dir);
  const fs::path spec = dir / "panel.audit";
  std::ofstream(spec) << R"(audit panels { scores mid }
use stdlib.providers
factor tone { plain warm }
seeds { seed s1 { question = "What helps a headache?" } }
prompt { id "{seed.id}_{tone}" text seed.question }
model gpt = openai("gpt-5.4-mini")
rubric tiny {
  scale 1..5
  dim D1 "Depth" { 1 "Deep" 5 "Refused" }
  dim D2 "Clarity" { 1 "Clear" 5 "Confusing" na when D1 == 5 }
  order D1 then D2
}
judge a = openai("gpt-5.4-mini") { rubric tiny }
judge b = anthropic("claude-sonnet-4-6") { rubric tiny }
judge c = openai("gpt-5.4") { rubric tiny }
panel avg = mean(a, b)
panel mid = median(a, b, c)
)";
  auto c = mirac::compile(spec, {});
  fs::remove_all(dir);
  return c;
}

std::vector<double> combined(const mirac::Compilation& c, const std::string& panel,
                             const std::vector<std::vector<double>>& members) {
  mirac::analyze::ScoreTable shape;
  shape.dims = {"D1", "D2"};
  mirac::analyze::ScoreRow row;
  row.seed = 0, row.model = 0, row.arm = 0, row.levels = {0};
  mirac::combine_panel(c.spec, *c.spec.find_panel(panel), shape, members, row);
  return row.scores;
}

}  // namespace

TEST_CASE("a panel takes the mean or median of the judges that scored a dimension") {
  auto c = panel_spec();
  REQUIRE(c->ok());
  CHECK(c->spec.scores_rater == "mid");
  CHECK(c->spec.scored_rubric()->name.name == "tiny");
  CHECK(combined(*c, "avg", {{2, 3}, {3, 4}}) == std::vector<double>{2.5, 3.5});
  CHECK(combined(*c, "mid", {{2, 1}, {4, 3}, {3, 5}}) == std::vector<double>{3, 3});
  // A judge's N/A is no score: the others decide.
  auto partial = combined(*c, "avg", {{4, kNA}, {4, 2}});
  CHECK(partial[1] == 2);
  auto none = combined(*c, "avg", {{4, kNA}, {4, kNA}});
  CHECK(std::isnan(none[1]));
}

TEST_CASE("the rubric's N/A rule applies to the panel's own scores") {
  auto c = panel_spec();
  REQUIRE(c->ok());
  // One judge saw a refusal (D1 5, so its D2 is N/A); the median of D1 is 4: D2 is scored.
  auto split = combined(*c, "mid", {{5, kNA}, {4, 2}, {3, 3}});
  CHECK(split[0] == 4);
  CHECK(split[1] == 2.5);
  // Two of three saw a refusal: the panel's D1 is 5, so its D2 is N/A although one judge scored it.
  auto refused = combined(*c, "mid", {{5, kNA}, {5, kNA}, {3, 3}});
  CHECK(refused[0] == 5);
  CHECK(std::isnan(refused[1]));
}
