// offline_run_test.cpp: `mirac run --offline` through the real binary: answers, judging
// and analysis end to end with the built-in offline provider; a rerun pays nothing and
// gives the same results; `mirac analyze` reads the same scores from the store.
#include <doctest/doctest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "mirac_binary.hpp"

namespace {

std::string otc_spec() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return (std::filesystem::path(root) / "examples/otc/otc.audit").string();
}

nlohmann::json results(const std::filesystem::path& dir) {
  return nlohmann::json::parse(mirac::test::read_text(dir / "results.json"));
}

// results.json but the time of the analysis, the one thing a rerun changes.
nlohmann::json results_but_time(const std::filesystem::path& dir) {
  nlohmann::json r = results(dir);
  r["manifest"]["dates"].erase("analyzed_at");
  return r;
}

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("an offline run goes from prompts to results; a rerun sends nothing and agrees") {
  mirac::test::TempDir tmp("offline_run");
  const std::string store = tmp.path("run");
  auto first = mirac::test::invoke({"run", otc_spec(), "--offline", "--store", store});
  INFO(first.out << first.err);
  REQUIRE(first.code == 0);
  CHECK(first.out.find("run otc (offline: simulated answers): 48 requests") != std::string::npos);
  CHECK(first.out.find("48 requests: 0 already answered, 48 sent (48 attempts), 48 answered now, 0 failed") !=
        std::string::npos);
  CHECK(first.out.find("judge judge: 48 answers, 48 scored, 0 unusable replies, 0 failed, 0 pending") !=
        std::string::npos);
  CHECK(first.out.find("spend this run: $0.0000") != std::string::npos);  // nothing is paid offline
  const auto out_dir = std::filesystem::path(store) / "results";
  CHECK(lines(mirac::test::csv_table(mirac::test::read_text(out_dir / "scores.csv"))) == 49);
  // The spec's report, rendered from the results.
  const std::string report_md = mirac::test::read_text(out_dir / "report.md");
  CHECK(report_md.find("# Over-the-counter medicine questions (simulated answers)\n\n> **Simulated answers:") == 0);
  CHECK(report_md.find("| mini (simulated) | baseline |") != std::string::npos);  // the models' names say it too
  const std::string report_html = mirac::test::read_text(out_dir / "report.html");
  CHECK(report_html.find("<div class=\"banner\" id=\"simulated-banner\"") != std::string::npos);
  auto r1 = results_but_time(out_dir);
  CHECK(r1["means"].size() == 4);  // 2 models x 2 arms
  REQUIRE(r1["analyses"].size() == 2);
  CHECK(r1["analyses"][0]["name"] == "main");

  auto second = mirac::test::invoke({"run", otc_spec(), "--offline", "--store", store});
  INFO(second.out << second.err);
  REQUIRE(second.code == 0);
  CHECK(second.out.find("48 requests: 48 already answered, 0 sent") != std::string::npos);
  CHECK(second.out.find("judge judge: 48 answers, 48 scored") != std::string::npos);
  CHECK(results_but_time(out_dir) == r1);

  // The same scores through `mirac analyze`, from the store and from the scores file.
  auto from_store = mirac::test::invoke(
      {"analyze", otc_spec(), "--offline", "--store", store, "--out", tmp.path("a"), "--resamples", "2000"});
  INFO(from_store.err);
  REQUIRE(from_store.code == 0);
  auto r2 = results(tmp.path("a"));
  CHECK(r2["means"] == r1["means"]);
  CHECK(r2["contrasts"] == r1["contrasts"]);
  auto from_file = mirac::test::invoke(
      {"analyze", otc_spec(), "--scores", (out_dir / "scores.csv").string(), "--out", tmp.path("b")});
  REQUIRE(from_file.code == 0);
  auto r3 = results(tmp.path("b"));
  CHECK(r3["means"] == r1["means"]);
  CHECK(r3["analyses"] == r1["analyses"]);
}

TEST_CASE("--answers-only stops before judging; analyze then has nothing to read") {
  mirac::test::TempDir tmp("offline_answers_only");
  const std::string store = tmp.path("run");
  auto run = mirac::test::invoke({"run", otc_spec(), "--offline", "--store", store, "--answers-only", "--limit", "6"});
  REQUIRE(run.code == 0);
  CHECK(run.out.find("judge") == std::string::npos);
  auto analyze = mirac::test::invoke({"analyze", otc_spec(), "--offline", "--store", store});
  CHECK(analyze.code == 2);
  CHECK(analyze.err.find("nothing in " + store + " is scored by judge 'judge' yet") != std::string::npos);
}

TEST_CASE("a judge's missing key stops the run before any answer is paid for") {
  mirac::test::TempDir tmp("judge_key");
  const std::string spec = tmp.write("keys.audit", R"(audit keys { title "keys" }
use stdlib.providers
use stdlib.mira.rubric
factor tone { plain warm }
seeds { seed q1 { question = "Is it safe?" } }
text tone { plain "" warm "Kindly: " }
prompt { id "{seed.id}_{tone}" text tone.text ++ seed.question }
model gpt = openai("gpt-test")
judge grader = anthropic("claude-test") { rubric mira }
)");
  unsetenv("ANTHROPIC_API_KEY");  // inherited by the mirac process
  auto run = mirac::test::invoke({"run", spec, "--store", tmp.path("run")});
  CHECK(run.code == 4);
  CHECK(run.err.find("1 API key is missing; nothing was sent:\n"
                     "  ANTHROPIC_API_KEY (needed by the judge on anthropic)\n") != std::string::npos);
  // With the models' key missing too, theirs and the judge's are reported together.
  std::string other = mirac::test::read_text(spec);
  other.replace(other.find("openai(\"gpt-test\")"), 19, "deepseek(\"deepseek-test\")");
  unsetenv("DEEPSEEK_API_KEY");
  auto none = mirac::test::invoke({"run", tmp.write("both.audit", other), "--store", tmp.path("run")});
  CHECK(none.code == 4);
  CHECK(none.err.find("2 API keys are missing; nothing was sent:\n"
                      "  ANTHROPIC_API_KEY (needed by the judge on anthropic)\n"
                      "  DEEPSEEK_API_KEY (needed by deepseek for 2 requests)\n") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp.path("run")));
}

TEST_CASE("under a budget, an unpriced judge stops the run before any answer is paid for") {
  mirac::test::TempDir tmp("judge_price");
  const std::string spec = tmp.write("prices.audit", R"(audit prices { title "prices" }
use stdlib.providers
use stdlib.mira.rubric
factor tone { plain warm }
seeds { seed q1 { question = "Is it safe?" } }
text tone { plain "" warm "Kindly: " }
prompt { id "{seed.id}_{tone}" text tone.text ++ seed.question }
model gpt = openai("gpt-5.4")
judge grader = openai("gpt-unpriced") { rubric mira }
)");
  auto run = mirac::test::invoke({"run", spec, "--store", tmp.path("run"), "--budget", "1"});
  CHECK(run.code == 4);
  CHECK(run.err.find("a budget needs a price for every judge too; no price for: gpt-unpriced. Give one in the spec, "
                     "in USD per million tokens (docs/providers.md, \"Prices\"):\n"
                     "  prices openai { \"gpt-unpriced\" { input USD output USD } }\nNothing was sent.") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp.path("run")));
}

TEST_CASE("a pilot without a model's reference level says so, not that the level does not exist") {
  mirac::test::TempDir tmp("pilot_reference");
  std::string text = mirac::test::read_text(otc_spec());
  text += "\nanalysis by_literacy = lmm(D3 ~ literacy + (1 | seed)) {\n  reference literacy: high\n}\n";
  const std::string spec = tmp.write("otc.audit", text);
  auto run = mirac::test::invoke({"run", spec, "--offline", "--only", "literacy=low", "--store", tmp.path("run")});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK(run.err.find("analysis by_literacy skipped: its reference level literacy = high has no scored answers here "
                     "(literacy has only low), so no coefficient can be measured against it") != std::string::npos);
  CHECK(run.err.find("is not a level of") == std::string::npos);
}
