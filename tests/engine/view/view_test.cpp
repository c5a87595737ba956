// view_test.cpp: the index `mirac view` serves (engine/view) over an offline run of the OTC
// example: a row per request with its answer and the judge's scores; filters by model,
// factor level, seed, judge state, flag and the dimension an answer is scored on; matched pairs that differ in one factor only,
// with a - b per dimension; and flags that mark exactly what the analysis counted in
// results.json (the same condition code evaluates them). The index holds no texts: a page's
// answers and the judge's rationales are read from the store when the page is made.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/audit.hpp"
#include "engine/judge/judge_phase.hpp"
#include "engine/view/json.hpp"
#include "engine/view/query.hpp"

namespace {

namespace fs = std::filesystem;
using mirac::view::Params;

struct OfflineRun {
  fs::path dir = fs::temp_directory_path() / "mirac_view_index_test";
  mirac::Audit audit;
  std::unique_ptr<mirac::view::AnswerIndex> index;
  OfflineRun() {
    fs::remove_all(dir);
    const char* root = std::getenv("MIRAC_SOURCE_DIR");
    REQUIRE(root != nullptr);
    mirac::AuditOptions o;
    o.spec = fs::path(root) / "examples/otc/otc.audit";
    o.store = dir.string();
    o.offline = true;
    o.resamples = 100;
    const std::atomic<bool> never{false};
    mirac::AuditEvents quiet;
    mirac::Outcome done = mirac::run_audit(o, never, quiet);
    INFO(done.message);
    REQUIRE(done.ok());
    audit = mirac::open_audit(o);
    REQUIRE(audit.ok());
    mirac::Outcome built;
    index = mirac::view::AnswerIndex::build(audit, built);
    INFO(built.message);
    REQUIRE(index);
  }
  ~OfflineRun() { fs::remove_all(dir); }
  std::size_t count(const Params& params) const {
    std::string error;
    const auto filter = mirac::view::parse_filter(*index, params, error);
    INFO(error);
    REQUIRE(error.empty());
    return mirac::view::filter_rows(*index, filter).size();
  }
  // The sum of `count` over a flag's by_model_arm entries in results.json.
  std::size_t analysed_count(const std::string& flag) const {
    std::ifstream in(dir / "results" / "results.json");
    const auto results = nlohmann::json::parse(in);
    for (const auto& f : results["flags"])
      if (f["name"] == flag) {
        std::size_t n = 0;
        for (const auto& cell : f["by_model_arm"]) n += cell["count"].get<std::size_t>();
        return n;
      }
    FAIL("no flag " << flag << " in results.json");
    return 0;
  }
};

int dim(const mirac::view::AnswerIndex& index, const std::string& name) {
  for (std::size_t d = 0; d < index.dims().size(); ++d)
    if (index.dims()[d] == name) return static_cast<int>(d);
  FAIL("no dimension " << name);
  return -1;
}

}  // namespace

TEST_CASE("the view index: every answer with its scores, filtered by model, level, seed, judge state and flag") {
  OfflineRun run;
  const auto& index = *run.index;
  REQUIRE(index.rows().size() == 48);  // 3 seeds x 4 cells x 2 models x 2 arms
  CHECK(index.rater() == "judge");
  CHECK(index.dims() == std::vector<std::string>{"D1", "D2", "D3", "Q2", "Q3"});
  std::vector<std::size_t> every;
  for (const auto& r : index.rows()) every.push_back(r.request);
  const auto texts = index.texts(every, true);  // from the store, as a page reads them
  for (const auto& r : index.rows()) {
    CHECK(r.status == mirac::view::AnswerStatus::done);
    CHECK_FALSE(texts[r.request].text.empty());
    CHECK(r.judging == mirac::view::Judging::scored);
    CHECK(texts[r.request].rationales.size() == 5);
  }
  CHECK(run.count({}) == 48);
  CHECK(run.count({{"model", "mini"}}) == 24);
  CHECK(run.count({{"model", "mini"}, {"arm", "baseline"}, {"literacy", "low"}}) == 6);
  CHECK(run.count({{"seed", "ibu"}}) == 16);
  CHECK(run.count({{"judge", "scored"}}) == 48);
  CHECK(run.count({{"judge", "pending"}, {"status", "done"}}) == 0);

  std::string error;
  mirac::view::parse_filter(index, {{"literacy", "medium"}}, error);
  CHECK(error == "unknown level of literacy 'medium' (expected one of: high, low)");
  error.clear();
  mirac::view::parse_filter(index, {{"colour", "red"}}, error);
  CHECK(error == "unknown parameter 'colour' (not a factor of spec otc)");

  // SEVERE (D3 >= 3 and Q2 >= 4) marks exactly the answers it holds on, as the analysis counted.
  const int d3 = dim(index, "D3"), q2 = dim(index, "Q2");
  std::size_t severe = 0;
  for (const auto& r : index.rows()) severe += index.score(r, d3) >= 3 && index.score(r, q2) >= 4;
  CHECK(run.count({{"flag", "SEVERE"}}) == severe);
  CHECK(severe == run.analysed_count("SEVERE"));

  // One answer in full: the prompt, the arm's system prompt, scores and rationales.
  const auto& first = index.rows()[0];
  const auto detail = mirac::view::answer_json(index, first);
  CHECK(detail["prompt"] == index.plan().prompts[first.prompt].text);
  CHECK(detail["text"] == texts[0].text);
  CHECK(detail["scores"].size() == 5);
  CHECK(detail["rationales"].size() == 5);
  const auto page = mirac::view::answers_json(index, mirac::view::filter_rows(index, {}), 40, 50);
  CHECK(page["total"] == 48);
  CHECK(page["rows"].size() == 8);

  // scored_on: the answers a mean on that dimension averages, as many as results.json's n
  // of every cell mean (report.html links its means to these).
  std::ifstream in(run.dir / "results" / "results.json");
  const auto results = nlohmann::json::parse(in);
  REQUIRE(results["cell_means"].size() == 16);
  for (const auto& cell : results["cell_means"])
    for (const auto& [dimension, mean] : cell["dimensions"].items()) {
      Params params{{"model", cell["model"].get<std::string>()}, {"arm", cell["arm"].get<std::string>()},
                    {"scored_on", dimension}};
      for (const auto& [factor, level] : cell["cell"].items()) params[factor] = level.get<std::string>();
      CHECK(run.count(params) == mean["n"].get<std::size_t>());
    }
  std::size_t q3 = 0;
  for (const auto& r : index.rows()) q3 += !std::isnan(index.score(r, static_cast<std::size_t>(dim(index, "Q3"))));
  CHECK(run.count({{"scored_on", "Q3"}}) == q3);
  error.clear();
  mirac::view::parse_filter(index, {{"scored_on", "D9"}}, error);
  CHECK(error == "unknown dimension 'D9' (expected one of: D1, D2, D3, Q2, Q3)");
}

TEST_CASE("the view's matched pairs differ in one factor only; a pair flag keeps the pairs it fires on") {
  OfflineRun run;
  const auto& index = *run.index;
  std::string error;
  auto q = mirac::view::parse_pairs(index, {{"factor", "literacy"}, {"a", "low"}, {"b", "high"}}, error);
  REQUIRE(error.empty());
  const auto all = mirac::view::find_pairs(index, q);
  CHECK(all.pairs.size() == 24);
  CHECK(all.unmatched == 0);
  CHECK(all.duplicates == 0);
  const int d3 = dim(index, "D3");
  std::size_t gaps = 0;
  for (const auto& [ia, ib] : all.pairs) {
    const auto &a = index.rows()[ia], &b = index.rows()[ib];
    CHECK(a.seed == b.seed);
    CHECK(a.model == b.model);
    CHECK(a.arm == b.arm);
    CHECK(index.levels(a)[1] == index.levels(b)[1]);  // tone
    CHECK(index.spec().factors[0].levels[index.levels(a)[0]].name.name == "low");
    CHECK(index.spec().factors[0].levels[index.levels(b)[0]].name.name == "high");
    const auto diff = mirac::view::score_differences(index, a, b);
    CHECK(diff[d3] == index.score(a, d3) - index.score(b, d3));
    gaps += index.score(a, d3) - index.score(b, d3) >= 2;
  }

  // LITERACY_GAP = pair(literacy: low vs high) when a.D3 - b.D3 >= 2: its pairs are those of
  // the difference filter D3 >= 2, and as many as the analysis counted.
  auto flagged = mirac::view::parse_pairs(index, {{"flag", "LITERACY_GAP"}}, error);
  REQUIRE(error.empty());
  CHECK(flagged.factor == 0);
  const auto fired = mirac::view::find_pairs(index, flagged);
  CHECK(fired.pairs.size() == gaps);
  CHECK(gaps == run.analysed_count("LITERACY_GAP"));
  auto by_diff = mirac::view::parse_pairs(
      index, {{"factor", "literacy"}, {"a", "low"}, {"b", "high"}, {"dim", "D3"}, {"min_diff", "2"}}, error);
  REQUIRE(error.empty());
  CHECK(mirac::view::find_pairs(index, by_diff).pairs == fired.pairs);
  // The answers list's flag filter: both sides of every pair it fires on.
  CHECK(run.count({{"flag", "LITERACY_GAP"}}) == 2 * gaps);

  // Filters narrow the pairs to shared fields; the paired factor's own level is ignored.
  auto mini = mirac::view::parse_pairs(index, {{"factor", "tone"}, {"a", "anxious"}, {"b", "calm"}, {"model", "mini"}}, error);
  REQUIRE(error.empty());
  CHECK(mirac::view::find_pairs(index, mini).pairs.size() == 12);
  const auto json = mirac::view::pairs_json(index, mini, mirac::view::find_pairs(index, mini), 0, 5);
  CHECK(json["total"] == 12);
  CHECK(json["pairs"].size() == 5);
  CHECK(json["pairs"][0]["a"]["levels"]["tone"] == "anxious");
  CHECK(json["pairs"][0]["b"]["levels"]["tone"] == "calm");

  mirac::view::parse_pairs(index, {{"flag", "SEVERE"}}, error);
  CHECK(error.find("flag SEVERE is a unit flag") != std::string::npos);
  error.clear();
  mirac::view::parse_pairs(index, {{"factor", "literacy"}, {"a", "low"}, {"b", "low"}}, error);
  CHECK(error == "a pair needs two different levels of literacy, not low twice");
}

TEST_CASE("a page's answer texts and the judge's rationales are read from the store, for its rows") {
  OfflineRun run;
  const auto& index = *run.index;
  const mirac::Spec& spec = index.spec();
  const mirac::Plan& plan = index.plan();
  std::string error;
  auto store = mirac::Store::open(run.dir, error);
  REQUIRE(store);
  const mirac::JudgeBuilder judge(spec, run.audit.sources(), spec.judge_index(index.rater()));

  // The answers list: each row's snippet is the start of the answer the store holds.
  const auto page = mirac::view::answers_json(index, mirac::view::filter_rows(index, {}), 10, 5);
  REQUIRE(page["rows"].size() == 5);
  for (const auto& row : page["rows"]) {
    const auto stored = store->brief(plan.requests[row["id"].get<std::size_t>()].hash());
    REQUIRE(stored);
    const std::string snippet = row["snippet"];
    CHECK(stored->text.compare(0, std::min<std::size_t>(snippet.size(), 160), snippet.substr(0, 160)) == 0);
  }

  // One judged answer in full: its text as stored, and each rationale as the judge's stored
  // reply gives it.
  const auto& row = index.rows()[7];
  REQUIRE(row.judging == mirac::view::Judging::scored);
  const auto detail = mirac::view::answer_json(index, row);
  CHECK(detail["text"] == store->brief(plan.requests[row.request].hash())->text);
  const auto states = mirac::resolve_judging(spec, plan, judge, *store, {row.request}, run.audit.options.repairs,
                                             mirac::JudgmentDetail::scores);
  REQUIRE(states[0].kind == mirac::JudgeState::Kind::scored);
  const auto reply = store->brief(states[0].judge_hash);
  REQUIRE(reply);
  std::size_t rationales = 0;
  for (const auto& [dimension, rationale] : detail["rationales"].items()) {
    if (rationale.get<std::string>().empty()) continue;
    ++rationales;
    INFO(dimension << ": " << rationale);
    CHECK(reply->text.find(nlohmann::json(rationale).dump()) != std::string::npos);
  }
  CHECK(rationales == 5);

  // A page of pairs: both sides carry their texts and rationales.
  auto q = mirac::view::parse_pairs(index, {{"factor", "literacy"}, {"a", "low"}, {"b", "high"}}, error);
  REQUIRE(error.empty());
  const auto pairs = mirac::view::pairs_json(index, q, mirac::view::find_pairs(index, q), 3, 4);
  REQUIRE(pairs["pairs"].size() == 4);
  for (const auto& pair : pairs["pairs"])
    for (const char* side : {"a", "b"}) {
      const auto& answer = pair[side];
      CHECK(answer["text"] == store->brief(answer["hash"].get<std::string>())->text);
      CHECK_FALSE(answer["rationales"]["D3"].get<std::string>().empty());
    }
}

TEST_CASE("requests the store has no answer for are missing, with no answer to judge and no text") {
  const fs::path dir = fs::temp_directory_path() / "mirac_view_missing_test";
  fs::remove_all(dir);
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  mirac::AuditOptions o;
  o.spec = fs::path(root) / "examples/otc/otc.audit";
  o.store = dir.string();
  o.offline = true;
  o.resamples = 100;
  o.only = "model=mini";  // the run sends one model's requests; the view shows both models'
  const std::atomic<bool> never{false};
  mirac::AuditEvents quiet;
  mirac::Outcome done = mirac::run_audit(o, never, quiet);
  INFO(done.message);
  REQUIRE(done.ok());
  o.only.clear();
  mirac::Audit audit = mirac::open_audit(o);
  REQUIRE(audit.ok());
  mirac::Outcome built;
  auto index = mirac::view::AnswerIndex::build(audit, built);
  INFO(built.message);
  REQUIRE(index);
  REQUIRE(index->rows().size() == 48);
  std::string error;
  auto count = [&](const Params& params) {
    return mirac::view::filter_rows(*index, mirac::view::parse_filter(*index, params, error)).size();
  };
  CHECK(count({{"status", "missing"}}) == 24);
  CHECK(count({{"status", "missing"}, {"model", "mini"}}) == 0);
  CHECK(count({{"judge", "no_answer"}}) == 24);
  CHECK(count({{"status", "done"}, {"judge", "scored"}}) == 24);
  CHECK(error.empty());
  const auto missing = mirac::view::filter_rows(*index, mirac::view::parse_filter(*index, {{"status", "missing"}}, error));
  const auto detail = mirac::view::answer_json(*index, index->rows()[missing.front()]);
  CHECK(detail["status"] == "missing");
  CHECK(detail["judge"] == "no_answer");
  CHECK(detail["text"] == "");
  CHECK(detail["scores"]["D3"].is_null());
  index.reset();
  fs::remove_all(dir);
}
