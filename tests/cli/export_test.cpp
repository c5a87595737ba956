// export_test.cpp: `mirac export responses` from a store filled by a real run against the
// loopback fake provider, and `mirac import responses` (matching, errors, no re-sending).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_calls.hpp"
#include "fake_server.hpp"
#include "mirac_binary.hpp"
#include "interpreter/model/data.hpp"
#include "interpreter/driver.hpp"
#include "runtime/store/store.hpp"

namespace fs = std::filesystem;

namespace {

// `seeds` inline seeds x 2 tones, one OpenAI-protocol model; optionally a second arm.
std::string export_spec(int seeds, bool two_arms) {
  std::string s = "audit exp { title \"export\" }\nuse stdlib.providers\nfactor tone { plain warm }\nseeds {\n";
  for (int i = 0; i < seeds; ++i) s += "  seed q" + std::to_string(i) + " { question = \"Question number " + std::to_string(i) + "?\" }\n";
  s += "}\ntext tone { plain \"\" warm \"Kindly: \" }\nprompt { id \"{seed.id}_{tone}\" text tone.text ++ seed.question }\n";
  s += "model gpt = openai(\"gpt-test\") { max_tokens 64 }\n";
  if (two_arms) s += "arm baseline { system none }\narm kind { system \"Be kind.\" }\n";
  return s;
}

int run_binary(const std::vector<std::string>& args, const std::string& base_url) {
  return mirac::test::invoke(args, base_url).code;
}

std::vector<nlohmann::ordered_json> jsonl(const std::string& text) {
  std::vector<nlohmann::ordered_json> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) rows.push_back(nlohmann::ordered_json::parse(line));
  return rows;
}

// The plan's hash for a prompt id (first arm unless named).
std::string hash_of(const std::string& spec, const std::string& prompt_id, const std::string& arm = "") {
  auto c = mirac::compile(spec, mirac::CheckOptions{});
  REQUIRE(c->ok());
  for (const auto& r : c->plan.requests)
    if (c->plan.prompts[r.prompt].id == prompt_id && (arm.empty() || c->spec.arms[static_cast<std::size_t>(r.arm)].name == arm))
      return r.hash();
  FAIL("no request for " << prompt_id);
  return "";
}

cli_call::SpecStore options(const std::string& spec, const std::string& store) {
  cli_call::SpecStore o;
  o.spec = spec;
  o.store = store;
  return o;
}

}  // namespace

TEST_CASE("mirac export responses: every stored answer in plan order, as JSONL and RFC 4180 CSV") {
  mirac::test::TempDir scratch("export");
  std::ofstream(scratch.dir / "exp.audit") << export_spec(3, false);
  mirac::fake::FakeServer server(mirac::fake::FakeServerOptions{});
  std::string error;
  REQUIRE(server.start(error));
  std::string spec = (scratch.dir / "exp.audit").string(), store = (scratch.dir / "store").string();
  auto o = options(spec, store);

  std::ostringstream out, err;
  SUBCASE("usage and missing store") {
    CHECK(cli_call::export_rows(o, "responses", "", "jsonl", out, err) == 4);
    CHECK(err.str().find("no run store at " + store + "/store.sqlite (check --store") != std::string::npos);
    CHECK(cli_call::export_rows(o, "scores", "", "jsonl", out, err) == 2);
    CHECK(cli_call::export_rows(o, "responses", "", "xml", out, err) == 2);
  }
  SUBCASE("after a pilot run of 4 of the 6 requests") {
    REQUIRE(run_binary({"run", spec, "--store", store, "--limit", "4"}, server.base_url()) == 0);
    REQUIRE(server.stats().answered == 4);

    fs::path jsonl_path = scratch.dir / "answers.jsonl";
    REQUIRE(cli_call::export_rows(o, "responses", jsonl_path.string(), "jsonl", out, err) == 0);
    INFO(err.str());
    CHECK(err.str().find("4 answers (4 done, 0 failed)") != std::string::npos);
    CHECK(err.str().find("2 of 6 requests have no answer and were skipped") != std::string::npos);
    std::string text = mirac::test::read_text(jsonl_path);
    CHECK(text.find(mirac::test::kTestApiKey) == std::string::npos);
    auto rows = jsonl(text);
    REQUIRE(rows.size() == 4);
    const std::vector<std::string> ids = {"q0_plain", "q0_warm", "q1_plain", "q1_warm"};
    std::vector<std::string> keys;
    for (auto it = rows[0].begin(); it != rows[0].end(); ++it) keys.push_back(it.key());
    CHECK(keys == std::vector<std::string>{"prompt_id", "seed", "tone", "model", "model_string", "provider", "arm", "hash",
                                           "status", "text", "finish_reason", "truncated", "warnings", "returned_model",
                                           "provider_request_id", "system_fingerprint", "input_tokens", "output_tokens",
                                           "latency_s", "started_at", "ended_at", "cost_usd", "attempts", "cause",
                                           "message"});
    for (std::size_t i = 0; i < rows.size(); ++i) {
      CHECK(rows[i]["prompt_id"] == ids[i]);
      CHECK(rows[i]["model"] == "gpt");
      CHECK(rows[i]["model_string"] == "gpt-test");
      CHECK(rows[i]["arm"] == "baseline");
      CHECK(rows[i]["status"] == "done");
      CHECK(rows[i]["hash"] == hash_of(spec, ids[i]));
      CHECK(rows[i]["text"].get<std::string>().rfind("echo: ", 0) == 0);
      CHECK(rows[i]["attempts"] == 1);
      CHECK(rows[i]["cause"] == "ok");
      CHECK(!rows[i]["provider_request_id"].get<std::string>().empty());
    }
    CHECK(rows[1]["tone"] == "warm");
    CHECK(rows[2]["seed"] == "q1");

    // CSV, read back by the project's own RFC 4180 reader: the same cells.
    fs::path csv_path = scratch.dir / "answers.csv";
    REQUIRE(cli_call::export_rows(o, "responses", csv_path.string(), "csv", out, err) == 0);
    mirac::SourceManager sources;
    mirac::Diagnostics diags;
    auto table = mirac::read_table(csv_path, "answers.csv", "csv", {}, sources, diags);
    REQUIRE(table);
    CHECK(!diags.has_errors());
    CHECK(table->columns == keys);
    REQUIRE(table->rows.size() == 4);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      CHECK(table->rows[i].fields["text"] == rows[i]["text"]);
      CHECK(table->rows[i].fields["prompt_id"] == ids[i]);
      CHECK(table->rows[i].fields["truncated"] == "false");
    }
    // To standard output by default.
    std::ostringstream stdout_text;
    CHECK(cli_call::export_rows(o, "responses", "", "", stdout_text, err) == 0);
    CHECK(stdout_text.str() == text);
  }
  server.stop();
}

TEST_CASE("mirac import responses: stored as done answers that a run does not send again") {
  mirac::test::TempDir scratch("import");
  std::ofstream(scratch.dir / "exp.audit") << export_spec(3, false);
  std::string spec = (scratch.dir / "exp.audit").string(), store = (scratch.dir / "store").string();
  auto o = options(spec, store);
  const std::string tricky = "Line one, with a comma\nand \"quotes\" \xE2\x80\x94 caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87";
  fs::path file = scratch.dir / "answers.jsonl";
  {
    std::ofstream f(file, std::ios::binary);
    f << nlohmann::json{{"prompt_id", "q0_plain"}, {"model", "gpt"}, {"response", tricky}, {"input_tokens", 12}}.dump() << '\n';
    f << "\n";  // blank lines are ignored
    f << nlohmann::json{{"id", "q1_warm"}, {"model", "gpt-test"}, {"text", "Second answer."}, {"finish_reason", "length"}}.dump()
      << '\n';
  }
  std::ostringstream out, err;
  REQUIRE(cli_call::import_rows(o, "responses", file.string(), out, err) == 0);
  INFO(err.str());
  CHECK(out.str().find("2 answers stored, 0 skipped (already answered)") != std::string::npos);

  {
    std::string e;
    auto s = mirac::Store::open(store, e);
    REQUIRE(s);
    auto a = s->answer(hash_of(spec, "q0_plain"));
    REQUIRE(a);
    CHECK(a->status == "done");
    CHECK(a->text == tricky);
    CHECK(a->provider_request_id == "imported");
    CHECK(a->message.find(file.string() + " line 1") != std::string::npos);
    CHECK(a->input_tokens == 12);
    CHECK(a->model == "gpt-test");
    auto b = s->answer(hash_of(spec, "q1_warm"));
    REQUIRE(b);
    CHECK(b->truncated);
    CHECK(b->message.find(" line 3") != std::string::npos);
    CHECK(s->attempts(a->hash).empty());  // nothing was sent
  }

  SUBCASE("a run sends only what was not imported") {
    mirac::fake::FakeServer server(mirac::fake::FakeServerOptions{});
    std::string error;
    REQUIRE(server.start(error));
    CHECK(run_binary({"run", spec, "--store", store}, server.base_url()) == 0);
    CHECK(server.stats().requests == 4);
    server.stop();
    std::ostringstream exported;
    REQUIRE(cli_call::export_rows(o, "responses", "", "jsonl", exported, err) == 0);
    auto rows = jsonl(exported.str());
    REQUIRE(rows.size() == 6);
    CHECK(rows[0]["text"] == tricky);
    CHECK(rows[0]["provider_request_id"] == "imported");
    // UTF-8 as is, not \u-escaped.
    CHECK(exported.str().find("caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87") != std::string::npos);

    // The export imports back: every answer is already there.
    fs::path again = scratch.dir / "again.jsonl";
    std::ofstream(again, std::ios::binary) << exported.str();
    std::ostringstream out2;
    REQUIRE(cli_call::import_rows(o, "responses", again.string(), out2, err) == 0);
    CHECK(out2.str().find("0 answers stored, 6 skipped") != std::string::npos);
  }
  SUBCASE("CSV export quotes commas, quotes and line breaks") {
    fs::path csv_path = scratch.dir / "answers.csv";
    REQUIRE(cli_call::export_rows(o, "responses", csv_path.string(), "csv", out, err) == 0);
    CHECK(err.str().find("4 of 6 requests have no answer") != std::string::npos);
    mirac::SourceManager sources;
    mirac::Diagnostics diags;
    auto table = mirac::read_table(csv_path, "answers.csv", "csv", {}, sources, diags);
    REQUIRE(table);
    REQUIRE(table->rows.size() == 2);
    CHECK(table->rows[0].fields["text"] == tricky);
    CHECK(table->rows[1].fields["truncated"] == "true");
  }
  SUBCASE("importing over a done answer skips it and keeps the stored text") {
    fs::path other = scratch.dir / "other.jsonl";
    std::ofstream(other) << R"({"prompt_id":"q0_plain","model":"gpt","response":"A different answer."})" << '\n'
                         << R"({"prompt_id":"q2_plain","model":"gpt","response":"New."})" << '\n';
    std::ostringstream out2;
    REQUIRE(cli_call::import_rows(o, "responses", other.string(), out2, err) == 0);
    CHECK(out2.str().find("1 answers stored, 1 skipped (already answered)") != std::string::npos);
    std::string e;
    auto s = mirac::Store::open(store, e);
    REQUIRE(s);
    CHECK(s->answer(hash_of(spec, "q0_plain"))->text == tricky);
    CHECK(s->answer(hash_of(spec, "q2_plain"))->text == "New.");
  }
}

TEST_CASE("mirac import responses: every invalid row is reported as file:line:col and nothing is stored") {
  mirac::test::TempDir scratch("import_errors");
  std::ofstream(scratch.dir / "exp.audit") << export_spec(2, true);
  std::string spec = (scratch.dir / "exp.audit").string(), store = (scratch.dir / "store").string();
  auto o = options(spec, store);
  fs::path file = scratch.dir / "answers.jsonl";
  std::ofstream(file) << R"({"prompt_id":"q0_plain","model":"gpt","arm":"baseline","response":"ok"})" << '\n'
                      << R"({"prompt_id":"q9_plain","model":"gpt","arm":"baseline","response":"x"})" << '\n'
                      << R"({"prompt_id":"q0_warm","model":"claude","arm":"baseline","response":"x"})" << '\n'
                      << R"({"prompt_id":"q0_warm","model":"gpt","arm":"baseline"})" << '\n'
                      << R"({"prompt_id":"q0_plain","model":"gpt","arm":"baseline","response":"again"})" << '\n'
                      << R"({"prompt_id":"q1_plain","model":"gpt","response":"x"})" << '\n'
                      << R"({"prompt_id":"q1_plain","model":"gpt","arm":"kidn","response":"x"})" << '\n'
                      << R"({"prompt_id":"q1_warm","model":"gpt","arm":"kind","response":""})" << '\n'
                      << R"({"prompt_id":"q1_warm","model":"gpt","arm":"kind","response":"fine"})" << '\n';
  std::ostringstream out, err;
  CHECK(cli_call::import_rows(o, "responses", file.string(), out, err) == 1);
  const std::string e = err.str();
  INFO(e);
  const std::string f = file.string();
  CHECK(e.find(f + ":2:14: error: unknown prompt id 'q9_plain'") != std::string::npos);
  CHECK(e.find(f + ":3:32: error: unknown model 'claude'; the spec's models are gpt (or their model strings)") != std::string::npos);
  CHECK(e.find(f + ":4:1: error: row has no text ('response' or 'text')") != std::string::npos);
  CHECK(e.find(f + ":5:1: error: duplicate answer for prompt 'q0_plain', model 'gpt', arm 'baseline'") != std::string::npos);
  CHECK(e.find("note: first given on line 1") != std::string::npos);
  CHECK(e.find(f + ":6:1: error: row has no 'arm'; the spec has several (baseline, kind)") != std::string::npos);
  CHECK(e.find("unknown arm 'kidn'; did you mean 'kind'?") != std::string::npos);
  CHECK(e.find(f + ":8:") != std::string::npos);
  CHECK(e.find(f + ":9:") == std::string::npos);
  CHECK(e.find("7 errors generated.") != std::string::npos);
  CHECK(e.find("nothing imported") != std::string::npos);
  CHECK(!fs::exists(fs::path(store) / "store.sqlite"));

  SUBCASE("invalid JSON and an unreadable file") {
    std::ofstream(file) << R"({"prompt_id":"q0_plain",)" << '\n';
    std::ostringstream err2;
    CHECK(cli_call::import_rows(o, "responses", file.string(), out, err2) == 1);
    CHECK(err2.str().find(f + ":1:") != std::string::npos);
    CHECK(err2.str().find("invalid JSON") != std::string::npos);
    std::ostringstream err3;
    CHECK(cli_call::import_rows(o, "responses", (scratch.dir / "missing.jsonl").string(), out, err3) == 1);
    CHECK(err3.str().find("missing.jsonl: error: cannot read import file") != std::string::npos);
    CHECK(cli_call::import_rows(o, "scores", file.string(), out, err3) == 2);
  }
}
