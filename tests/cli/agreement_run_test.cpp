// agreement_run_test.cpp: two judges against the fake provider (which plants scores that
// mostly agree), a panel of them, and an `agreement` analysis, through the real binary. The
// values in results.json are recomputed here from each judge's exported scores: exact and
// adjacent agreement and signed error by hand, the kappa with the function pinned to
// sklearn in tests/stats. The scores file the run writes (one row per rater) analyzes again
// to the same agreement.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fake_server.hpp"
#include "mirac_binary.hpp"
#include "runtime/stats/agreement.hpp"

namespace {

using Json = nlohmann::json;

// A provider of its own on the fake server, without the list presets' rate limits.
std::string spec_text(const std::string& base_url) {
  std::string s = "audit agree { scores both }\nprovider fake { protocol openai_chat base_url \"" + base_url +
                  "\" key_env \"OPENAI_API_KEY\" concurrency 32 }\nfactor tone { plain warm }\nseeds {\n";
  for (int i = 0; i < 30; ++i) s += "  seed q" + std::to_string(i) + " { question = \"Question " + std::to_string(i) + "?\" }\n";
  s += "}\ntext tone { plain \"\" warm \"Kindly: \" }\nprompt { id \"{seed.id}_{tone}\" text tone.text ++ seed.question }\n"
       "model gpt = fake(\"gpt-test\") { max_tokens 64 }\n"
       "rubric tiny {\n  scale 1..5\n  worst high\n  dim D1 \"Depth\" { 1 \"Deep\" 5 \"Shallow\" }\n"
       "  dim D2 \"Clarity\" { 1 \"Clear\" 5 \"Confusing\" }\n}\n"
       "judge ja = fake(\"judge-a\") { rubric tiny }\njudge jb = fake(\"judge-b\") { rubric tiny }\n"
       "panel both = mean(ja, jb)\n"
       "analysis judges = agreement(D1, D2) { raters ja, jb }\n"
       "analysis by_tone = agreement(D2) { raters ja vs jb by tone }\n";
  return s;
}

// prompt id -> scores, from `mirac export SPEC scores --judge NAME`.
std::map<std::string, Json> exported_scores(const std::string& spec, const std::string& store, const std::string& judge) {
  auto exported = mirac::test::invoke({"export", spec, "scores", "--store", store, "--judge", judge});
  REQUIRE(exported.code == 0);
  std::map<std::string, Json> rows;
  std::istringstream in(exported.out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) {
      Json row = Json::parse(line);
      rows[row["prompt_id"].get<std::string>()] = row;
    }
  return rows;
}

}  // namespace

TEST_CASE("two judges, a panel and their agreement end to end against the fake provider") {
  mirac::test::TempDir tmp("agreement_run");
  mirac::fake::FakeServer server(mirac::fake::FakeServerOptions{});
  std::string error;
  REQUIRE(server.start(error));
  const std::string spec = tmp.path("agree.audit"), store = tmp.path("run");
  std::ofstream(spec) << spec_text(server.base_url());

  auto run = mirac::test::invoke({"run", spec, "--store", store, "--resamples", "200"}, server.base_url());
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("judge ja: 60 answers, 60 scored") != std::string::npos);
  CHECK(run.out.find("judge jb: 60 answers, 60 scored") != std::string::npos);

  const auto a = exported_scores(spec, store, "ja"), b = exported_scores(spec, store, "jb");
  REQUIRE(a.size() == 60);
  // The panel's scores export like a judge's: the mean of its two judges on every answer.
  const auto panel = exported_scores(spec, store, "both");
  REQUIRE(panel.size() == 60);
  for (const auto& [id, row] : panel) {
    INFO(row.dump());
    CHECK(row["judge"] == "both");
    CHECK(row["judge_model_string"] == "mean(judge-a, judge-b)");
    CHECK(row["state"] == "scored");
    for (const char* d : {"D1", "D2"})
      CHECK(row[d].get<double>() == doctest::Approx((a.at(id)[d].get<double>() + b.at(id)[d].get<double>()) / 2));
  }
  CHECK(mirac::test::invoke({"export", spec, "scores", "--store", store, "--judge", "jc"}).code == 2);
  const auto results_path = std::filesystem::path(store) / "results" / "results.json";
  const Json results = Json::parse(mirac::test::read_text(results_path));
  const Json* judges = nullptr;
  for (const auto& x : results["analyses"])
    if (x["name"] == "judges") judges = &x;
  REQUIRE(judges != nullptr);
  REQUIRE_MESSAGE(!judges->contains("error"), judges->dump());
  REQUIRE((*judges)["results"].size() == 2);

  for (const auto& entry : (*judges)["results"]) {
    const std::string dim = entry["dimension"];
    std::vector<double> xs, ys;
    for (const auto& [id, row] : a) {
      xs.push_back(row[dim].get<double>());
      ys.push_back(b.at(id)[dim].get<double>());
    }
    double exact = 0, adjacent = 0, error_sum = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      exact += xs[i] == ys[i];
      adjacent += std::fabs(xs[i] - ys[i]) <= 1;
      error_sum += xs[i] - ys[i];
    }
    const Json& pair = entry["pairs"][0];
    INFO(dim << ": " << pair.dump());
    CHECK(pair["raters"] == Json::array({"ja", "jb"}));
    CHECK(pair["n"] == 60);
    CHECK(pair["exact"].get<double>() == doctest::Approx(exact / 60).epsilon(1e-12));
    CHECK(pair["adjacent"].get<double>() == doctest::Approx(adjacent / 60).epsilon(1e-12));
    CHECK(pair["mean_signed_error"].get<double>() == doctest::Approx(error_sum / 60).epsilon(1e-12));
    const std::vector<double> labels = {1, 2, 3, 4, 5};
    CHECK(pair["qwk"].get<double>() == doctest::Approx(mirac::stats::quadratic_weighted_kappa(xs, ys, labels)).epsilon(1e-12));
    // Planted to agree often but not always.
    CHECK(exact < 60);
    CHECK(exact > 20);
    REQUIRE(pair["qwk_ci"].is_array());
    CHECK(pair["qwk_ci"][0].get<double>() <= pair["qwk"].get<double>());
    CHECK(pair["qwk_ci"][1].get<double>() >= pair["qwk"].get<double>());
    std::vector<std::vector<double>> units;
    for (std::size_t i = 0; i < xs.size(); ++i) units.push_back({xs[i], ys[i]});
    CHECK(entry["alpha"].get<double>() ==
          doctest::Approx(mirac::stats::krippendorff_alpha(units, mirac::stats::AlphaMetric::ordinal)).epsilon(1e-12));
  }

  // The mean panel's scores are what the means use; the scores file holds every rater.
  const std::string scores = (std::filesystem::path(store) / "results" / "scores.csv").string();
  const std::string csv = mirac::test::csv_table(mirac::test::read_text(scores));
  CHECK(csv.rfind("rater,seed,model,arm,tone,D1,D2\n", 0) == 0);
  CHECK(csv.find("\nboth,") != std::string::npos);
  CHECK(csv.find("\nja,") != std::string::npos);
  CHECK(csv.find("\njb,") != std::string::npos);

  auto again = mirac::test::invoke({"analyze", spec, "--scores", scores, "--out", tmp.path("again"), "--resamples", "200"});
  INFO(again.err);
  REQUIRE(again.code == 0);
  const Json repeated = Json::parse(mirac::test::read_text(std::filesystem::path(tmp.path("again")) / "results.json"));
  CHECK(repeated["analyses"] == results["analyses"]);
  CHECK(repeated["means"] == results["means"]);

  // The report shows the agreement tables.
  const std::string report = mirac::test::read_text(std::filesystem::path(store) / "results" / "report.md");
  CHECK(report.find("judges") != std::string::npos);
  CHECK(report.find("QWK") != std::string::npos);
}

TEST_CASE("a judge reply cut at its token limit is repaired with a higher limit, not sent again as it was") {
  mirac::test::TempDir tmp("judge_cut");
  mirac::fake::FakeServer server(mirac::fake::FakeServerOptions{});
  std::string error;
  REQUIRE(server.start(error));
  const std::string spec = tmp.path("cut.audit"), store = tmp.path("run");
  std::ofstream(spec) << "audit cut {}\nprovider fake { protocol openai_chat base_url \"" + server.base_url() +
                             "\" key_env \"OPENAI_API_KEY\" concurrency 8 }\nfactor tone { plain warm }\n"
                             "seeds { seed q1 { question = \"judge-cut: a long question?\" } seed q2 { question = \"short?\" } }\n"
                             "prompt { id \"{seed.id}_{tone}\" text seed.question }\nmodel gpt = fake(\"gpt-test\")\n"
                             "rubric tiny {\n  scale 1..5\n  dim D1 \"Depth\" { 1 \"Deep\" 5 \"Shallow\" }\n}\n"
                             "judge j = fake(\"judge-a\") { rubric tiny max_tokens 1000 }\n";
  auto run = mirac::test::invoke({"run", spec, "--store", store, "--resamples", "50"}, server.base_url());
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("judge j: 4 answers, 4 scored, 0 unusable replies") != std::string::npos);
  // The two cut replies were asked again with twice the limit and a request for brevity.
  std::size_t repairs = 0;
  for (const auto& body : server.bodies()) {
    const auto j = Json::parse(body);
    if (j.value("model", "") != "judge-a" || j.value("max_tokens", 0) != 2000) continue;
    ++repairs;
    CHECK(body.find("cut off at its token limit") != std::string::npos);
    CHECK(body.find("keep each rationale under 15 words") != std::string::npos);
  }
  CHECK(repairs == 2);
}

TEST_CASE("the run's judge summary warns when the unscored share differs between a factor's levels") {
  mirac::test::TempDir tmp("judge_skew");
  mirac::fake::FakeServer server(mirac::fake::FakeServerOptions{});
  std::string error;
  REQUIRE(server.start(error));
  const std::string spec = tmp.path("skew.audit"), store = tmp.path("run");
  // Warm prompts carry the marker that cuts the judge's reply; without repairs they stay unusable.
  std::ofstream(spec) << "audit skew {}\nprovider fake { protocol openai_chat base_url \"" + server.base_url() +
                             "\" key_env \"OPENAI_API_KEY\" concurrency 8 }\nfactor tone { plain warm }\nfactor size { small large }\n"
                             "seeds { seed q1 { question = \"a question?\" } seed q2 { question = \"another?\" } }\n"
                             "text tone { plain \"\" warm \"judge-cut: \" }\n"
                             "prompt { id \"{seed.id}_{tone}_{size}\" text tone.text ++ seed.question ++ \" ({size})\" }\n"
                             "model gpt = fake(\"gpt-test\")\n"
                             "rubric tiny {\n  scale 1..5\n  dim D1 \"Depth\" { 1 \"Deep\" 5 \"Shallow\" }\n}\n"
                             "judge j = fake(\"judge-a\") { rubric tiny max_tokens 1000 }\n";
  auto run = mirac::test::invoke({"run", spec, "--store", store, "--resamples", "50", "--repairs", "0"}, server.base_url());
  INFO(run.out << run.err);
  CHECK(run.code != 0);  // answers left unscored
  CHECK(run.out.find("judge j: 8 answers, 4 scored, 4 unusable replies") != std::string::npos);
  CHECK(run.out.find("  warning: 100.0% unscored at tone=warm but 0.0% at tone=plain") != std::string::npos);
  CHECK(run.out.find("unscored at size=") == std::string::npos);  // size is balanced
}
