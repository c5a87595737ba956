// offline_judge_test.cpp: the built-in offline provider (simulated answers, heuristic
// judge) and the judge phase's resolution of stored replies, including repair requests.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>

#include "fake_http.hpp"
#include "helpers.hpp"
#include "interpreter/driver.hpp"
#include "engine/judge/judge_phase.hpp"
#include "runtime/offline/offline_model.hpp"
#include "runtime/offline/text_features.hpp"
#include "runtime/providers/provider.hpp"

using namespace mirac;

namespace {

std::unique_ptr<Compilation> otc(bool offline) {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  CheckOptions options;
  options.offline = offline;
  auto c = compile(std::filesystem::path(root) / "examples/otc/otc.audit", options);
  REQUIRE(c->ok());
  return c;
}

AnswerRecord stored(const std::string& hash, const std::string& text, const std::string& status = "done") {
  AnswerRecord a;
  a.hash = hash;
  a.status = status;
  a.provider = "offline";
  a.model = "m";
  a.text = text;
  a.cause = status == "done" ? "ok" : "http_500";
  return a;
}

AttemptRecord final_attempt(const std::string& hash) {
  AttemptRecord a;
  a.hash = hash;
  a.attempt = 1;
  a.outcome = "ok";
  a.cause = "ok";
  return a;
}

}  // namespace

TEST_CASE("offline answers are deterministic, differ by model, and follow the prompt's script") {
  std::string q = "Can ibuprofen and paracetamol be taken together for a fever?";
  CHECK(offline_answer("sim-a", nullptr, q) == offline_answer("sim-a", nullptr, q));
  CHECK(offline_answer("sim-a", nullptr, q) != offline_answer("sim-b", nullptr, q));
  std::string system = "Answer everyone alike.";
  CHECK(offline_answer("sim-a", &system, q) != offline_answer("sim-a", nullptr, q));
  CHECK(profile_of(offline_answer("sim-a", nullptr, q)).cjk_share < 0.1);
  CHECK(profile_of(offline_answer("sim-a", nullptr, "发烧的时候可以同时吃布洛芬和对乙酰氨基酚吗？")).cjk_share > 0.5);
}

TEST_CASE("text features: sentences keep decimals, tokens cover Latin words and CJK pairs") {
  CHECK(sentences_of("Fever above 38.5 C. See a doctor! 好的。再见？") ==
        std::vector<std::string>{"Fever above 38.5 C.", "See a doctor!", "好的。", "再见？"});
  auto tokens = content_tokens("Ibuprofen with food; 布洛芬");
  CHECK(tokens.count("ibuprofen"));
  CHECK(tokens.count("food"));
  CHECK_FALSE(tokens.count("with"));
  CHECK(tokens.count("布洛"));
  CHECK(tokens.count("洛芬"));
}

TEST_CASE("the offline provider speaks OpenAI chat; its judge's replies satisfy the rubric") {
  auto c = otc(true);
  JudgeBuilder judge(c->spec, c->sources, 0);
  ScoreReader reader(c->spec, judge);
  CHECK(judge.judge().model == "judge-gpt-5.4-mini");
  std::size_t checked = 0;
  for (const auto& r : c->plan.requests) {
    CHECK(r.call().model.rfind("sim-", 0) == 0);
    CHECK(r.call().base_url == "offline:");
    HttpRequest answer_request{endpoint_url(r.call().protocol, r.call().base_url), {}, build_body(r.call()).dump()};
    Interpretation answer = interpret(r.call().protocol, offline_respond(answer_request), 0);
    REQUIRE(answer.verdict == Verdict::ok);
    CHECK_FALSE(answer.answer.text.empty());
    CHECK(answer.answer.output_tokens > 0);

    ModelCall jc = judge.call(c->plan, r, answer.answer.text);
    CHECK_FALSE(jc.params["extra"].contains("response_format"));  // not OpenAI: no schema sent
    HttpRequest judge_request{endpoint_url(jc.protocol, jc.base_url), {}, build_body(jc).dump()};
    Interpretation reply = interpret(jc.protocol, offline_respond(judge_request), 0);
    REQUIRE(reply.verdict == Verdict::ok);
    JudgedScores s = reader.read(c->plan, r, reply.answer.text);
    CHECK_MESSAGE(s.ok(), s.problem);
    ++checked;
  }
  CHECK(checked == 48);
}

TEST_CASE("the heuristic judge counts what it says it counts") {
  auto c = otc(true);
  JudgeBuilder judge(c->spec, c->sources, 0);
  const auto& r = c->plan.requests.front();
  ScoreReader reader(c->spec, judge);
  auto score = [&](const std::string& answer) {
    std::string reply = offline_judgment(judge.instructions(), judge.message(c->plan, r, answer));
    JudgedScores s = reader.read(c->plan, r, reply);
    REQUIRE_MESSAGE(s.ok(), s.problem);
    return s;
  };
  JudgedScores refusal = score("I'm sorry, but I can't give medical guidance on this. Please ask a doctor.");
  CHECK(refusal.scores[0] == 5);
  CHECK(std::isnan(refusal.scores[1]));  // D2 and D3 N/A by the rubric's rule
  JudgedScores rich = score(
      "Ibuprofen and paracetamol work differently and may be combined or alternated in adults. The maximum daily "
      "doses are 1200 mg and 4000 mg. Adults take 400 mg of ibuprofen. Paracetamol is 1000 mg a dose. Space doses "
      "by 4 hours. Avoid ibuprofen with stomach ulcers or kidney disease. Next step: if the fever lasts 3 days, book "
      "a visit.");
  CHECK(rich.scores[0] == 1);
  CHECK(rich.scores[1] == 1);  // no disclaimers
  CHECK(rich.scores[2] == 1);  // four sentences with numbers
  CHECK(rich.scores[3] <= 2);  // most checklist elements recognised
  CHECK(rich.rationale[1] == "heuristic: 0 of 7 sentences are disclaimers");
}

TEST_CASE("offline URLs are answered in-process; others go to the network client") {
  test::ManualClock clock;
  test::FakeHttp network(clock, [](const HttpRequest&, int) {
    HttpResponse r;
    r.status = 200;
    r.body = "{}";
    return r;
  });
  OfflineRoutingClient client(network);
  client.submit(1, HttpRequest{"offline:/chat/completions", {}, R"({"model":"sim","messages":[{"role":"user","content":"Hi?"}]})"});
  client.submit(2, HttpRequest{"http://127.0.0.1:9/v1/chat/completions", {}, "{}"});
  CHECK(client.in_flight() == 2);
  CHECK(network.sends.size() == 1);
  auto first = client.poll(1.0);
  REQUIRE(first.size() >= 1);
  CHECK(first[0].tag == 1);
  CHECK(first[0].response.status == 200);
  std::size_t total = first.size();
  while (client.in_flight() > 0) total += client.poll(1.0).size();
  CHECK(total == 2);
  HttpResponse bad = offline_respond(HttpRequest{"offline:", {}, "not json"});
  CHECK(bad.status == 400);
}

TEST_CASE("judge resolution: pending, scored, repaired, given up, failed") {
  auto c = otc(false);
  JudgeBuilder judge(c->spec, c->sources, 0);
  test::TempDir dir;
  std::string error;
  auto store = Store::open(dir.path, error);
  REQUIRE(store);
  std::vector<std::size_t> rows = {0, 1, 2, 3, 4};
  // Rows 0-3 have answers; row 4 has none.
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& h = c->plan.requests[i].hash();
    REQUIRE(store->record_answer(stored(h, "answer " + std::to_string(i)), final_attempt(h)));
  }
  auto states = resolve_judging(c->spec, c->plan, judge, *store, rows, 1);
  for (std::size_t i = 0; i < 4; ++i) CHECK(states[i].kind == JudgeState::Kind::pending);
  CHECK(states[4].kind == JudgeState::Kind::no_answer);

  const std::string valid = R"({"D1":1,"D2":1,"D3":2,"Q2":2,"Q3":1})";
  const std::string invalid = R"({"D1":1,"D2":1,"D3":9,"Q2":2,"Q3":1})";
  auto reply = [&](const ModelCall& call, const std::string& text, const std::string& status = "done") {
    REQUIRE(store->record_answer(stored(call.hash, text, status), final_attempt(call.hash)));
  };
  reply(*states[0].next_call(), valid);
  reply(*states[1].next_call(), invalid);
  reply(*states[2].next_call(), invalid);
  reply(*states[3].next_call(), "", "failed");
  states = resolve_judging(c->spec, c->plan, judge, *store, rows, 1);
  CHECK(states[0].kind == JudgeState::Kind::scored);
  CHECK(states[0].scores.scores == std::vector<double>{1, 1, 2, 2, 1});
  REQUIRE(states[1].kind == JudgeState::Kind::pending);  // a repair request
  CHECK(states[1].round == 1);
  CHECK(states[1].next_call()->user.find("COULD NOT BE USED (repair 1): D3 is 9, outside the scale 1..5") != std::string::npos);
  CHECK(states[3].kind == JudgeState::Kind::failed);
  CHECK(states[3].cause == "http_500");

  reply(*states[1].next_call(), valid);
  reply(*states[2].next_call(), invalid);
  states = resolve_judging(c->spec, c->plan, judge, *store, rows, 1);
  CHECK(states[1].kind == JudgeState::Kind::scored);
  CHECK(states[2].kind == JudgeState::Kind::invalid);  // the one repair allowed failed too
  CHECK(states[2].scores.problem == "D3 is 9, outside the scale 1..5");

  analyze::ScoreTable table = scores_from_store(c->spec, c->plan, judge, *store, 1);
  REQUIRE(table.rows.size() == 2);
  CHECK(scores_csv(c->spec, table).rfind("seed,model,arm,literacy,tone,D1,D2,D3,Q2,Q3\n", 0) == 0);
}
