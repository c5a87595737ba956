// answer_marks_test.cpp: what the server did not do, through the real binary against the
// fake provider. The `openai` preset pointed at a server that reads the token limit as
// llama.cpp does (max_tokens only) runs past its limit; a provider that sends max_tokens
// does not. A prompt the server reports at 75 tokens was shortened. Both are marked in the
// store, and, with answers cut at the limit, counted by model, arm and factor level in the
// run's summary, `mirac status` (text and JSON), results.json and the report.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fake_server.hpp"
#include "mirac_binary.hpp"

using mirac::test::invoke;
using Json = nlohmann::json;

namespace {

std::string marks_spec(const std::string& base_url) {
  std::string long_question = "Please read all of this before answering.";
  for (int i = 0; i < 40; ++i) long_question += " My symptom number " + std::to_string(i) + " is mild.";
  return "audit marked { title \"marks\" }\nuse stdlib.providers\nfactor tone { plain warm }\nseeds {\n"
         "  seed q0 { question = \"First? [[fake server=llama]]\" }\n"
         "  seed q1 { question = \"Second? [[fake server=llama]]\" }\n"
         "  seed q2 { question = \"Third? [[fake server=llama fail=length]]\" }\n"
         "  seed q3 { question = \"" + long_question + " [[fake server=llama fail=contextshift]]\" }\n}\n"
         "text tone { plain \"\" warm \"Kindly: \" }\nprompt { id \"{seed.id}_{tone}\" text tone.text ++ seed.question }\n"
         "provider llamacpp {\n  protocol openai_chat\n  base_url \"" + base_url + "\"\n  key_env \"\"\n"
         "  token_limit_field \"max_tokens\"\n}\n"
         "model gpt = openai(\"gpt-test\") { max_tokens 64 }\nmodel llama = llamacpp(\"llama-test\") { max_tokens 64 }\n"
         "rubric tiny {\n  scale 1..5\n  worst high\n  dim D1 \"Depth\" { 1 \"Deep\" 5 \"Shallow\" }\n}\n"
         "judge j = offline(\"offline-judge\") { rubric tiny }\n";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const Json* entry(const Json& list, const std::string& key, const std::string& value) {
  for (const auto& e : list)
    if (e.value(key, "") == value) return &e;
  return nullptr;
}

}  // namespace

TEST_CASE("answers cut, past an ignored limit or from a shortened prompt are marked and counted everywhere") {
  mirac::test::TempDir tmp("answer_marks");
  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE_MESSAGE(server.start(error), error);
  const std::string spec = tmp.write("marked.audit", marks_spec(server.base_url())), store = tmp.path("store");

  auto run = invoke({"run", spec, "--store", store}, server.base_url());
  INFO(run.out, run.err);
  CHECK(run.code == 0);
  // 4 seeds x 2 tones x 2 models: q2's 4 answers cut, gpt's 8 past the limit (the server
  // read no max_tokens), q3's 4 from a shortened prompt.
  CHECK(has(run.out, "warning: 4 of 16 answers were cut at the token limit: gpt/baseline (2), llama/baseline (2)"));
  CHECK(has(run.out, "warning: 8 of 16 answers ran past the token limit sent, so the server ignored it: gpt/baseline (8)"));
  CHECK(has(run.out, "use the `local` provider"));
  CHECK(has(run.out, "warning: 4 of 16 answers came from a prompt the server reported at far fewer tokens"));

  auto status = invoke({"status", spec, "--store", store}, server.base_url());
  CHECK(status.code == 0);
  CHECK(has(status.out, "warning: 4 of 16 answers were cut at the token limit"));
  CHECK(has(status.out, "warning: 8 of 16 answers ran past the token limit sent"));
  auto status_json = invoke({"status", spec, "--store", store, "--json"}, server.base_url());
  Json marks = Json::parse(status_json.out)["answers_marked"];
  CHECK(marks["answers"] == 16);
  CHECK(marks["cut"] == 4);
  CHECK(marks["limit_ignored"] == 8);
  CHECK(marks["prompt_shortened"] == 4);
  const Json* llama = entry(marks["by_model_arm"], "model", "llama");
  REQUIRE(llama != nullptr);
  CHECK((*llama)["limit_ignored"] == 0);
  CHECK((*llama)["cut"] == 2);
  REQUIRE(marks["by_factor"].size() == 1);
  const Json* warm = entry(marks["by_factor"][0]["levels"], "level", "warm");
  REQUIRE(warm != nullptr);
  CHECK((*warm)["answers"] == 8);
  CHECK((*warm)["cut"] == 2);
  CHECK((*warm)["prompt_shortened"] == 2);

  // The same counts in results.json, and in the report ahead of its tables.
  Json results = Json::parse(mirac::test::read_text(tmp.dir / "store" / "results" / "results.json"));
  CHECK(results["answers_marked"]["cut"] == 4);
  CHECK(results["answers_marked"]["limit_ignored"] == 8);
  CHECK(results["answers_marked"]["prompt_shortened"] == 4);
  std::string report = mirac::test::read_text(tmp.dir / "store" / "results" / "report.md");
  CHECK(has(report, "Of 16 stored answers, 4 were cut at the token limit, 8 ran past the token limit sent (the server "
                    "ignored it) and 4 came from a prompt the server shortened"));
  CHECK(has(report, "Answers the servers did not treat as asked, by model and arm and by factor level"));

  // A rerun sends nothing and says the same.
  const std::size_t sent = server.stats().requests;
  auto rerun = invoke({"run", spec, "--store", store}, server.base_url());
  CHECK(server.stats().requests == sent);
  CHECK(has(rerun.out, "warning: 8 of 16 answers ran past the token limit sent"));
  server.stop();
}

TEST_CASE("mirac check: a token_limit_field the protocol has no such field for is an error") {
  mirac::test::TempDir tmp("answer_marks_check");
  auto spec = [&](const std::string& protocol, const std::string& field) {
    return tmp.write("t.audit", "audit t { title \"t\" }\nseeds {\n  seed q0 { question = \"Q?\" }\n}\n"
                                "prompt { id \"{seed.id}\" text seed.question }\n"
                                "provider lab {\n  protocol " + protocol + "\n  base_url \"http://127.0.0.1:9/v1\"\n"
                                "  key_env \"\"\n  token_limit_field " + field + "\n}\nmodel m = lab(\"m\") { max_tokens 64 }\n");
  };
  auto bad = invoke({"check", spec("openai_chat", "\"n_predict\"")});
  CHECK(bad.code == 1);
  CHECK(has(bad.out + bad.err, "provider 'lab': token_limit_field is \"max_tokens\""));
  auto anthropic = invoke({"check", spec("anthropic_messages", "\"max_completion_tokens\"")});
  CHECK(anthropic.code == 1);
  CHECK(has(anthropic.out + anthropic.err, "reads the token limit from max_tokens only"));
  CHECK(invoke({"check", spec("openai_chat", "\"max_completion_tokens\"")}).code == 0);
}
