// criteria_run_test.cpp: per-criterion grading end to end against the fake provider, through
// the real binary: a judge that grades the criteria in its reply (`per answer`, with one
// reply planted a grade short and repaired), one that grades each criterion in a call of its
// own (`per element`), Q2 derived from the share met by the rubric's bands, and a `criteria`
// analysis whose dropped/gained counts and McNemar p-values are recomputed here from the
// exported grades. A rerun sends nothing.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fake_server.hpp"
#include "mirac_binary.hpp"
#include "runtime/stats/mcnemar.hpp"

namespace {

using Json = nlohmann::json;

constexpr int kSeeds = 12;

// Seed i has 2 + i % 3 criteria; seed q11 none. Seed q3's question plants a short reply.
std::string spec_text(const std::string& base_url) {
  std::string s = "audit crit { scores je }\nprovider fake { protocol openai_chat base_url \"" + base_url +
                  "\" key_env \"OPENAI_API_KEY\" concurrency 32 }\nfactor tone { plain warm }\nseeds {\n";
  for (int i = 0; i < kSeeds; ++i)
    s += "  seed q" + std::to_string(i) + " { question = \"Question " + std::to_string(i) +
         (i == 3 ? " criteria-short" : "") + "?\" }\n";
  s += "}\nchecklists {\n";
  for (int i = 0; i < kSeeds; ++i) {
    s += "  checklist q" + std::to_string(i) + " { required = [";
    for (int e = 0; i != kSeeds - 1 && e < 2 + i % 3; ++e)
      s += std::string(e ? ", " : "") + "\"Fact " + std::to_string(e + 1) + " of question " + std::to_string(i) + "\"";
    s += "] }\n";
  }
  s += "}\ntext tone { plain \"\" warm \"Kindly: \" }\nprompt { id \"{seed.id}_{tone}\" text tone.text ++ seed.question }\n"
       "model gpt = fake(\"gpt-test\") { max_tokens 64 }\n"
       "rubric whole {\n  scale 1..5\n  worst high\n  criteria checklist.required {}\n"
       "  dim D1 \"Depth\" { 1 \"Deep\" 5 \"Shallow\" }\n"
       "  dim Q2 \"Completeness\" { from criteria { 1 if met >= 1  3 if met >= 0.5  5 otherwise } }\n}\n"
       "rubric each {\n  scale 1..5\n  worst high\n  criteria checklist.required { per element }\n"
       "  dim Q2 \"Completeness\" { from criteria { 1 if met >= 1  3 if met >= 0.5  5 otherwise } }\n}\n"
       "judge je = fake(\"judge-a\") { rubric whole }\njudge jp = fake(\"judge-b\") { rubric each }\n"
       "analysis dropped = criteria() { rater je compare tone: warm vs plain }\n"
       "analysis met = criteria() { rater jp }\n";
  return s;
}

std::map<std::string, Json> exported(const std::string& spec, const std::string& store, const std::string& judge,
                                     bool offline = false) {
  std::vector<std::string> args = {"export", spec, "scores", "--store", store, "--judge", judge};
  if (offline) args.push_back("--offline");
  auto out = mirac::test::invoke(args);
  REQUIRE(out.code == 0);
  std::map<std::string, Json> rows;
  std::istringstream in(out.out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) {
      Json row = Json::parse(line);
      // One model and arm (the fake provider's spec), else keyed by the answer's hash.
      rows[offline ? row["hash"].get<std::string>() : row["prompt_id"].get<std::string>()] = row;
    }
  return rows;
}

const Json& analysis(const Json& results, const std::string& name) {
  for (const auto& a : results["analyses"])
    if (a["name"] == name) return a;
  FAIL("no analysis " << name);
  return results;
}

double banded(std::size_t met, std::size_t n) {
  const double share = static_cast<double>(met) / static_cast<double>(n);
  return share >= 1 ? 1 : share >= 0.5 ? 3 : 5;
}

}  // namespace

TEST_CASE("criteria graded per answer and per element end to end against the fake provider") {
  mirac::test::TempDir tmp("criteria_run");
  mirac::fake::FakeServer server(mirac::fake::FakeServerOptions{});
  std::string error;
  REQUIRE(server.start(error));
  const std::string spec = tmp.path("crit.audit"), store = tmp.path("run");
  std::ofstream(spec) << spec_text(server.base_url());

  // The plan forecasts one call per answer for je, and one per criterion for jp.
  std::size_t criteria_calls = 0;
  for (int i = 0; i < kSeeds - 1; ++i) criteria_calls += 2 * static_cast<std::size_t>(2 + i % 3);
  auto plan = mirac::test::invoke({"plan", spec, "--json"});
  REQUIRE(plan.code == 0);
  const Json judging = Json::parse(plan.out)["forecast"]["judging"];
  REQUIRE(judging.size() == 2);
  CHECK(judging[0]["calls"] == 24);
  CHECK(judging[1]["calls"] == criteria_calls);

  auto run = mirac::test::invoke({"run", spec, "--store", store, "--resamples", "200"}, server.base_url());
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("judge je: 24 answers, 24 scored") != std::string::npos);
  CHECK(run.out.find("judge jp: 24 answers, 24 scored") != std::string::npos);
  // 24 answers; je: 24 replies and the two repairs of q3's short ones; jp: one call per
  // criterion of each answer (seeds q0..q10 have 2, 3, 4, 2, ... criteria; q11 none).
  CHECK(server.stats().answered == 24 + 24 + 2 + criteria_calls);
  CHECK(server.received_with("CRITERION TO GRADE") == criteria_calls);

  const auto je = exported(spec, store, "je"), jp = exported(spec, store, "jp");
  REQUIRE(je.size() == 24);
  REQUIRE(jp.size() == 24);
  for (const auto& rows : {je, jp})
    for (const auto& [id, row] : rows) {
      INFO(id << ": " << row.dump());
      REQUIRE(row["state"] == "scored");
      if (row["seed"] == "q11") {  // no criteria: Q2 is N/A
        CHECK(!row.contains("criteria"));
        CHECK(row["Q2"].is_null());
        continue;
      }
      std::size_t met = 0;
      for (const auto& g : row["criteria"]) met += g["met"].get<bool>() ? 1 : 0;
      CHECK(row["Q2"].get<double>() == banded(met, row["criteria"].size()));
    }
  CHECK(je.at("q3_plain")["round"] == 1);  // repaired once

  const Json results = Json::parse(mirac::test::read_text(std::filesystem::path(store) / "results" / "results.json"));
  const Json& dropped = analysis(results, "dropped");
  REQUIRE_MESSAGE(!dropped.contains("error"), dropped.dump());
  REQUIRE(dropped["results"].size() == 1);
  const Json& r = dropped["results"][0];
  CHECK(r["compare"] == "tone: warm vs plain");
  CHECK(r["pairs"] == 12);
  std::size_t all_dropped = 0, all_gained = 0;
  for (const auto& e : r["elements"]) {
    const std::string seed = e["seed"];
    const std::size_t k = e["element"].get<std::size_t>() - 1;
    const bool warm = je.at(seed + "_warm")["criteria"][k]["met"], plain = je.at(seed + "_plain")["criteria"][k]["met"];
    INFO(e.dump());
    CHECK(e["dropped"] == (plain && !warm ? 1 : 0));
    CHECK(e["gained"] == (warm && !plain ? 1 : 0));
    const double p = mirac::stats::mcnemar_exact(e["dropped"], e["gained"]);
    if (std::isnan(p)) CHECK(e["p"].is_null());
    else CHECK(e["p"].get<double>() == doctest::Approx(p).epsilon(1e-12));
    all_dropped += e["dropped"].get<std::size_t>();
    all_gained += e["gained"].get<std::size_t>();
  }
  CHECK(r["elements"].size() == criteria_calls / 2);
  CHECK(r["dropped"] == all_dropped);
  CHECK(r["gained"] == all_gained);
  CHECK(all_dropped + all_gained > 0);  // planted grades differ between the two tones
  const Json& met = analysis(results, "met");
  REQUIRE_MESSAGE(!met.contains("error"), met.dump());
  CHECK(met["rater"] == "jp");
  CHECK(met["results"][0]["answers"] == 24);
  CHECK(mirac::test::csv_table(mirac::test::read_text(std::filesystem::path(store) / "results" / "criteria_dropped.csv"))
            .rfind("compare,group,seed,element,criterion,pairs,", 0) == 0);
  const std::string report = mirac::test::read_text(std::filesystem::path(store) / "results" / "report.md");
  CHECK(report.find("Analysis dropped: checklist elements (checklist.required) met at warm against plain") !=
        std::string::npos);
  CHECK(report.find("Fact 1 of question") != std::string::npos);

  // Everything is stored: a rerun sends nothing.
  const std::size_t before = server.stats().requests;
  auto again = mirac::test::invoke({"run", spec, "--store", store, "--resamples", "200"}, server.base_url());
  INFO(again.out << again.err);
  REQUIRE(again.code == 0);
  CHECK(server.stats().requests == before);
}

TEST_CASE("stdlib.mira.elements grades the otc example's checklists offline, per answer and per element") {
  mirac::test::TempDir tmp("criteria_offline");
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  std::string text = mirac::test::read_text(std::filesystem::path(root) / "examples/otc/otc.audit");
  auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace("use stdlib.mira.rubric\n", "use stdlib.mira.rubric\nuse stdlib.mira.elements\n");
  replace("judge judge = openai(\"gpt-5.4-mini\") { rubric mira temperature 0 }\n",
          "judge judge = openai(\"gpt-5.4-mini\") { rubric mira temperature 0 }\n"
          "judge elements = openai(\"gpt-5.4-mini\") { rubric mira_elements temperature 0 }\n");
  text += "\nanalysis q2_ways = agreement(Q2) { raters judge vs elements }\n"
          "analysis dropped = criteria() { rater elements compare literacy: low vs high }\n";
  const std::string spec = tmp.path("otc.audit"), store = tmp.path("run");
  std::ofstream(spec) << text;
  auto run = mirac::test::invoke({"run", spec, "--offline", "--store", store, "--resamples", "100"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("judge elements: 48 answers, 48 scored") != std::string::npos);
  const auto rows = exported(spec, store, "elements", true);
  REQUIRE(rows.size() == 48);
  for (const auto& [id, row] : rows) {
    INFO(row.dump());
    REQUIRE(row["criteria"].is_array());
    CHECK(row["criteria"].size() == (row["seed"] == "ibuprofen" ? 4u : 3u));
    CHECK(row["Q2"].is_number());
  }
  const Json results = Json::parse(mirac::test::read_text(std::filesystem::path(store) / "results" / "results.json"));
  CHECK(!analysis(results, "dropped").contains("error"));
  CHECK(analysis(results, "dropped")["results"][0]["pairs"] == 24);
  CHECK(!analysis(results, "q2_ways").contains("error"));
}
