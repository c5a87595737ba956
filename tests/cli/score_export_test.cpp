// score_export_test.cpp: `mirac export SPEC scores` and the judging counts of `mirac status`,
// through the real binary: after a complete offline run of examples/otc (every answer
// scored), and on a store where crafted judge replies put answers in every other state
// (scored with N/A, invalid after the repairs, failed, pending before and after a repair).
#include <doctest/doctest.h>

#include <map>

#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "interpreter/driver.hpp"
#include "interpreter/judge/judge.hpp"
#include "mirac_binary.hpp"
#include "engine/judge/judge_phase.hpp"
#include "runtime/store/store.hpp"

using mirac::test::invoke;
using Json = nlohmann::ordered_json;

namespace {

std::string otc_path() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return (std::filesystem::path(root) / "examples/otc/otc.audit").string();
}

std::vector<Json> jsonl(const std::string& text) {
  std::vector<Json> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) rows.push_back(Json::parse(line));
  return rows;
}

// RFC 4180 records (quoted fields may hold commas, quotes and line breaks).
std::vector<std::vector<std::string>> csv_records(const std::string& text) {
  std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') records.back().back() += '"', ++i;
      else if (ch == '"') quoted = false;
      else records.back().back() += ch;
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      records.back().emplace_back();
    } else if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      records.emplace_back(1);
      ++i;
    } else {
      records.back().back() += ch;
    }
  }
  if (records.back().size() == 1 && records.back()[0].empty()) records.pop_back();
  return records;
}

// otc's factors are literacy and tone; stdlib.mira.rubric's dimensions D1, D2, D3, Q2, Q3.
const std::vector<std::string> kColumns = {
    "prompt_id", "seed", "literacy", "tone", "model", "model_string", "arm", "hash", "judge", "judge_model_string",
    "state", "D1", "D2", "D3", "Q2", "Q3", "rationale_D1", "rationale_D2", "rationale_D3", "rationale_Q2",
    "rationale_Q3", "round", "problem", "judge_hash"};

std::vector<std::string> keys(const Json& row) {
  std::vector<std::string> k;
  for (const auto& [key, value] : row.items()) k.push_back(key);
  return k;
}

// Stores `text` (or a failure) as the reply to the judge request `hash`, as a run would.
void store_reply(mirac::Store& store, const std::string& hash, const std::string& text, bool failed = false) {
  mirac::AnswerRecord a;
  a.hash = hash;
  a.status = failed ? "failed" : "done";
  a.provider = "offline";
  a.text = text;
  a.cause = failed ? "rate_limited" : "ok";
  a.attempts = 1;
  mirac::AttemptRecord at;
  at.hash = hash;
  at.attempt = 1;
  at.outcome = failed ? "fatal_provider" : "ok";
  at.cause = a.cause;
  REQUIRE(store.record_answer(a, at));
}

}  // namespace

TEST_CASE("mirac export scores after a complete offline run: a row per answer, every column, N/A as null") {
  mirac::test::TempDir tmp("score_export");
  const std::string spec = otc_path(), store = tmp.path("run");
  auto run = invoke({"run", spec, "--offline", "--store", store});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);

  auto exported = invoke({"export", spec, "scores", "--offline", "--store", store});
  INFO(exported.err);
  REQUIRE(exported.code == 0);
  CHECK(exported.err.find("48 answers (48 scored, 0 invalid, 0 pending, 0 failed)") != std::string::npos);
  std::vector<Json> rows = jsonl(exported.out);
  REQUIRE(rows.size() == 48);
  // The scores the analysis read (one line per scored answer, in plan order): the export
  // must agree with them.
  std::vector<std::string> analysed;
  {
    std::istringstream in(mirac::test::csv_table(mirac::test::read_text(std::filesystem::path(store) / "results/scores.csv")));
    for (std::string line; std::getline(in, line);) analysed.push_back(line);
  }
  REQUIRE(analysed.size() == 49);
  CHECK(analysed[0] == "seed,model,arm,literacy,tone,D1,D2,D3,Q2,Q3");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& r = rows[i];
    CAPTURE(i);
    CHECK(keys(r) == kColumns);
    CHECK(r["state"] == "scored");
    CHECK(r["judge"] == "judge");
    CHECK(r["judge_model_string"] == "judge-gpt-5.4-mini");  // --offline renames the judge's model
    CHECK(r["round"] == 0);
    CHECK(r["problem"].is_null());
    CHECK(r["judge_hash"].get<std::string>().size() == r["hash"].get<std::string>().size());
    CHECK(r["judge_hash"] != r["hash"]);
    // The rubric's N/A rule: D2 and D3 are N/A exactly when D1 is 5; Q3 never here (no
    // otc seed is pure knowledge). N/A is null, a score an integer of the scale. (The
    // offline judge may never score D1 = 5 on otc: the next test case crafts an N/A.)
    const bool deflected = r["D1"] == 5;
    CHECK(r["D2"].is_null() == deflected);
    CHECK(r["D3"].is_null() == deflected);
    for (const char* d : {"D1", "D2", "D3", "Q2", "Q3"}) {
      if (r[d].is_null()) continue;
      CHECK(r[d].is_number_integer());
      CHECK(r[d] >= 1);
      CHECK(r[d] <= 5);
    }
    CHECK(!r["rationale_D1"].get<std::string>().empty());  // the offline judge says what it counted
    // The same row of scores.csv (seed, model, arm, levels, then the scores with N/A as "N/A").
    std::string expected = r["seed"].get<std::string>() + "," + r["model"].get<std::string>() + "," +
                           r["arm"].get<std::string>() + "," + r["literacy"].get<std::string>() + "," +
                           r["tone"].get<std::string>();
    for (const char* d : {"D1", "D2", "D3", "Q2", "Q3"}) expected += "," + (r[d].is_null() ? "N/A" : r[d].dump());
    CHECK(analysed[i + 1] == expected);
  }

  // CSV: the same rows and columns; N/A an empty cell.
  const std::string csv_path = tmp.path("scores.csv");
  auto csv = invoke({"export", spec, "scores", "--offline", "--store", store, "--format", "csv", "-o", csv_path});
  INFO(csv.err);
  REQUIRE(csv.code == 0);
  CHECK(csv.out.empty());
  auto records = csv_records(mirac::test::read_text(csv_path));
  REQUIRE(records.size() == 49);
  CHECK(records[0] == kColumns);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    REQUIRE(records[i + 1].size() == kColumns.size());
    for (std::size_t c = 0; c < kColumns.size(); ++c) {
      const Json& v = rows[i][kColumns[c]];
      CHECK(records[i + 1][c] == (v.is_null() ? "" : v.is_string() ? v.get<std::string>() : v.dump()));
    }
  }

  // Naming the judge gives the same rows; a judge the spec does not have is a usage error
  // that names the spec's judges; --judge means nothing to `export responses`.
  auto named = invoke({"export", spec, "scores", "--offline", "--store", store, "--judge", "judge"});
  CHECK(named.code == 0);
  CHECK(named.out == exported.out);
  auto unknown = invoke({"export", spec, "scores", "--offline", "--store", store, "--judge", "gpt"});
  CHECK(unknown.code == 2);
  CHECK(unknown.out.empty());
  CHECK(unknown.err.find("--judge 'gpt' is neither a judge nor a panel of spec 'otc', nor human or human.NAME (raters: judge)") != std::string::npos);
  CHECK(invoke({"export", spec, "responses", "--offline", "--store", store, "--judge", "judge"}).code == 2);
  CHECK(invoke({"export", spec, "ratings", "--offline", "--store", store}).code == 2);

  // `mirac status` counts the same, in the words of `mirac run`'s summary.
  auto status = invoke({"status", spec, "--offline", "--store", store});
  REQUIRE(status.code == 0);
  CHECK(status.out.find("judge judge: 48 answers, 48 scored, 0 unusable replies, 0 failed, 0 pending") !=
        std::string::npos);
  auto status_json = invoke({"status", spec, "--offline", "--store", store, "--json"});
  REQUIRE(status_json.code == 0);
  Json j = Json::parse(status_json.out);
  REQUIRE(j["judging"].size() == 1);
  CHECK(j["judging"][0]["by_factor"][1]["levels"][0] ==
        Json({{"level", "calm"}, {"answers", 24}, {"scored", 24}, {"invalid", 0}, {"failed", 0}, {"pending", 0}}));
  j["judging"][0].erase("by_factor");
  CHECK(j["judging"][0] ==
        Json({{"judge", "judge"}, {"model", "judge-gpt-5.4-mini"}, {"answers", 48}, {"scored", 48}, {"invalid", 0},
              {"failed", 0}, {"pending", 0}}));
  CHECK(j["repairs"] == 2);
}

TEST_CASE("export scores and status: N/A, unusable replies, a failed judge call and pending answers") {
  mirac::test::TempDir tmp("score_states");
  const std::string spec = otc_path(), store_dir = tmp.path("run");
  auto run = invoke({"run", spec, "--offline", "--store", store_dir, "--answers-only", "--limit", "6"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);

  // Judge replies written into the store as a run would have stored them, for the first six
  // requests of the plan (the ones the pilot answered).
  mirac::CheckOptions options;
  options.offline = true;
  auto c = mirac::compile(otc_path(), options);
  REQUIRE(c->ok());
  mirac::JudgeBuilder judge(c->spec, c->sources, 0);
  std::string error;
  auto store = mirac::Store::open(store_dir, error);
  REQUIRE(store);
  auto state = [&](std::size_t row) { return mirac::resolve_judging(c->spec, c->plan, judge, *store, {row}, 2)[0]; };
  using Kind = mirac::JudgeState::Kind;

  // Row 0: a usable reply where the judge (rightly) calls D2 and D3 not applicable.
  REQUIRE(state(0).next_call());
  store_reply(*store, state(0).next_call()->hash,
              R"({"D1": 5, "D2": null, "D3": "N/A", "Q2": 2, "Q3": 4,
                  "rationale": {"D1": "refuses, refers to a pharmacist", "D2": "", "D3": "", "Q2": "one of four",
                                "Q3": "no next step"}})");
  REQUIRE(state(0).kind == Kind::scored);
  // Row 1: unusable replies to the first request and the repairs: invalid. (Two replies
  // suffice: both repairs restate the same problem, so they are one request, one hash.)
  std::string last_invalid;
  for (auto s = state(1); s.kind == Kind::pending; s = state(1)) {
    last_invalid = s.next_call()->hash;
    store_reply(*store, last_invalid, "I would rather not score this.");
  }
  REQUIRE(state(1).kind == Kind::invalid);
  // Row 2: the judge call failed. Row 3: one unusable reply, its repair not sent yet.
  const std::string failed_hash = state(2).next_call()->hash;
  store_reply(*store, failed_hash, "", true);
  store_reply(*store, state(3).next_call()->hash, R"({"D1": 9})");
  const std::string repair_hash = state(3).next_call()->hash;
  REQUIRE(state(3).round == 1);
  const std::string pending_hash = state(4).next_call()->hash;
  store.reset();

  auto exported = invoke({"export", spec, "scores", "--offline", "--store", store_dir});
  INFO(exported.err);
  REQUIRE(exported.code == 0);
  CHECK(exported.err.find("6 answers (1 scored, 1 invalid, 3 pending, 1 failed)") != std::string::npos);
  CHECK(exported.err.find("42 of 48 requests have no answer") != std::string::npos);
  std::vector<Json> rows = jsonl(exported.out);
  REQUIRE(rows.size() == 6);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    CHECK(rows[i]["prompt_id"] == c->plan.prompts[c->plan.requests[i].prompt].id);
    CHECK(rows[i]["hash"] == c->plan.requests[i].hash());
  }

  CHECK(rows[0]["state"] == "scored");
  CHECK(rows[0]["D1"] == 5);
  CHECK(rows[0]["D2"].is_null());
  CHECK(rows[0]["D3"].is_null());
  CHECK(rows[0]["Q2"] == 2);
  CHECK(rows[0]["rationale_D1"] == "refuses, refers to a pharmacist");
  CHECK(rows[0]["problem"].is_null());

  // Not scored: no scores, not even partial ones; the problem, the round and the request.
  CHECK(rows[1]["state"] == "invalid");
  CHECK(rows[1]["round"] == 2);
  CHECK(rows[1]["judge_hash"] == last_invalid);
  CHECK(!rows[1]["problem"].get<std::string>().empty());
  for (const char* d : {"D1", "D2", "D3", "Q2", "Q3", "rationale_D1"}) CHECK(rows[1][d].is_null());

  CHECK(rows[2]["state"] == "failed");
  CHECK(rows[2]["problem"] == "rate_limited");
  CHECK(rows[2]["judge_hash"] == failed_hash);

  CHECK(rows[3]["state"] == "pending");
  CHECK(rows[3]["round"] == 1);
  CHECK(rows[3]["judge_hash"] == repair_hash);
  CHECK(rows[3]["problem"].get<std::string>().find("D1") != std::string::npos);  // why it is being repaired
  CHECK(rows[3]["D1"].is_null());

  CHECK(rows[4]["state"] == "pending");
  CHECK(rows[4]["round"] == 0);
  CHECK(rows[4]["judge_hash"] == pending_hash);
  CHECK(rows[4]["problem"].is_null());

  // CSV: null cells are empty.
  auto csv = invoke({"export", spec, "scores", "--offline", "--store", store_dir, "--format", "csv"});
  REQUIRE(csv.code == 0);
  auto records = csv_records(csv.out);
  REQUIRE(records.size() == 7);
  CHECK(records[1][11] == "5");   // D1
  CHECK(records[1][12].empty());  // D2: N/A
  CHECK(records[2][10] == "invalid");

  auto status = invoke({"status", spec, "--offline", "--store", store_dir});
  REQUIRE(status.code == 0);
  INFO(status.out);
  CHECK(status.out.find("judge judge: 6 answers, 1 scored, 1 unusable replies, 1 failed, 3 pending") !=
        std::string::npos);
  // --only narrows the judging counts like every other count.
  auto only = invoke({"status", spec, "--offline", "--store", store_dir, "--json", "--only",
                      "seed=" + rows[0]["seed"].get<std::string>() + ",arm=" + rows[0]["arm"].get<std::string>() +
                          ",model=" + rows[0]["model"].get<std::string>()});
  REQUIRE(only.code == 0);
  Json j = Json::parse(only.out);
  std::size_t selected_answers = 0, selected_scored = 0;
  for (const auto& r : rows)
    if (r["seed"] == rows[0]["seed"] && r["arm"] == rows[0]["arm"] && r["model"] == rows[0]["model"]) {
      ++selected_answers;
      selected_scored += r["state"] == "scored";
    }
  CHECK(j["judging"][0]["answers"] == selected_answers);
  CHECK(j["judging"][0]["scored"] == selected_scored);

  // By factor level: each level's judge states add up to the total, counted from the rows.
  auto all = Json::parse(invoke({"status", spec, "--offline", "--store", store_dir, "--json"}).out);
  const Json& by_factor = all["judging"][0]["by_factor"];
  REQUIRE(by_factor.size() == 2);  // literacy, tone
  for (const auto& factor : by_factor) {
    std::size_t answers = 0, scored = 0;
    for (const auto& level : factor["levels"]) {
      std::size_t expected = 0, expected_scored = 0;
      for (const auto& r : rows)
        if (r[factor["factor"].get<std::string>()] == level["level"]) ++expected, expected_scored += r["state"] == "scored";
      CHECK(level["answers"] == expected);
      CHECK(level["scored"] == expected_scored);
      answers += level["answers"].get<std::size_t>();
      scored += level["scored"].get<std::size_t>();
    }
    CHECK(answers == 6);
    CHECK(scored == 1);
  }
}

TEST_CASE("status warns when a factor's levels differ in how many answers are unscored") {
  mirac::test::TempDir tmp("score_skew");
  const std::string spec = otc_path(), store_dir = tmp.path("run");
  // Calm answers answered and judged; anxious ones answered only.
  // (Its analysis fails, tone having one level: the answers and judgments are stored all the same.)
  auto calm = invoke({"run", spec, "--offline", "--store", store_dir, "--only", "tone=calm"});
  INFO(calm.out << calm.err);
  REQUIRE(calm.out.find("judge judge: 24 answers, 24 scored") != std::string::npos);
  REQUIRE(invoke({"run", spec, "--offline", "--store", store_dir, "--answers-only"}).code == 0);
  auto status = invoke({"status", spec, "--offline", "--store", store_dir});
  INFO(status.out);
  REQUIRE(status.code == 0);
  CHECK(status.out.find("judge judge: 48 answers, 24 scored, 0 unusable replies, 0 failed, 24 pending") != std::string::npos);
  CHECK(status.out.find("warning: 100.0% unscored at tone=anxious but 0.0% at tone=calm") != std::string::npos);
  CHECK(status.out.find("unscored at literacy=") == std::string::npos);  // literacy is balanced

  // Each analysis says how many of the answers it selects it could not use, and why.
  auto analyzed = invoke({"analyze", spec, "--offline", "--store", store_dir});
  INFO(analyzed.err);
  const Json results = Json::parse(mirac::test::read_text(std::filesystem::path(store_dir) / "results" / "results.json"));
  std::map<std::string, Json> unused;
  for (const auto& a : results["analyses"]) unused[a["name"].get<std::string>()] = a["unused"];
  CHECK(unused.at("main")["unscored"] == 12);  // where arm == baseline: half of the 24 anxious answers
  CHECK(unused.at("arms")["unscored"] == 24);
  CHECK(unused.at("arms")["not_applicable"].contains("Q3"));
  // The report says where the unscored answers are.
  const std::string report = mirac::test::read_text(std::filesystem::path(store_dir) / "results" / "report.md");
  CHECK(report.find("Answers without a usable score from judge, by model and by factor level") != std::string::npos);
  CHECK(report.find("| tone = anxious | 24 | 24 | 100.0% |") != std::string::npos);
  CHECK(report.find("| tone = calm | 24 | 0 | 0.0% |") != std::string::npos);
}
