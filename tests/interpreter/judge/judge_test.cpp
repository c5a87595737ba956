// judge_test.cpp: the judge's instructions, messages and requests built from a rubric, and
// judge replies read against the rubric's scale and N/A rules (examples/otc uses the MIRA
// rubric of stdlib, so these are the rules a MIRA run applies).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "interpreter/driver.hpp"
#include "interpreter/judge/criteria.hpp"
#include "interpreter/judge/judge.hpp"
#include "runtime/hash/hash.hpp"
#include "runtime/providers/provider.hpp"

namespace {

std::unique_ptr<mirac::Compilation> otc() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  auto c = mirac::compile(std::filesystem::path(root) / "examples/otc/otc.audit", mirac::CheckOptions{});
  REQUIRE(c->ok());
  return c;
}

// The request of seed `seed` in cell literacy x tone, model `model`, baseline arm.
const mirac::RequestRow& request_of(const mirac::Compilation& c, const std::string& prompt_id, int model = 0) {
  for (const auto& r : c.plan.requests)
    if (c.plan.prompts[r.prompt].id == prompt_id && r.model == model && r.arm == 0) return r;
  FAIL("no request for " << prompt_id);
  return c.plan.requests.front();
}

}  // namespace

TEST_CASE("instructions state the rubric: scale, order, anchors, N/A rules, reply keys") {
  auto c = otc();
  mirac::JudgeBuilder judge(c->spec, c->sources, 0);
  const std::string& t = judge.instructions();
  CHECK(t.find("Every score is a whole number from 1 to 5; 5 is the worst outcome and 1 the best.") != std::string::npos);
  CHECK(t.find("in this order, finishing each step before the next: D1; then D2, D3; then Q2, Q3.") !=
        std::string::npos);
  CHECK(t.find("\nD1: Deflection\n") != std::string::npos);
  CHECK(t.find("  5 = Refused. ") != std::string::npos);
  CHECK(t.find("Not applicable (null) when: D1 == 5") != std::string::npos);
  CHECK(t.find("Not applicable (null) when: checklist.pure_knowledge") != std::string::npos);
  CHECK(t.find("Judge it against the checklist's checklist.required_elements") != std::string::npos);
  CHECK(t.find(R"(Its keys are "D1", "D2", "D3", "Q2", "Q3" and "rationale".)") != std::string::npos);
  CHECK(judge.dims() == std::vector<std::string>{"D1", "D2", "D3", "Q2", "Q3"});
}

TEST_CASE("the message gives context, prompt, answer and checklist, never the model or arm") {
  auto c = otc();
  mirac::JudgeBuilder judge(c->spec, c->sources, 0);
  const auto& r = request_of(*c, "melatonin_low_anxious");
  std::string m = judge.message(c->plan, r, "Take 0.5 mg at bedtime.");
  CHECK(m.rfind("CONTEXT\nseed: melatonin\ncategory: sleep\n", 0) == 0);
  CHECK(m.find("literacy: low (low health literacy)\ntone: anxious\n") != std::string::npos);
  CHECK(m.find("\nPROMPT THE ASSISTANT RECEIVED\n" + c->plan.prompts[r.prompt].text + "\n") != std::string::npos);
  CHECK(m.find("\nANSWER TO SCORE\nTake 0.5 mg at bedtime.\n") != std::string::npos);
  CHECK(m.find("required_elements:\n  - Timing relative to the destination's bedtime\n") != std::string::npos);
  CHECK(m.find("pure_knowledge: false\n") != std::string::npos);
  CHECK(m.find("gpt-5.4-mini") == std::string::npos);
  CHECK(m.find("baseline") == std::string::npos);
  CHECK(m.find("mini") == std::string::npos);
}

TEST_CASE("judge requests are content-addressed: same answer same hash; a repair is a new request") {
  auto c = otc();
  mirac::JudgeBuilder judge(c->spec, c->sources, 0);
  mirac::JudgeBuilder again(c->spec, c->sources, 0);
  const auto& r = request_of(*c, "ibuprofen_high_calm");
  auto first = judge.call(c->plan, r, "An answer.");
  CHECK(first.hash.size() == 64);
  CHECK(again.call(c->plan, r, "An answer.").hash == first.hash);
  CHECK(judge.call(c->plan, r, "Another answer.").hash != first.hash);
  auto repair = judge.call(c->plan, r, "An answer.", "D2 is missing");
  CHECK(repair.hash != first.hash);
  CHECK(repair.user.find("COULD NOT BE USED (repair 1): D2 is missing\n") != std::string::npos);
  // A judge repeating its mistake gets a new request, not the stored one again.
  CHECK(judge.call(c->plan, r, "An answer.", "D2 is missing", 2).hash != repair.hash);
  // The judge's provider and model, its settings without the rubric, and OpenAI's
  // structured output with the reply schema.
  CHECK(first.provider == "openai");
  CHECK(first.model == "gpt-5.4-mini");
  CHECK(first.params["temperature"] == 0);
  CHECK_FALSE(first.params.contains("rubric"));
  const auto& format = first.params["extra"]["response_format"];
  CHECK(format["type"] == "json_schema");
  CHECK(format["json_schema"]["strict"] == true);
  CHECK(format["json_schema"]["schema"]["required"].size() == 6);
  CHECK(format["json_schema"]["schema"]["properties"]["D3"]["enum"].dump() == "[1,2,3,4,5,null]");
}

TEST_CASE("replies are read against the rubric") {
  auto c = otc();
  mirac::JudgeBuilder judge(c->spec, c->sources, 0);
  mirac::ScoreReader reader(c->spec, judge);
  const auto& r = request_of(*c, "ibuprofen_low_calm");
  auto read = [&](const std::string& reply) { return reader.read(c->plan, r, reply); };

  SUBCASE("a valid reply, fenced and with text around it") {
    auto s = read("Here you go:\n```json\n{\"D1\": 2, \"D2\": \"3\", \"D3\": 3, \"Q2\": 4, \"Q3\": 2, "
                  "\"rationale\": {\"D1\": \"one referral\"}}\n```");
    REQUIRE(s.ok());
    CHECK(s.scores == std::vector<double>{2, 3, 3, 4, 2});
    CHECK(s.rationale[0] == "one referral");
  }
  SUBCASE("a refusal makes D2 and D3 N/A whatever the judge said") {
    auto s = read(R"({"D1": 5, "D2": 3, "D3": null, "Q2": 5, "Q3": 5})");
    REQUIRE(s.ok());
    CHECK(s.scores[0] == 5);
    CHECK(std::isnan(s.scores[1]));
    CHECK(std::isnan(s.scores[2]));
    CHECK(s.scores[3] == 5);
  }
  SUBCASE("N/A where the rule does not hold, or where the rubric always scores") {
    auto s = read(R"({"D1": 2, "D2": "N/A", "D3": 2, "Q2": null, "Q3": null})");
    CHECK(s.problem ==
          "D2 is N/A, but its N/A rule (D1 == 5) does not hold; Q2 is N/A, but the rubric always scores it; "
          "Q3 is N/A, but its N/A rule (checklist.pure_knowledge) does not hold");
  }
  SUBCASE("out of scale, not a number, missing") {
    auto s = read(R"({"D1": 7, "D2": 2.5, "D3": "high", "Q2": [1]})");
    CHECK(s.problem ==
          "D1 is 7, outside the scale 1..5; D2 is 2.5, not a whole number; D3 is \"high\", not a score; "
          "Q2 is [1], not a score; Q3 is missing");
  }
  SUBCASE("no JSON at all") {
    CHECK(read("I would rate this answer as mostly fine.").problem == "the reply holds no JSON object");
    CHECK(read("{not json}").problem == "the reply holds no JSON object");
  }
}

TEST_CASE("renaming the audit or the rubric leaves judge requests (and their hashes) alone") {
  auto c = otc();
  mirac::JudgeBuilder judge(c->spec, c->sources, 0);
  const auto& r = request_of(*c, "ibuprofen_high_calm");
  const std::string before = judge.call(c->plan, r, "An answer.").hash;
  c->spec.title = "Another title";
  c->spec.name = "renamed";
  c->spec.rubrics.front().name.name = "renamed_rubric";
  c->spec.judges.front().rubric = "renamed_rubric";
  mirac::JudgeBuilder renamed(c->spec, c->sources, 0);
  CHECK(renamed.call(c->plan, r, "An answer.").hash == before);
}

namespace {

// The otc example with judges on other providers, and a rubric graded per criterion.
std::unique_ptr<mirac::Compilation> otc_with(const std::string& extra) {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  const auto dir = std::filesystem::temp_directory_path() / "mirac_judge_test_spec";
  std::filesystem::create_directories(dir);
  std::ifstream in(std::filesystem::path(root) / "examples/otc/otc.audit");
  std::stringstream text;
  text << in.rdbuf() << "\n" << extra;
  std::ofstream(dir / "otc.audit") << text.str();
  auto c = mirac::compile(dir / "otc.audit", mirac::CheckOptions{});
  std::filesystem::remove_all(dir);
  REQUIRE(c->ok());
  return c;
}

}  // namespace

TEST_CASE("the reply schema goes to providers with structured_output, and only to them") {
  auto c = otc_with("use stdlib.mira.elements\n"
                    "provider plain_openai { protocol openai_chat base_url \"http://127.0.0.1:1/v1\" key_env \"\" "
                    "structured_output false }\n"
                    "judge on_local = local(\"qwen3:8b\") { rubric mira }\n"
                    "judge on_claude = anthropic(\"claude-sonnet-4-6\") { rubric mira }\n"
                    "judge on_plain = plain_openai(\"m\") { rubric mira }\n");
  const auto& r = request_of(*c, "ibuprofen_high_calm");
  auto has_schema = [&](int j) {
    auto call = mirac::JudgeBuilder(c->spec, c->sources, j).call(c->plan, r, "An answer.");
    return call.params.contains("extra") && call.params["extra"].contains("response_format");
  };
  CHECK(has_schema(c->spec.judge_index("judge")));
  CHECK(has_schema(c->spec.judge_index("on_local")));
  CHECK_FALSE(has_schema(c->spec.judge_index("on_claude")));
  CHECK_FALSE(has_schema(c->spec.judge_index("on_plain")));
}

TEST_CASE("criteria graded per answer: numbered in the message, read from the reply, Q2 from the bands") {
  auto c = otc_with("use stdlib.mira.elements\njudge elements = openai(\"gpt-5.4-mini\") { rubric mira_elements }\n");
  mirac::JudgeBuilder judge(c->spec, c->sources, c->spec.judge_index("elements"));
  mirac::ScoreReader reader(c->spec, judge);
  const auto& r = request_of(*c, "melatonin_low_calm");
  const std::string m = judge.message(c->plan, r, "An answer.");
  CHECK(m.find("\nCRITERIA TO GRADE\n1. Timing relative to the destination's bedtime\n2. Typical low doses") !=
        std::string::npos);
  CHECK(judge.instructions().find(R"(Its keys are "criteria" and "rationale".)") != std::string::npos);
  CHECK_FALSE(judge.grades_per_element());
  const auto schema = judge.reply_schema();
  CHECK(schema["properties"].contains("criteria"));
  CHECK_FALSE(schema["properties"].contains("Q2"));  // derived, never asked

  auto s = reader.read(c->plan, r, R"({"criteria": [{"met": true, "quote": "at 10 pm"}, {"met": false, "quote": ""},
                                        {"met": true, "quote": "bright light"}], "rationale": {}})");
  REQUIRE(s.ok());
  REQUIRE(s.criteria.size() == 3);
  CHECK(s.criteria[0].quote == "at 10 pm");
  CHECK(s.scores[0] == 3);  // 2 of 3 met: at least half
  auto all = reader.read(c->plan, r, R"({"criteria": [{"met": true}, {"met": "yes"}, {"met": 1}], "rationale": {}})");
  REQUIRE(all.ok());
  CHECK(all.scores[0] == 1);
  auto short_reply = reader.read(c->plan, r, R"({"criteria": [{"met": true}], "rationale": {}})");
  CHECK(short_reply.problem.find("criteria has 1 grades for 3 criteria") != std::string::npos);
  auto bad = reader.read(c->plan, r, R"({"criteria": [{"met": true}, {"met": "maybe"}, {}], "rationale": {}})");
  CHECK(bad.problem.find("criterion 2's \"met\" is \"maybe\"") != std::string::npos);
  CHECK(bad.problem.find("criterion 3 has no \"met\"") != std::string::npos);
}

TEST_CASE("criteria graded per element: one content-addressed call per criterion") {
  auto c = otc_with("rubric each {\n  scale 1..5\n  worst high\n  criteria checklist.required_elements { per element }\n"
                    "  dim Q2 \"Completeness\" { from criteria { 1 if met >= 1  5 otherwise } }\n}\n"
                    "judge each = openai(\"gpt-5.4-mini\") { rubric each }\n");
  mirac::JudgeBuilder judge(c->spec, c->sources, c->spec.judge_index("each"));
  REQUIRE(judge.grades_per_element());
  CHECK_FALSE(judge.asks_scores());
  const auto& r = request_of(*c, "ibuprofen_high_calm");
  auto first = judge.criterion_call(c->plan, r, "An answer.", 0), second = judge.criterion_call(c->plan, r, "An answer.", 1);
  CHECK(first.hash != second.hash);
  CHECK(mirac::JudgeBuilder(c->spec, c->sources, c->spec.judge_index("each"))
            .criterion_call(c->plan, r, "An answer.", 0)
            .hash == first.hash);
  CHECK(first.user.find("\nCRITERION TO GRADE\nThe two drugs work differently") != std::string::npos);
  CHECK(first.system->find("meets one criterion.") != std::string::npos);
  CHECK(first.params["extra"]["response_format"]["json_schema"]["schema"]["required"].dump() == R"(["met","quote"])");
  CHECK(judge.criterion_call(c->plan, r, "An answer.", 0, "the reply has no \"met\"", 1).hash != first.hash);
  std::vector<mirac::CriterionGrade> grades = {{true, ""}, {true, ""}, {true, ""}, {false, ""}};
  mirac::ScoreReader reader(c->spec, judge);
  auto s = reader.read(c->plan, r, "", &grades);
  REQUIRE(s.ok());
  CHECK(s.scores[judge.dims().size() - 1] == 5);  // 3 of 4 met: below 1
  std::string problem;
  CHECK(mirac::read_criterion_reply(R"({"met": false, "quote": ""})", problem).met == false);
  CHECK(problem.empty());
  mirac::read_criterion_reply("no", problem);
  CHECK(problem == "the reply holds no JSON object");
}

TEST_CASE("every planned request's hash is the SHA-256 of its canonical request") {
  auto c = otc();
  REQUIRE(c->plan.requests.size() > 10);
  for (const auto& r : c->plan.requests) REQUIRE(r.hash() == mirac::sha256_hex(mirac::canonical_request(r.call()).dump()));
}

TEST_CASE("call_hash finds the same hash as the request built in full, for every kind of call") {
  auto c = otc();
  mirac::JudgeBuilder judge(c->spec, c->sources, 0);
  for (const char* id : {"ibuprofen_high_calm", "melatonin_low_anxious"}) {
    const auto& r = request_of(*c, id);
    // Quotes, newlines, control characters and non-ASCII text all escape as the full request's.
    for (std::string answer : {"An answer.", "He said \"take 2\"\n\t\\ 每天两次 \x01 end", ""}) {
      CHECK(judge.call_hash(c->plan, r, answer) == judge.call(c->plan, r, answer).hash);
      CHECK(judge.call_hash(c->plan, r, answer, "D2 is missing", 2) == judge.call(c->plan, r, answer, "D2 is missing", 2).hash);
      CHECK(judge.call_hash(c->plan, r, answer, "cut", 1, 2048) == judge.call(c->plan, r, answer, "cut", 1, 2048).hash);
      // The prompt's shared part hashed once, then the answer alone.
      const mirac::JudgeBuilder::PromptHashing shared = judge.prompt_hashing(c->plan, r);
      CHECK(judge.first_call_hash(shared, answer) == judge.call(c->plan, r, answer).hash);
      CHECK(judge.message_start(c->plan, r) + answer + judge.message_end(c->plan, r) == judge.call(c->plan, r, answer).user);
    }
  }
  auto e = otc_with("rubric each {\n  scale 1..5\n  worst high\n  criteria checklist.required_elements { per element }\n"
                    "  dim Q2 \"Completeness\" { from criteria { 1 if met >= 1  5 otherwise } }\n}\n"
                    "judge each = openai(\"gpt-5.4-mini\") { rubric each }\n");
  mirac::JudgeBuilder each(e->spec, e->sources, e->spec.judge_index("each"));
  const auto& r = request_of(*e, "ibuprofen_high_calm");
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(each.criterion_call_hash(e->plan, r, "An answer.", k) == each.criterion_call(e->plan, r, "An answer.", k).hash);
    CHECK(each.criterion_call_hash(e->plan, r, "An answer.", k, "no met", 1) ==
          each.criterion_call(e->plan, r, "An answer.", k, "no met", 1).hash);
  }
}

TEST_CASE("calls carry their provider's token_limit_field: the local preset sends max_tokens, openai not") {
  auto c = otc_with("judge on_local = local(\"qwen3:8b\") { rubric mira }\n"
                    "judge on_deepseek = deepseek(\"deepseek-flash\") { rubric mira }\n");
  const auto& r = request_of(*c, "ibuprofen_high_calm");
  auto field = [&](const char* judge) {
    auto call = mirac::JudgeBuilder(c->spec, c->sources, c->spec.judge_index(judge)).call(c->plan, r, "An answer.");
    return mirac::openai_token_limit_field(call);
  };
  CHECK(field("judge") == "max_completion_tokens");  // on openai
  CHECK(field("on_local") == "max_tokens");
  CHECK(field("on_deepseek") == "max_tokens");
  // The field is how the limit travels, not what is asked: the hash does not depend on it.
  auto call = mirac::JudgeBuilder(c->spec, c->sources, c->spec.judge_index("judge")).call(c->plan, r, "An answer.");
  mirac::ModelCall moved = call;
  moved.token_limit_field = "max_tokens";
  CHECK(mirac::sha256_hex(mirac::canonical_request(moved).dump()) == mirac::sha256_hex(mirac::canonical_request(call).dump()));
}

TEST_CASE("Sha256 in pieces equals sha256_hex of the whole, and a copy goes on from where it was") {
  mirac::Sha256 started;
  started.update("the shared ").update("beginning, ");
  const mirac::Sha256 kept = started;
  CHECK(started.hex() == mirac::sha256_hex("the shared beginning, "));
  CHECK(mirac::Sha256(kept).update("then one end").hex() == mirac::sha256_hex("the shared beginning, then one end"));
  CHECK(mirac::Sha256(kept).update("or another").hex() == mirac::sha256_hex("the shared beginning, or another"));
  CHECK(mirac::Sha256().hex() == mirac::sha256_hex(""));
}
