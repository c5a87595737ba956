// invariance_test.cpp: the judge-invariance check (issue 28), offline, on
// tests/simulate/fixtures/invariance.audit. Its judge marks Chinese text down by 0.5 on D1
// (the simulate block's `bias`) and is fair on D2; the answers themselves score 0.3 higher
// in Chinese on D1 (`effect`). The check samples answer pairs, has each answer translated
// into the other language and judged again as the answer to that language's prompt. It
// must recover the bias on D1 and none on D2, split the LANG contrast into the judge's part
// and the rest, and a second run must send nothing. The fixture's rubric check judges its
// sample again with the rubric in Chinese, under which the judge plants more: it must find
// the change of the language effect on D1 and only a common shift on D2.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "interpreter/driver.hpp"
#include "interpreter/judge/invariance.hpp"
#include "interpreter/summary/plan_summary.hpp"

#include "tests/simulate/simulate_support.hpp"

using simulate_test::fixture;

namespace fs = std::filesystem;

namespace {

struct Cli {
  int code;
  std::string out, err;
};
Cli cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = mirac::run_cli(args, out, err);
  return {code, out.str(), err.str()};
}

double estimate(const nlohmann::json& figure) { return figure.at("estimate").get<double>(); }
bool covers(const nlohmann::json& figure, double truth) {
  const auto& ci = figure.at("ci");
  return ci.is_array() && ci[0].get<double>() <= truth && truth <= ci[1].get<double>();
}

}  // namespace

TEST_CASE("invariance sample: pairs of one seed and cell at both levels, the same each time, per model and arm") {
  mirac::CheckOptions options;
  options.offline = true;
  auto c = mirac::compile(fixture("invariance.audit"), options);
  INFO(c->diags.all().size());
  REQUIRE(c->ok());
  const auto checks = mirac::invariance_checks(c->spec);
  REQUIRE(checks.size() == 2);  // inv, then the rubric check rub
  const mirac::InvarianceCheck& check = checks[0];
  CHECK(check.name == "inv");
  CHECK(check.sample == 150);
  CHECK(check.instructions[1] == "Translate the answer into English; keep everything as it is.");
  CHECK(check.instructions[0].find("into Chinese") != std::string::npos);  // the default names the level's label
  mirac::Diagnostics diags;
  const auto items = mirac::invariance_sample(c->spec, c->plan, check, diags);
  REQUIRE(items.size() == 300);  // 150 pairs, both answers of each
  std::set<std::size_t> rows;
  const int language = c->spec.factor_index("language"), tone = c->spec.factor_index("tone");
  for (const auto& item : items) {
    rows.insert(item.row);
    const auto& from = c->plan.prompts[c->plan.requests[item.row].prompt];
    const auto& to = c->plan.prompts[c->plan.requests[item.counterpart].prompt];
    CHECK(from.seed == to.seed);
    CHECK(from.levels[tone] == to.levels[tone]);
    CHECK(from.levels[language] != to.levels[language]);
    CHECK(to.levels[language] == item.target_level);
  }
  CHECK(rows.size() == 300);
  // The translator's request is content-addressed: the same answer, the same request.
  const auto a = mirac::translation_call(check, 1, "回答");
  CHECK(a.hash == mirac::translation_call(check, 1, "回答").hash);
  CHECK(a.hash != mirac::translation_call(check, 0, "回答").hash);
  CHECK(a.user == "回答");
  CHECK(*a.system == check.instructions[1]);
  // A larger sample keeps the smaller one's pairs.
  mirac::InvarianceCheck larger = check;
  larger.sample = 200;
  std::set<std::size_t> more;
  for (const auto& item : mirac::invariance_sample(c->spec, c->plan, larger, diags)) more.insert(item.row);
  for (std::size_t r : rows) CHECK(more.count(r) == 1);
}

TEST_CASE("a rubric check samples pairs and judges each answer again as the answer to its own prompt") {
  mirac::CheckOptions options;
  options.offline = true;
  auto c = mirac::compile(fixture("invariance.audit"), options);
  REQUIRE(c->ok());
  const auto checks = mirac::invariance_checks(c->spec);
  REQUIRE(checks.size() == 2);
  const mirac::InvarianceCheck& check = checks[1];
  CHECK(check.name == "rub");
  CHECK(check.rubric == "plain_zh");
  CHECK(!check.translates());
  mirac::Diagnostics diags;
  const auto items = mirac::invariance_sample(c->spec, c->plan, check, diags);
  REQUIRE(items.size() == 300);
  const int language = c->spec.factor_index("language");
  int zh = 0;
  for (const auto& item : items) {
    CHECK(item.counterpart == item.row);
    CHECK(item.target_level == c->plan.prompts[c->plan.requests[item.row].prompt].levels[language]);
    zh += item.target_level == check.level_a;
  }
  CHECK(zh == 150);
}

TEST_CASE("mirac plan forecasts each invariance check's translations and judgments") {
  auto c = mirac::compile(fixture("invariance.audit"), mirac::CheckOptions{});
  REQUIRE(c->ok());
  const nlohmann::ordered_json j = mirac::plan_summary(c->spec, c->plan, &c->sources);
  const auto& checks = j.at("forecast").at("invariance");
  REQUIRE(checks.size() == 2);
  const auto& inv = checks[0];
  const auto& rub = checks[1];
  CHECK(inv.at("analysis") == "inv");
  CHECK(inv.at("translations") == 300);
  CHECK(inv.at("judgments") == 300);
  CHECK(rub.at("analysis") == "rub");
  CHECK(rub.at("translations") == 0);
  CHECK(rub.at("judgments") == 300);
  // Out: a translation at most 4096 tokens, a judgment at most the judge's limit (1024).
  CHECK(inv.at("max_output_tokens") == 300 * 4096 + 300 * 1024);
  CHECK(rub.at("max_output_tokens") == 300 * 1024);
  // Both priced (the stdlib's list prices for the translator and the judge), the rubric
  // check for less: it translates nothing.
  REQUIRE(inv.contains("max_cost_usd"));
  REQUIRE(rub.contains("max_cost_usd"));
  CHECK(rub.at("max_cost_usd").get<double>() < inv.at("max_cost_usd").get<double>());
  const std::string text = mirac::plan_summary_text(c->spec, c->plan, &c->sources);
  CHECK(text.find("(inv: 300 translations, 300 judgments;") != std::string::npos);
  CHECK(text.find("(rub: 300 judgments;") != std::string::npos);
}

TEST_CASE("invariance recovers a judge's planted bias against one language, and a rerun sends nothing") {
  const fs::path store = fs::temp_directory_path() / ("mirac_invariance_" + std::to_string(::getpid()));
  fs::remove_all(store);
  const std::string spec = fixture("invariance.audit").string();
  const std::vector<std::string> run_args = {"run", spec, "--offline", "--store", store.string(), "--resamples", "400"};
  Cli run = cli(run_args);
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("invariance inv: 300 sampled answers, 300 translated, 300 judged again, 0 unusable replies, 0 "
                     "failed, 0 pending") != std::string::npos);
  CHECK(run.err.find("translate for inv") != std::string::npos);

  const nlohmann::json r = nlohmann::json::parse(std::ifstream(store / "results" / "results.json"));
  const nlohmann::json* inv = nullptr;
  for (const auto& a : r.at("analyses"))
    if (a.at("name") == "inv") inv = &a;
  REQUIRE(inv != nullptr);
  INFO(inv->dump(1));
  REQUIRE(!inv->contains("error"));
  CHECK(inv->at("levels") == nlohmann::json::array({"zh", "en"}));
  const auto& results = inv->at("results");
  REQUIRE(results.size() == 2);  // D1 and D2, one model
  for (const auto& d : results) {
    CHECK(d.at("n") == nlohmann::json::array({150, 150}));
    // The bias planted on D1 is the judge's gap zh - en; D2 has none. Translation (the
    // offline translator keeps the answer's draws) costs nothing either way.
    const double planted = d.at("dimension") == "D1" ? -0.5 : 0.0;
    CAPTURE(d.at("dimension"));
    CHECK(covers(d.at("judge_gap"), planted));
    CHECK(std::fabs(estimate(d.at("judge_gap")) - planted) < 0.15);
    CHECK(covers(d.at("translation_loss"), 0.0));
    // Each level's shift is the gap with its sign: zh answers gain when read as English.
    CHECK(std::fabs(estimate(d.at("shift").at("zh")) + planted) < 0.15);
    CHECK(std::fabs(estimate(d.at("shift").at("en")) - planted) < 0.15);
  }
  // The judge's part of each contrast: the gap, on every zh cell and no en cell.
  const auto& contrasts = inv->at("contrasts");
  REQUIRE(contrasts.size() == 2);
  for (const auto& c : contrasts) {
    const auto& g = c.at("groups").at(0);
    const double planted = c.at("name") == "LANG" ? -0.5 : 0.0;
    CAPTURE(c.at("name"));
    CHECK(covers(g.at("judge_part"), planted));
    CHECK(std::fabs(g.at("judged").get<double>() - estimate(g.at("judge_part")) - g.at("without_judge").get<double>()) <
          1e-9);
  }
  // The judged LANG excludes zero from neither side by chance: 0.3 of content minus 0.5 of
  // the judge's; without the judge's part it is the content's effect.
  const auto& lang = contrasts.at(0).at("groups").at(0);
  CHECK(std::fabs(lang.at("without_judge").get<double>() - 0.3) < 0.2);

  // The scores file carries the translations' scores as the rater `inv`, and the report
  // its table.
  std::ifstream csv(store / "results" / "scores.csv");
  std::stringstream text;
  text << csv.rdbuf();
  CHECK(text.str().find("\ninv,") != std::string::npos);
  std::ifstream html(store / "results" / "report.html");
  std::stringstream page;
  page << html.rdbuf();
  CHECK(page.str().find("judge&#39;s gap zh - en") != std::string::npos);

  // The rubric check: the same kind of sample, each answer judged again with plain_zh as
  // the answer to its own prompt. Under plain_zh the judge marks Chinese answers down by
  // another 0.4 on D1 and every answer by 0.3 on D2.
  CHECK(run.out.find("invariance rub: 300 sampled answers, 300 judged again with rubric plain_zh, 0 unusable replies, 0 "
                     "failed, 0 pending") != std::string::npos);
  const nlohmann::json* rub = nullptr;
  for (const auto& a : r.at("analyses"))
    if (a.at("name") == "rub") rub = &a;
  REQUIRE(rub != nullptr);
  INFO(rub->dump(1));
  REQUIRE(!rub->contains("error"));
  CHECK(rub->at("transformation") == "rubric");
  CHECK(rub->at("rubric") == "plain_zh");
  CHECK(!rub->contains("translator"));
  for (const auto& d : rub->at("results")) {
    CAPTURE(d.at("dimension"));
    const bool d1 = d.at("dimension") == "D1";
    CHECK(d.at("n") == nlohmann::json::array({150, 150}));
    CHECK(std::fabs(estimate(d.at("shift").at("zh")) - (d1 ? 0.4 : 0.3)) < 0.15);
    CHECK(std::fabs(estimate(d.at("shift").at("en")) - (d1 ? 0.0 : 0.3)) < 0.15);
    CHECK(covers(d.at("effect_change"), d1 ? 0.4 : 0.0));
    CHECK(covers(d.at("mean_shift"), d1 ? 0.2 : 0.3));
  }
  for (const auto& c : rub->at("contrasts")) {
    const auto& g = c.at("groups").at(0);
    CAPTURE(c.at("name"));
    // LANG moves by the change of the language effect; LANG_D2 not at all, since D2's
    // shift is the same at both levels.
    CHECK(covers(g.at("change"), c.at("name") == "LANG" ? 0.4 : 0.0));
    CHECK(std::fabs(g.at("judged").get<double>() + estimate(g.at("change")) - g.at("under_rubric").get<double>()) < 1e-9);
  }
  CHECK(page.str().find("change of the effect zh - en") != std::string::npos);

  // mirac status counts both checks' samples as the run printed them, sending nothing.
  Cli status = cli({"status", spec, "--offline", "--store", store.string()});
  INFO(status.out << status.err);
  CHECK(status.code == 0);
  CHECK(status.out.find("invariance inv: 300 sampled answers, 300 translated, 300 judged again, 0 unusable replies") !=
        std::string::npos);
  CHECK(status.out.find("invariance rub: 300 sampled answers, 300 judged again with rubric plain_zh") != std::string::npos);
  Cli status_json = cli({"status", spec, "--offline", "--store", store.string(), "--json"});
  const nlohmann::json counted = nlohmann::json::parse(status_json.out);
  CHECK(counted.at("invariance").at(0).at("translated") == 300);
  CHECK(counted.at("invariance").at(1).at("rubric") == "plain_zh");
  CHECK(counted.at("invariance").at(1).at("scored") == 300);

  // Nothing is translated or judged twice.
  Cli again = cli(run_args);
  INFO(again.out << again.err);
  REQUIRE(again.code == 0);
  CHECK(again.out.find("invariance inv: 300 sampled answers, 300 translated, 300 judged again") != std::string::npos);
  CHECK(again.err.find("translate for inv") == std::string::npos);
  CHECK(again.err.find("judge inv") == std::string::npos);
  CHECK(again.out.find("invariance rub: 300 sampled answers, 300 judged again with rubric plain_zh") != std::string::npos);
  CHECK(again.err.find("judge rub") == std::string::npos);
  fs::remove_all(store);
}
