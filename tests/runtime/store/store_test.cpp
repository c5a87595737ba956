// store_test.cpp: the SQLite store: content addressing, failures replaced by later
// successes, status queries, and surviving a writer that never closed its connection.
#include <doctest/doctest.h>

#include <sqlite3.h>

#include <fstream>

#include "helpers.hpp"
#include "runtime/store/store.hpp"

using namespace mirac;

namespace {

// The meta and answers tables as mirac wrote them in store schema 1 (answers without
// warnings) and 2 (bodies in the answers rows).
std::string old_schema(int version) {
  return std::string("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);") +
         "INSERT INTO meta VALUES ('schema_version', '" + std::to_string(version) + "');"
         "CREATE TABLE answers (hash TEXT PRIMARY KEY, status TEXT NOT NULL CHECK (status IN ('done', 'failed')),"
         " provider TEXT NOT NULL, model TEXT NOT NULL, request_body TEXT NOT NULL, response_body TEXT NOT NULL,"
         " http_status INTEGER NOT NULL, text TEXT NOT NULL, finish_reason TEXT NOT NULL, truncated INTEGER NOT NULL,"
         " returned_model TEXT NOT NULL, provider_request_id TEXT NOT NULL, system_fingerprint TEXT NOT NULL,"
         " input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, latency_s REAL NOT NULL,"
         " started_at REAL NOT NULL, ended_at REAL NOT NULL, cost_usd REAL NOT NULL, cause TEXT NOT NULL,"
         " message TEXT NOT NULL, attempts INTEGER NOT NULL" +
         std::string(version >= 2 ? ", warnings TEXT NOT NULL DEFAULT ''" : "") + ");";
}

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
  CHECK(store->done_hashes().size() == 1);
  CHECK(store->done_hashes().count("a"));
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

TEST_CASE("store: briefs carry the answer's status, text and marks, and follow writes") {
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
  const auto a = store->brief("a"), b = store->brief("b");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->text == "answer a");
  CHECK(a->warnings == "limit_ignored");
  CHECK(b->cause == "timeout");
  CHECK(store->brief("a")->truncated);
  CHECK(store->brief("b")->status == "failed");
  CHECK_FALSE(store->brief("c"));
  // A later write is seen.
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
    const std::string schema1 = old_schema(1) +
        "INSERT INTO answers VALUES ('old','done','openai','m','{}','{}',200,'kept','stop',1,'m','r','f',1,2,0.1,0,0,0,"
        "'ok','',1);";
    REQUIRE(sqlite3_exec(db, schema1.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  std::string error;
  auto store = Store::open(dir.path / "old", error);
  REQUIRE_MESSAGE(store, error);
  CHECK(store->answer("old")->text == "kept");
  CHECK(store->answer("old")->request_body == "{}");
  CHECK(store->answer("old")->warnings.empty());
  CHECK(store->marked_answers().at("old").truncated);
  AnswerRecord fresh = done_answer("new");
  fresh.warnings = "limit_ignored";
  REQUIRE(store->record_answer(fresh, attempt("new", "ok", "ok")));
  CHECK(store->answer("new")->warnings == "limit_ignored");
}

namespace {

// A request as a provider gets it: a long system prompt shared by an arm's requests.
std::string request_with(const std::string& system, const std::string& user) {
  return R"({"messages":[{"content":")" + system + R"(","role":"system"},{"content":")" + user +
         R"(","role":"user"}],"model":"m"})";
}

std::string count_of(const std::filesystem::path& file, const char* sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql, -1, &q, nullptr) == SQLITE_OK);
  std::string out;
  if (sqlite3_step(q) == SQLITE_ROW) out = reinterpret_cast<const char*>(sqlite3_column_text(q, 0));
  sqlite3_finalize(q);
  sqlite3_close(db);
  return out;
}

}  // namespace

TEST_CASE("store: bodies are kept once per shared part and given back byte for byte") {
  test::TempDir dir;
  std::string error;
  auto store = Store::open(dir.path, error);
  REQUIRE_MESSAGE(store, error);
  const std::string system(3000, 'S');
  std::vector<std::string> hashes = {"a", "b", "c"};
  for (const auto& h : hashes) {
    AnswerRecord a = done_answer(h);
    a.request_body = request_with(system + "\\n\\\"quoted\\\"", "question " + h);
    a.text = "Take \"two\" tablets.\n每天两次 " + h;
    a.response_body = R"({"choices":[{"message":{"content":"Take \"two\" tablets.\n每天两次 )" + h +
                      R"("}}],"id":"x"})";
    REQUIRE(store->record_answer(a, attempt(h, "ok", "ok")));
  }
  // Not JSON, and holding the marker byte: kept verbatim.
  AnswerRecord odd = done_answer("odd");
  odd.request_body = std::string("raw \x01 bytes ") + system;
  odd.response_body = "<html>502</html>";
  REQUIRE(store->record_answer(odd, attempt("odd", "ok", "ok")));
  for (const auto& h : hashes) {
    CAPTURE(h);
    const auto got = store->answer(h);
    REQUIRE(got);
    CHECK(got->request_body == request_with(system + "\\n\\\"quoted\\\"", "question " + h));
    CHECK(got->response_body ==
          R"({"choices":[{"message":{"content":"Take \"two\" tablets.\n每天两次 )" + h + R"("}}],"id":"x"})");
  }
  CHECK(store->answer("odd")->request_body == odd.request_body);
  CHECK(store->answer("odd")->response_body == "<html>502</html>");
  const auto file = dir.path / "store.sqlite";
  // The system prompt once; the answers' texts not again in their responses.
  CHECK(count_of(file, "SELECT count(*) FROM parts") == "1");
  CHECK(std::stoi(count_of(file, "SELECT sum(length(b.request_body)) FROM bodies b JOIN answers a ON a.id = b.answer "
                                 "WHERE a.hash IN ('a','b','c')")) < 600);
  CHECK(count_of(file, "SELECT count(*) FROM bodies WHERE response_body LIKE '%tablets%'") == "0");
  CHECK(count_of(file, "SELECT value FROM meta WHERE key = 'schema_version'") == "5");
}

TEST_CASE("store: a done answer keeps its bodies; a failed one's are replaced with it") {
  test::TempDir dir;
  std::string error;
  auto store = Store::open(dir.path, error);
  REQUIRE_MESSAGE(store, error);
  AnswerRecord failed = done_answer("h");
  failed.status = "failed";
  failed.response_body = R"({"error":"overloaded"})";
  REQUIRE(store->record_answer(failed, attempt("h", "retry", "timeout")));
  CHECK(store->answer("h")->response_body == R"({"error":"overloaded"})");
  AnswerRecord done = done_answer("h");
  done.response_body = R"({"choices":["first"]})";
  REQUIRE(store->record_answer(done, attempt("h", "ok", "ok")));
  CHECK(store->answer("h")->response_body == R"({"choices":["first"]})");
  AnswerRecord later = done_answer("h");
  later.response_body = R"({"choices":["second"]})";
  std::size_t stored = 0, skipped = 0;
  REQUIRE(store->import_answers({later}, stored, skipped));
  CHECK(skipped == 1);
  CHECK(store->answer("h")->response_body == R"({"choices":["first"]})");
}

TEST_CASE("store: a store of schema 2 (bodies in the answers) moves them out, byte for byte (schema 4)") {
  test::TempDir dir;
  const std::string system(5000, 'J');
  const std::string request = request_with(system, "judge this"), response = R"({"content":"the reply"})";
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open((dir.path / "store.sqlite").c_str(), &db) == SQLITE_OK);
    const std::string schema2 = old_schema(2) +
        "INSERT INTO answers VALUES ('one','done','openai','m','" + request + "','" + response +
        "',200,'the reply','stop',0,'m','r','f',1,2,0.1,0,0,0.25,'ok','',1,'');"
        "INSERT INTO answers VALUES ('two','done','openai','m','" + request_with(system, "and this") + "','{}'"
        ",200,'x','stop',0,'m','r','f',1,2,0.1,0,0,0.25,'ok','',1,'limit_ignored');";
    REQUIRE(sqlite3_exec(db, schema2.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  {
    std::string error;
    auto store = Store::open(dir.path, error);
    REQUIRE_MESSAGE(store, error);
    const auto one = store->answer("one");
    REQUIRE(one);
    CHECK(one->request_body == request);
    CHECK(one->response_body == response);
    CHECK(one->text == "the reply");
    CHECK(store->answer("two")->request_body == request_with(system, "and this"));
    CHECK(store->answer("two")->warnings == "limit_ignored");
    CHECK(store->total_spend() == doctest::Approx(0.5));
    CHECK(store->is_done("two"));
  }
  const auto file = dir.path / "store.sqlite";
  CHECK(count_of(file, "SELECT value FROM meta WHERE key = 'schema_version'") == "5");
  CHECK(count_of(file, "SELECT count(*) FROM parts") == "1");
  CHECK(count_of(file, "SELECT count(*) FROM pragma_table_info('answers') WHERE name LIKE '%body'") == "0");
  // Opened again: nothing left to move.
  std::string error;
  CHECK(Store::open(dir.path, error));
  CHECK(count_of(file, "SELECT count(*) FROM bodies") == "2");
}

namespace {

// A judge's request as the judge phase sends it: its instructions, then a message that
// holds the answer between what comes before it (the prompt and its context) and after
// it (the checklist).
std::string judge_request(const std::string& before, const std::string& answer_escaped, const std::string& after) {
  return request_with(std::string(2000, 'I'), before + answer_escaped + after);
}

}  // namespace

TEST_CASE("store: a judge's request refers to the answer it quotes and shares what surrounds it, byte for byte") {
  test::TempDir dir;
  std::string error;
  auto store = Store::open(dir.path, error);
  REQUIRE_MESSAGE(store, error);
  const std::string before = "CONTEXT\\nprompt: " + std::string(400, 'p') + "\\nANSWER\\n";
  const std::string after = "\\nCHECKLIST\\n" + std::string(600, 'c');
  // Two answers to one prompt, with text JSON must escape.
  for (const std::string h : {"ans1", "ans2"}) {
    AnswerRecord a = done_answer(h);
    a.text = "Take \"two\" tablets\nevery day, " + h + " 每天两次";
    REQUIRE(store->record_answer(a, attempt(h, "ok", "ok")));
  }
  const std::string escaped1 = R"(Take \"two\" tablets\nevery day, ans1 每天两次)";
  const std::string escaped2 = R"(Take \"two\" tablets\nevery day, ans2 每天两次)";
  AnswerRecord judge1 = done_answer("judge1"), judge2 = done_answer("judge2"), judge3 = done_answer("judge3");
  judge1.request_body = judge_request(before, escaped1, after);
  judge1.quotes = "ans1";
  judge2.request_body = judge_request(before, escaped2, after);
  judge2.quotes = "ans2";
  // Quoting an answer the store does not have: kept without the reference.
  judge3.request_body = judge_request(before, "an answer from elsewhere", after);
  judge3.quotes = "missing";
  for (const auto* j : {&judge1, &judge2, &judge3}) REQUIRE(store->record_answer(*j, attempt(j->hash, "ok", "ok")));
  CHECK(store->answer("judge1")->request_body == judge1.request_body);
  CHECK(store->answer("judge2")->request_body == judge2.request_body);
  CHECK(store->answer("judge3")->request_body == judge3.request_body);
  const auto file = dir.path / "store.sqlite";
  // The instructions, the part before the answer and the part after: three parts for the
  // first two requests (the third's whole message is a fourth), and a judge's own body
  // holds only references and the JSON around them.
  CHECK(count_of(file, "SELECT count(*) FROM parts") == "4");
  CHECK(std::stoi(count_of(file, "SELECT max(length(b.request_body)) FROM bodies b JOIN answers a ON a.id = b.answer "
                                 "WHERE a.hash IN ('judge1','judge2')")) < 300);
  CHECK(count_of(file, "SELECT q.hash FROM bodies b JOIN answers a ON a.id = b.answer JOIN answers q ON q.id = b.quoted "
                       "WHERE a.hash = 'judge2'") == "ans2");
  CHECK(count_of(file, "SELECT count(*) FROM bodies b JOIN answers a ON a.id = b.answer "
                       "WHERE a.hash = 'judge3' AND b.quoted IS NULL") == "1");
  // Opened again, from the file alone.
  store.reset();
  auto again = Store::open(dir.path, error);
  REQUIRE_MESSAGE(again, error);
  CHECK(again->answer("judge1")->request_body == judge1.request_body);
}

TEST_CASE("store: a store of schema 3 (bodies keyed by hash) comes to schema 4 with every byte and attempt") {
  test::TempDir dir;
  {
    // The tables and rows as mirac wrote them in schema 3: bodies apart, encoded (a shared
    // part, the answer's own text by reference), keyed by hash; attempts indexed by hash.
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open((dir.path / "store.sqlite").c_str(), &db) == SQLITE_OK);
    const std::string schema3 = old_schema(2) +
        "ALTER TABLE answers DROP COLUMN request_body; ALTER TABLE answers DROP COLUMN response_body;"
        "UPDATE meta SET value = '3';"
        "CREATE TABLE bodies (hash TEXT PRIMARY KEY, request_encoded INTEGER NOT NULL, request_body TEXT NOT NULL,"
        " response_encoded INTEGER NOT NULL, response_body TEXT NOT NULL);"
        "CREATE TABLE parts (id TEXT PRIMARY KEY, literal TEXT NOT NULL);"
        "CREATE TABLE attempts (id INTEGER PRIMARY KEY AUTOINCREMENT, hash TEXT NOT NULL, attempt INTEGER NOT NULL,"
        " started_at REAL NOT NULL, ended_at REAL NOT NULL, http_status INTEGER NOT NULL, outcome TEXT NOT NULL,"
        " cause TEXT NOT NULL, message TEXT NOT NULL, provider_request_id TEXT NOT NULL, retry_delay_s REAL NOT NULL,"
        " response_body TEXT NOT NULL);"
        "CREATE INDEX attempts_by_hash ON attempts (hash);"
        "INSERT INTO answers VALUES ('one','done','openai','m',200,'the reply','stop',0,'m','r','f',1,2,0.1,0,0,0.25,"
        "'ok','',1,'');"
        "INSERT INTO answers VALUES ('two','failed','openai','m',500,'','',0,'','','',0,0,0.1,0,0,0,'server_error',"
        "'boom',3,'');"
        "INSERT INTO parts VALUES ('p1', '\"the long instructions\"');"
        "INSERT INTO bodies VALUES ('one', 1, '{\"system\":' || char(1) || 'p1' || char(1) || ',\"user\":\"q\"}',"
        " 1, '{\"content\":' || char(1) || 'T' || char(1) || '}');"
        "INSERT INTO bodies VALUES ('two', 0, '{\"user\":\"q2\"}', 0, '<html>500</html>');"
        "INSERT INTO attempts VALUES (NULL,'two',1,0,1,500,'retry','server_error','boom','',2,'');"
        "INSERT INTO attempts VALUES (NULL,'one',1,0,1,200,'ok','ok','','r',0,'');";
    REQUIRE(sqlite3_exec(db, schema3.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  {
    std::string error;
    auto store = Store::open(dir.path, error);
    REQUIRE_MESSAGE(store, error);
    const auto one = store->answer("one");
    REQUIRE(one);
    CHECK(one->request_body == R"({"system":"the long instructions","user":"q"})");
    CHECK(one->response_body == R"({"content":"the reply"})");
    CHECK(store->last_error().empty());
    CHECK(store->answer("two")->request_body == R"({"user":"q2"})");
    CHECK(store->answer("two")->response_body == "<html>500</html>");
    CHECK(store->answer("two")->attempts == 3);
    CHECK(store->attempts("two").size() == 1);
    CHECK(store->attempts("one").at(0).provider_request_id == "r");
    CHECK(store->total_spend() == doctest::Approx(0.25));
    // A failed answer is still replaced by a success, bodies and all.
    AnswerRecord done = done_answer("two");
    done.response_body = R"({"content":"answer two"})";
    done.text = "answer two";
    REQUIRE(store->record_answer(done, attempt("two", "ok", "ok")));
    CHECK(store->answer("two")->response_body == R"({"content":"answer two"})");
    CHECK(store->attempts("two").size() == 2);
  }
  const auto file = dir.path / "store.sqlite";
  CHECK(count_of(file, "SELECT value FROM meta WHERE key = 'schema_version'") == "5");
  CHECK(count_of(file, "SELECT count(*) FROM sqlite_schema WHERE name = 'attempts_by_hash'") == "0");
  CHECK(count_of(file, "SELECT count(*) FROM sqlite_schema WHERE name IN ('old_answers', 'old_bodies')") == "0");
  CHECK(count_of(file, "SELECT count(*) FROM bodies") == "2");
  CHECK(count_of(file, "SELECT count(*) FROM pragma_table_info('bodies') WHERE name = 'hash'") == "0");
}
