// rewrite_test.cpp: `mirac rewrite` end to end: the real binary asks the loopback fake
// provider for a variant's missing texts, writes the lock, a spec reading that lock
// compiles its prompts from it, and a rerun sends nothing.
#include <doctest/doctest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "fake_server.hpp"
#include "mirac_binary.hpp"

using mirac::test::invoke;
using Json = nlohmann::json;

namespace {

// Two seeds x language x hls; the rewrites come from an OpenAI-protocol rewriter. `extra`
// goes inside the variant block (a lock, say).
std::string rewrite_spec(const std::string& s2_en, const std::string& extra) {
  return "audit rw { title \"rewrite\" }\nuse stdlib.providers\nfactor language { zh en }\nfactor hls { high low }\n"
         "seeds {\n  seed s1 { question.zh = \"问题一\" question.en = \"Question one\" }\n"
         "  seed s2 { question.zh = \"问题二\" question.en = \"" + s2_en + "\" }\n}\n"
         "variant question by language * hls {\n"
         "  instructions {\n    high { zh \"正式改写。\" en \"Rewrite formally.\" }\n    low \"Rewrite simply.\"\n  }\n"
         "  rewriter openai(\"gpt-rw\") { temperature 0 }\n" + extra + "}\n"
         "prompt { id \"{seed.id}_{language}_{hls}\" text seed.question }\nmodel gpt = openai(\"gpt-test\")\n";
}

std::vector<Json> read_jsonl(const std::string& path) {
  std::vector<Json> rows;
  std::istringstream in(mirac::test::read_text(path));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) rows.push_back(Json::parse(line));
  return rows;
}

}  // namespace

TEST_CASE("mirac rewrite: the missing texts into a lock that the spec then compiles from; a rerun sends nothing") {
  mirac::test::TempDir tmp("rewrite");
  std::string spec = tmp.write("rw.audit", rewrite_spec("Question two", "")), store = tmp.path("store");
  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE(server.start(error));

  // Without a lock the spec does not compile: every text is missing.
  CHECK(invoke({"check", spec}).code == 1);

  auto first = invoke({"rewrite", spec, "--store", store}, server.base_url());
  INFO(first.out << first.err);
  REQUIRE(first.code == 0);
  CHECK(server.stats().requests == 8);
  const std::string lock = store + "/question.lock.jsonl";
  CHECK(first.out.find("wrote 8 rewrites of 'question' to " + lock) != std::string::npos);
  auto records = read_jsonl(lock);
  REQUIRE(records.size() == 8);
  CHECK(records[0]["seed"] == "s1");
  CHECK(records[0]["language"] == "zh");
  CHECK(records[0]["hls"] == "high");
  CHECK(records[0]["text"] == "echo: 问题一");  // the fake provider echoes the user message
  CHECK(records[0]["model"] == "gpt-rw");
  CHECK(records[0]["hash"].get<std::string>().size() == 64);
  // What was sent: the cell's instruction as the system message, the seed's text as the user's.
  bool seen = false;
  for (const auto& body : server.bodies()) {
    Json b = Json::parse(body);
    if (b["messages"][1]["content"] != "Question two" || b["messages"][0]["content"] != "Rewrite simply.") continue;
    seen = true;
    CHECK(b["model"] == "gpt-rw");
    CHECK(b["messages"][0]["role"] == "system");
  }
  CHECK(seen);

  // A rerun finds every answer in the store: nothing is sent, the same lock is written.
  const std::string before = mirac::test::read_text(lock);
  auto rerun = invoke({"rewrite", spec, "--store", store}, server.base_url());
  CHECK(rerun.code == 0);
  CHECK(server.stats().requests == 8);
  CHECK(mirac::test::read_text(lock) == before);

  // After review the spec reads the lock (relative to the data root: the spec's directory).
  std::string locked = tmp.write("locked.audit", rewrite_spec("Question two", "  lock jsonl(\"store/question.lock.jsonl\")\n"));
  auto prompts = invoke({"prompts", locked});
  INFO(prompts.err);
  REQUIRE(prompts.code == 0);
  auto rows = read_jsonl(tmp.write("prompts.jsonl", prompts.out));
  REQUIRE(rows.size() == 8);
  CHECK(rows[7]["id"] == "s2_en_low");
  CHECK(rows[7]["text"] == "echo: Question two");
  auto nothing = invoke({"rewrite", locked, "--store", store}, server.base_url());
  CHECK(nothing.code == 0);
  CHECK(nothing.out.find("nothing to rewrite") != std::string::npos);
  CHECK(server.stats().requests == 8);
  server.stop();
}

TEST_CASE("mirac rewrite: --only, --limit, -o, and failures retried by the next run into the same lock") {
  mirac::test::TempDir tmp("rewrite_fail");
  // s2's English text fails once (a 400 is not retried within a run), then succeeds.
  std::string spec = tmp.write("rw.audit", rewrite_spec("Question two [[fake fail=400 times=1]]", ""));
  std::string store = tmp.path("store"), lock = tmp.path("locks/q.jsonl");
  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE(server.start(error));

  auto pilot = invoke({"rewrite", spec, "--store", store, "-o", lock, "--only", "language=zh", "--limit", "3"},
                     server.base_url());
  INFO(pilot.out << pilot.err);
  CHECK(pilot.code == 0);
  CHECK(server.stats().requests == 3);
  CHECK(read_jsonl(lock).size() == 3);
  for (const auto& r : read_jsonl(lock)) CHECK(r["language"] == "zh");

  // The English cells, kept apart from the pilot's records. The two English cells of s2 share
  // the user text the fake fails once: one of them fails.
  auto english = invoke({"rewrite", spec, "--store", store, "-o", lock, "--only", "language=en"}, server.base_url());
  INFO(english.out << english.err);
  CHECK(english.code == 4);
  CHECK(english.out.find("kept its 3 earlier records") != std::string::npos);
  CHECK(english.out.find("1 rewrites of 'question' failed or were not sent") != std::string::npos);
  CHECK(english.out.find("seed 's2' cell en.") != std::string::npos);
  CHECK(read_jsonl(lock).size() == 6);
  CHECK(server.stats().requests == 7);

  // Everything: the failed rewrite and the one the pilot's limit left out are sent.
  auto retry = invoke({"rewrite", spec, "--store", store, "-o", lock}, server.base_url());
  INFO(retry.out << retry.err);
  CHECK(retry.code == 0);
  CHECK(server.stats().requests == 9);
  auto records = read_jsonl(lock);
  CHECK(records.size() == 8);
  std::set<std::string> cells;
  for (const auto& r : records) cells.insert(r["seed"].get<std::string>() + r["language"].get<std::string>() + r["hls"].get<std::string>());
  CHECK(cells.size() == 8);

  // Filters name what varies the rewrites.
  CHECK(invoke({"rewrite", spec, "--store", store, "--only", "language=fr"}).code == 2);
  auto seeds_only = invoke({"rewrite", spec, "--store", store, "-o", lock, "--only", "seed=s9"}, server.base_url());
  CHECK(seeds_only.code == 0);
  CHECK(seeds_only.out.find("nothing to rewrite") != std::string::npos);
  server.stop();
}

TEST_CASE("mirac rewrite: rewrites are priced from the rewriter's provider table, like answers") {
  mirac::test::TempDir tmp("rewrite_price");
  // 1 USD per million tokens both ways: a run of 8 short rewrites costs a little, not nothing.
  std::string spec = tmp.write("rw.audit", rewrite_spec("Question two", "") +
                                               "prices openai { \"gpt-rw\" { input 1 output 1 } }\n");
  mirac::fake::FakeServer server;
  std::string error;
  REQUIRE(server.start(error));
  auto run = invoke({"rewrite", spec, "--store", tmp.path("store")}, server.base_url());
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("spend this run: $0.0000\n") == std::string::npos);
  CHECK(run.out.find("spend this run: $0.0") != std::string::npos);
}

TEST_CASE("mirac rewrite on the offline provider gives back each text in the variant's own language") {
  mirac::test::TempDir tmp("rewrite_offline");
  const std::string spec = tmp.write(
      "es.audit",
      "audit es { title \"offline rewrite\" }\nuse stdlib.providers\nfactor language { es en }\nfactor hls { high low }\n"
      "seeds {\n  seed s1 { question.es = \"¿Cuál es la dosis máxima?\" question.en = \"What is the highest dose?\" }\n}\n"
      "variant question by language * hls {\n"
      "  instructions {\n    high { es \"Reescribe formalmente.\" en \"Rewrite formally.\" }\n    low \"Rewrite simply.\"\n  }\n"
      "  rewriter offline(\"sim-rewriter\")\n}\n"
      "prompt { id \"{seed.id}_{language}_{hls}\" text seed.question }\nmodel gpt = offline(\"sim-gpt\")\n");
  const std::string store = tmp.path("store");
  auto rewrite = invoke({"rewrite", spec, "--store", store});
  INFO(rewrite.out << rewrite.err);
  REQUIRE(rewrite.code == 0);
  const auto records = read_jsonl(store + "/question.lock.jsonl");
  REQUIRE(records.size() == 4);
  for (const auto& r : records) {
    CAPTURE(r.dump());
    // No model rewrites offline: the lock holds the seed's text in the level's language,
    // never the offline provider's English answer.
    CHECK(r["text"] == (r["language"] == "es" ? "¿Cuál es la dosis máxima?" : "What is the highest dose?"));
    CHECK(r["model"] == "sim-rewriter");
  }
}
