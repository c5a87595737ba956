// pilot_test.cpp: a variant whose texts cover one seed of three, piloted with --only seed=...
// through the real binary: check and plan pass on that seed, the run sends and samples
// requests of it alone, and without the selection check says once how to pilot. A judged
// pilot (tests/cli/pilot_judged.audit, two seeds of five): plan counts the selection alone,
// and analyze, export, view and annotate read the selected requests (issue 30).
#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "mirac_binary.hpp"
#include "tests/cli/view_server.hpp"

namespace {

std::string pilot_spec() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return (std::filesystem::path(root) / "tests/golden/data/pilot_variant_selected.audit").string();
}

std::string judged_spec() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return (std::filesystem::path(root) / "tests/cli/pilot_judged.audit").string();
}

std::vector<nlohmann::json> jsonl(const std::string& text) {
  std::vector<nlohmann::json> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

// The rows of a scores.csv after its provenance lines.
std::size_t score_rows(const std::filesystem::path& csv) {
  std::istringstream in(mirac::test::csv_table(mirac::test::read_text(csv)));
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n - 1;  // the header
}

}  // namespace

TEST_CASE("a variant covering one seed is piloted on it with --only seed=") {
  auto unselected = mirac::test::invoke({"check", pilot_spec()});
  INFO(unselected.out << unselected.err);
  CHECK(unselected.code == 1);
  CHECK(unselected.err.find("lock file 'lock_pilot.jsonl' covers 1 of the 3 seeds (s1): pilot the spec on them with "
                            "--only seed=s1") != std::string::npos);
  CHECK(unselected.err.find("1 error generated") != std::string::npos);

  auto checked = mirac::test::invoke({"check", pilot_spec(), "--only", "seed=s1"});
  INFO(checked.out << checked.err);
  CHECK(checked.code == 0);
  CHECK(checked.out.find("ok (1 seeds, 4 prompts, 4 requests)") != std::string::npos);

  auto gap = mirac::test::invoke({"check", pilot_spec(), "--only", "seed=s1,s2"});
  CHECK(gap.code == 1);
  CHECK(gap.err.find("has no text for seed 's2' in cell zh.plain") != std::string::npos);

  auto unknown = mirac::test::invoke({"check", pilot_spec(), "--only", "seed=s9"});
  CHECK(unknown.code == 1);
  CHECK(unknown.err.find("--only seed=s9 selects seed 's9', which the spec does not have") != std::string::npos);

  // The plan holds no prompt of another seed.
  auto plan = mirac::test::invoke({"plan", pilot_spec(), "--only", "seed=s1", "--show", "plan"});
  INFO(plan.err);
  REQUIRE(plan.code == 0);
  const auto dumped = nlohmann::json::parse(plan.out);
  REQUIRE(dumped["prompt_table"].size() == 4);
  for (const auto& p : dumped["prompt_table"]) CHECK(p["seed"] == "s1");

  // A sampled offline pilot sends requests of the selected seed alone.
  mirac::test::TempDir tmp("pilot_run");
  auto run = mirac::test::invoke(
      {"run", pilot_spec(), "--offline", "--only", "seed=s1", "--sample", "3", "--store", tmp.path("run")});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find(": 3 requests") != std::string::npos);
}

TEST_CASE("mirac plan with a selection counts and prices the selected requests alone") {
  // The pilot's plan: 2 seeds x 4 cells, one model and arm, one judge: 8 prompts, requests
  // and judge calls. --only language=zh keeps 4 of each.
  auto text = mirac::test::invoke({"plan", judged_spec(), "--only", "seed=s1,s2,language=zh"});
  INFO(text.out << text.err);
  REQUIRE(text.code == 0);
  CHECK(text.out.find("selected by --only seed=s1,s2,language=zh: every count, token and cost below is of these "
                      "requests alone\n") != std::string::npos);
  CHECK(text.out.find("prompts             4  of 8 in the plan (2 of 2 seeds)\n") != std::string::npos);
  CHECK(text.out.find("requests            4  of 8 in the plan\n") != std::string::npos);
  CHECK(text.out.find("judge calls         4  of 8 in the plan\n") != std::string::npos);
  CHECK(text.out.find("  mini                4  openai(\"gpt-5.4-mini\")") != std::string::npos);
  CHECK(text.out.find("  language      zh 4  en 0\n") != std::string::npos);
  CHECK(text.out.find("  tone          plain 2  warm 2\n") != std::string::npos);

  // As JSON: the selection's counts, the whole plan's under "selected"; the forecasts of the
  // two languages add up to the whole plan's (each total rounded once).
  auto json_of = [](std::vector<std::string> args) {
    auto r = mirac::test::invoke(args);
    INFO(r.err);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out);
  };
  const auto whole = json_of({"plan", judged_spec(), "--only", "seed=s1,s2", "--json"});
  const auto zh = json_of({"plan", judged_spec(), "--only", "seed=s1,s2,language=zh", "--json"});
  const auto en = json_of({"plan", judged_spec(), "--only", "seed=s1,s2,language=en", "--json"});
  CHECK(whole["requests"] == 8);
  CHECK(zh["selected"]["by"] == "--only seed=s1,s2,language=zh");
  CHECK(zh["selected"]["plan"] == nlohmann::json({{"seeds", 2}, {"prompts", 8}, {"requests", 8}, {"judge_calls", 8}}));
  CHECK(zh["seeds"] == 2);
  CHECK(zh["prompts"] == 4);
  CHECK(zh["requests"] == 4);
  CHECK(zh["judge_calls"] == 4);
  CHECK(zh["requests_by_factor"]["language"] == nlohmann::json({{"zh", 4}, {"en", 0}}));
  for (const char* key : {"input_tokens", "max_output_tokens"}) {
    const long long sum = zh["forecast"][key].get<long long>() + en["forecast"][key].get<long long>();
    CHECK(std::llabs(sum - whole["forecast"][key].get<long long>()) <= 1);
    CHECK(zh["forecast"][key].get<long long>() < whole["forecast"][key].get<long long>());
  }
  CHECK(zh["forecast"]["max_cost_usd"].get<double>() + en["forecast"]["max_cost_usd"].get<double>() ==
        doctest::Approx(whole["forecast"]["max_cost_usd"].get<double>()).epsilon(1e-6));
  CHECK(zh["forecast"]["judging"][0]["calls"] == 4);
  CHECK(json_of({"plan", judged_spec(), "--only", "seed=s1,s2", "--sample", "3", "--json"})["requests"] == 3);
}

TEST_CASE("a pilot is analysed, exported, viewed and annotated with --only seed=") {
  mirac::test::TempDir tmp("pilot_read");
  const std::string store = tmp.path("run");
  auto run = mirac::test::invoke({"run", judged_spec(), "--offline", "--only", "seed=s1,s2", "--store", store,
                                  "--resamples", "50"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("pilot_judged: 8 score rows") != std::string::npos);
  const std::vector<std::string> at = {"--offline", "--store", store};
  auto with = [&](std::vector<std::string> args, std::vector<std::string> more) {
    args.insert(args.end(), at.begin(), at.end());
    args.insert(args.end(), more.begin(), more.end());
    return mirac::test::invoke(args);
  };

  // Without the selection every command stops at the pilot's one error.
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"analyze", judged_spec()}, {"export", judged_spec(), "responses"},
        {"annotate", "sample", judged_spec()}, {"view", judged_spec()}}) {
    auto r = with(cmd, {});
    INFO(cmd[0] << ": " << r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("pilot the spec on them with --only seed=s1,s2") != std::string::npos);
  }

  // analyze: the selected requests' scores alone.
  const std::string out = tmp.path("analysis");
  auto pilot = with({"analyze", judged_spec()}, {"--only", "seed=s1,s2", "--out", out, "--resamples", "50"});
  INFO(pilot.out << pilot.err);
  REQUIRE(pilot.code == 0);
  CHECK(pilot.out.find("pilot_judged: 8 score rows") != std::string::npos);
  CHECK(score_rows(std::filesystem::path(out) / "scores.csv") == 8);
  auto zh = with({"analyze", judged_spec()}, {"--only", "seed=s1,s2,language=zh", "--out", out, "--resamples", "50"});
  INFO(zh.out << zh.err);
  REQUIRE(zh.code == 0);
  CHECK(zh.out.find("pilot_judged: 4 score rows") != std::string::npos);
  CHECK(score_rows(std::filesystem::path(out) / "scores.csv") == 4);
  const auto results = nlohmann::json::parse(mirac::test::read_text(std::filesystem::path(out) / "results.json"));
  CHECK(results["coverage"]["answers"] == 4);
  CHECK(results["coverage"]["by_factor"][0]["levels"] ==
        nlohmann::json::parse(R"([{"level": "zh", "answers": 4, "unscored": 0, "share": 0.0}])"));

  // A run's analysis reads every scored answer of its plan: an analyze --only of fewer, into
  // the same directory with the same options, is not taken for it.
  const std::vector<std::string> zh_only = {"--only", "seed=s1,s2,language=zh", "--resamples", "50"};
  REQUIRE(with({"analyze", judged_spec()}, zh_only).code == 0);
  auto rerun = with({"run", judged_spec()}, zh_only);
  INFO(rerun.out << rerun.err);
  REQUIRE(rerun.code == 0);
  CHECK(rerun.out.find("pilot_judged: 8 score rows; wrote") != std::string::npos);

  // export: the selected answers alone.
  auto exported = with({"export", judged_spec(), "responses"}, {"--only", "seed=s1,s2,tone=warm"});
  INFO(exported.err);
  REQUIRE(exported.code == 0);
  const auto rows = jsonl(exported.out);
  CHECK(rows.size() == 4);
  for (const auto& r : rows) CHECK(r["tone"] == "warm");
  CHECK(jsonl(with({"export", judged_spec(), "responses"}, {"--only", "seed=s1,s2"}).out).size() == 8);
  CHECK(jsonl(with({"export", judged_spec(), "scores"}, {"--only", "seed=s2"}).out).size() == 4);

  // annotate: a sample of the selected answers, and its sheet imported under the same selection.
  const std::string sheet_dir = tmp.path("sheet");
  auto sampled = with({"annotate", "sample", judged_spec()}, {"--only", "seed=s1,s2,language=en", "--n", "3", "-o", sheet_dir});
  INFO(sampled.out << sampled.err);
  REQUIRE(sampled.code == 0);
  CHECK(sampled.out.find("3 of 4 stored answers") != std::string::npos);
  const std::string sheet = mirac::test::read_text(std::filesystem::path(sheet_dir) / "sheet.csv");
  std::string filled = "item,id,D1,D2,comment\n";
  for (std::size_t line = sheet.find('\n') + 1, item = 1; line < sheet.size(); line = sheet.find('\n', line) + 1, ++item) {
    const std::size_t a = sheet.find(',', line), b = sheet.find(',', a + 1);
    filled += std::to_string(item) + "," + sheet.substr(a + 1, b - a - 1) + ",2,3,\n";
  }
  const std::string scores = tmp.write("people.csv", filled);
  auto imported = with({"annotate", "import", judged_spec(), scores}, {"--annotator", "al", "--only", "seed=s1,s2,language=en"});
  INFO(imported.out << imported.err);
  CHECK(imported.code == 0);
  CHECK(imported.out.find("6 scores of 3 answers stored for annotator al") != std::string::npos);
  auto elsewhere = with({"annotate", "import", judged_spec(), scores}, {"--annotator", "bo", "--only", "seed=s1,s2,language=zh"});
  CHECK(elsewhere.code == 1);
  CHECK(elsewhere.err.find("is not the id of an answer selected by --only seed=s1,s2,language=zh") != std::string::npos);

  // view: the selected answers alone.
  mirac::test::ViewServer server({judged_spec(), "--offline", "--store", store, "--only", "seed=s1,s2,language=zh"},
                                 tmp.dir / "view.log");
  const auto meta = nlohmann::json::parse(server.get("/api/meta").body);
  CHECK(meta["requests"] == 4);
  CHECK(meta["scored"] == 4);
  const auto answers = nlohmann::json::parse(server.get("/api/answers?limit=100").body);
  CHECK(answers["total"] == 4);
  for (const auto& r : answers["rows"]) CHECK(r["levels"]["language"] == "zh");
  CHECK(server.stop() == 0);
}
