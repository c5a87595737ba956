// store_test.cpp: the SQLite store: content addressing, failures replaced by later
// successes, status queries, and surviving a writer that never closed its connection.
#include <doctest/doctest.h>

#include <sqlite3.h>

#include <fstream>

#include "helpers.hpp"
#include "runtime/store/store.hpp"

using namespace mirac;

namespace {

AnswerRecord done_answer(const std::string& hash, double cost = 0.5) {
  AnswerRecord a;
  a.hash = hash;
  a.status = "done";
  a.provider = "openai";
  a.model = "gpt-4.1-mini";
  a.request_body = R"({"model":"gpt-4.1-mini"})";
  a.response_body = R"({"choices":[]})";
  a.http_status = 200;
  a.text = "answer " + hash;
  a.finish_reason = "stop";
  a.returned_model = "gpt-4.1-mini-2025";
  a.provider_request_id = "req_" + hash;
  a.system_fingerprint = "fp";
  a.input_tokens = 10;
  a.output_tokens = 5;
  a.cost_usd = cost;
  a.cause = "ok";
  a.attempts = 1;
  return a;
}

AttemptRecord attempt(const std::string& hash, const std::string& outcome, const std::string& cause) {
  AttemptRecord a;
  a.hash = hash;
  a.attempt = 1;
  a.outcome = outcome;
  a.cause = cause;
  return a;
}

}  // namespace

TEST_CASE("store: answers round-trip, done hashes, status by cause") {
  test::TempDir dir;
  std::string error;
  auto store = Store::open(dir.path / "run", error);
  REQUIRE_MESSAGE(store, error);
  CHECK(store->path() == dir.path / "run" / "store.sqlite");
  REQUIRE(store->record_answer(done_answer("a"), attempt("a", "ok", "ok")));
  AnswerRecord failed = done_answer("b", 0);
  failed.status = "failed";
  failed.cause = "rate_limited";
  REQUIRE(store->record_answer(failed, attempt("b", "retry", "rate_limited")));
  auto got = store->answer("a");
  REQUIRE(got);
  CHECK(got->text == "answer a");
  CHECK(got->provider_request_id == "req_a");
  CHECK(got->input_tokens == 10);
  CHECK(store->done_hashes() == std::unordered_set<std::string>{"a"});
  auto st = store->status({"a", "b", "c", "c"});
  CHECK(st.done == 1);
  CHECK(st.pending == 1);
  CHECK(st.failed.at("rate_limited") == 1);
  CHECK(st.failed_total() == 1);
  CHECK(store->total_spend() == doctest::Approx(0.5));
}

TEST_CASE("store: a later success replaces a failure; a done answer is never overwritten") {
  test::TempDir dir;
  std::string error;
  auto store = Store::open(dir.path, error);
  REQUIRE(store);
  AnswerRecord failed = done_answer("h", 0);
  failed.status = "failed";
  failed.cause = "timeout";
  REQUIRE(store->record_answer(failed, attempt("h", "retry", "timeout")));
  REQUIRE(store->record_answer(done_answer("h"), attempt("h", "ok", "ok")));
  CHECK(store->answer("h")->status == "done");
  CHECK(store->answer("h")->attempts == 2);  // attempts accumulate across runs
  AnswerRecord other = done_answer("h");
  other.text = "different";
  REQUIRE(store->record_answer(other, attempt("h", "ok", "ok")));
  CHECK(store->answer("h")->text == "answer h");
  CHECK(store->attempts("h").size() == 3);  // every attempt is kept
}

TEST_CASE("store: preloaded briefs answer as lookups do, until a write") {
  test::TempDir dir;
  std::string error;
  auto store = Store::open(dir.path, error);
  REQUIRE(store);
  AnswerRecord cut = done_answer("a");
  cut.truncated = true;
  cut.warnings = "limit_ignored";
  REQUIRE(store->record_answer(cut, attempt("a", "ok", "ok")));
  AnswerRecord failed = done_answer("b", 0);
  failed.status = "failed";
  failed.cause = "timeout";
  REQUIRE(store->record_answer(failed, attempt("b", "retry", "timeout")));
  auto looked_up = [&](const std::string& h) { return store->brief(h); };
  const auto a = looked_up("a"), b = looked_up("b");
  REQUIRE(a);
  REQUIRE(b);
  CHECK_FALSE(looked_up("c"));
  store->preload_briefs();
  for (const auto& [hash, want] : {std::pair{"a", a}, std::pair{"b", b}}) {
    CAPTURE(hash);
    const auto got = store->brief(hash);
    REQUIRE(got);
    CHECK(got->status == want->status);
    CHECK(got->text == want->text);
    CHECK(got->cause == want->cause);
    CHECK(got->truncated == want->truncated);
    CHECK(got->warnings == want->warnings);
  }
  CHECK(store->brief("a")->truncated);
  CHECK(store->brief("b")->status == "failed");
  CHECK_FALSE(store->brief("c"));
  // A write after the preload is seen: the briefs in memory are dropped.
  REQUIRE(store->record_answer(done_answer("c"), attempt("c", "ok", "ok")));
  REQUIRE(store->record_answer(done_answer("b"), attempt("b", "ok", "ok")));
  REQUIRE(store->brief("c"));
  CHECK(store->brief("c")->text == "answer c");
  CHECK(store->brief("b")->status == "done");
}

TEST_CASE("store: an unclosed writer loses nothing committed (crash simulation)") {
  test::TempDir dir;
  std::string error;
  // "Crash": the first connection is never closed or checkpointed (its memory is leaked,
  // as if the process died), while a second process-like connection reopens the file.
  Store* crashed = Store::open(dir.path, error).release();
  REQUIRE(crashed);
  for (int i = 0; i < 20; ++i) REQUIRE(crashed->record_answer(done_answer(std::to_string(i)), attempt(std::to_string(i), "ok", "ok")));
  auto reopened = Store::open(dir.path, error);
  REQUIRE(reopened);
  CHECK(reopened->done_hashes().size() == 20);
  CHECK(reopened->status({"0", "19", "20"}).pending == 1);
  (void)crashed;  // deliberately leaked
}

TEST_CASE("store: a clear message when the directory cannot be created") {
  test::TempDir dir;
  std::ofstream(dir.path / "file") << "x";
  std::string error;
  CHECK_FALSE(Store::open(dir.path / "file" / "run", error));
  CHECK(error.find("cannot create run directory") != std::string::npos);
}

TEST_CASE("store: one run at a time per store") {
  test::TempDir dir;
  std::string error;
  auto first = Store::open(dir.path, error);
  auto second = Store::open(dir.path, error);
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->lock_for_run(error));
  CHECK(first->lock_for_run(error));  // idempotent
  CHECK_FALSE(second->lock_for_run(error));
  CHECK(error.find("another mirac run (pid " + std::to_string(::getpid()) + ")") != std::string::npos);
  first.reset();  // closing releases the lock
  CHECK(second->lock_for_run(error));
}

TEST_CASE("store: the server's warnings round-trip, and marked_answers lists the cut and warned done answers") {
  test::TempDir dir;
  std::string error;
  auto store = Store::open(dir.path / "run", error);
  REQUIRE_MESSAGE(store, error);
  AnswerRecord cut = done_answer("cut");
  cut.truncated = true;
  AnswerRecord warned = done_answer("warned");
  warned.warnings = "limit_ignored prompt_shortened";
  for (const auto* a : {&cut, &warned}) REQUIRE(store->record_answer(*a, attempt(a->hash, "ok", "ok")));
  REQUIRE(store->record_answer(done_answer("plain"), attempt("plain", "ok", "ok")));
  CHECK(store->answer("warned")->warnings == "limit_ignored prompt_shortened");
  CHECK(store->brief("warned")->warnings == "limit_ignored prompt_shortened");
  auto marked = store->marked_answers();
  CHECK(marked.size() == 2);
  CHECK(marked.at("cut").truncated);
  CHECK(marked.at("cut").warnings.empty());
  CHECK(marked.at("warned").warnings == "limit_ignored prompt_shortened");
}

TEST_CASE("store: a store of schema 1 (answers without warnings) opens, keeps its answers and takes new ones") {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path / "old");
  {
    // The answers table as mirac wrote it before answers carried the server's warnings.
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open((dir.path / "old" / "store.sqlite").c_str(), &db) == SQLITE_OK);
    const char* schema1 =
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('schema_version', '1');"
        "CREATE TABLE answers (hash TEXT PRIMARY KEY, status TEXT NOT NULL CHECK (status IN ('done', 'failed')),"
        " provider TEXT NOT NULL, model TEXT NOT NULL, request_body TEXT NOT NULL, response_body TEXT NOT NULL,"
        " http_status INTEGER NOT NULL, text TEXT NOT NULL, finish_reason TEXT NOT NULL, truncated INTEGER NOT NULL,"
        " returned_model TEXT NOT NULL, provider_request_id TEXT NOT NULL, system_fingerprint TEXT NOT NULL,"
        " input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, latency_s REAL NOT NULL,"
        " started_at REAL NOT NULL, ended_at REAL NOT NULL, cost_usd REAL NOT NULL, cause TEXT NOT NULL,"
        " message TEXT NOT NULL, attempts INTEGER NOT NULL);"
        "INSERT INTO answers VALUES ('old','done','openai','m','{}','{}',200,'kept','stop',1,'m','r','f',1,2,0.1,0,0,0,"
        "'ok','',1);";
    REQUIRE(sqlite3_exec(db, schema1, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  std::string error;
  auto store = Store::open(dir.path / "old", error);
  REQUIRE_MESSAGE(store, error);
  CHECK(store->answer("old")->text == "kept");
  CHECK(store->answer("old")->warnings.empty());
  CHECK(store->marked_answers().at("old").truncated);
  AnswerRecord fresh = done_answer("new");
  fresh.warnings = "limit_ignored";
  REQUIRE(store->record_answer(fresh, attempt("new", "ok", "ok")));
  CHECK(store->answer("new")->warnings == "limit_ignored");
}
