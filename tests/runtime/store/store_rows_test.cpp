// store_rows_test.cpp: the store without an index on the hash (schema 5): a hash's row is
// found from memory, so what another connection wrote, what a rolled-back batch did not
// write, and a store of schema 4 must all come out right.
#include <doctest/doctest.h>

#include <sqlite3.h>

#include "helpers.hpp"
#include "runtime/store/store.hpp"

using namespace mirac;

namespace {

AnswerRecord answer_for(const std::string& hash, const std::string& status = "done") {
  AnswerRecord a;
  a.hash = hash;
  a.status = status;
  a.provider = "openai";
  a.model = "m";
  a.request_body = R"({"user":")" + hash + R"("})";
  a.response_body = R"({"id":"x"})";
  a.http_status = status == "done" ? 200 : 500;
  a.text = status == "done" ? "answer " + hash : "";
  a.cost_usd = status == "done" ? 0.5 : 0;
  a.cause = status == "done" ? "ok" : "server_error";
  a.attempts = 1;
  return a;
}

AttemptRecord attempt_for(const std::string& hash) {
  AttemptRecord a;
  a.hash = hash;
  a.attempt = 1;
  a.outcome = "ok";
  a.cause = "ok";
  return a;
}

std::string query(const std::filesystem::path& file, const char* sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql, -1, &q, nullptr) == SQLITE_OK);
  std::string out;
  if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
    out = reinterpret_cast<const char*>(sqlite3_column_text(q, 0));
  sqlite3_finalize(q);
  sqlite3_close(db);
  return out;
}

}  // namespace

TEST_CASE("store rows: no index on the hash; one row per hash however often it is written") {
  test::TempDir dir;
  std::string error;
  auto store = Store::open(dir.path, error);
  REQUIRE_MESSAGE(store, error);
  REQUIRE(store->record_answer(answer_for("h", "failed"), attempt_for("h")));
  REQUIRE(store->record_answer(answer_for("h", "failed"), attempt_for("h")));
  REQUIRE(store->record_answer(answer_for("h"), attempt_for("h")));
  REQUIRE(store->record_answer(answer_for("h"), attempt_for("h")));
  std::size_t stored = 0, skipped = 0;
  REQUIRE(store->import_answers({answer_for("h"), answer_for("i")}, stored, skipped));
  CHECK(stored == 1);
  CHECK(skipped == 1);
  const auto file = dir.path / "store.sqlite";
  CHECK(query(file, "SELECT count(*) FROM answers WHERE hash = 'h'") == "1");
  CHECK(query(file, "SELECT attempts FROM answers WHERE hash = 'h'") == "3");  // two failures, then the success
  // Its one index is in row order (answers_states), none is keyed by the hash.
  CHECK(query(file, "SELECT group_concat(name) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'answers'") ==
        "answers_states");
  // EXPLAIN QUERY PLAN's first row: its detail is the fourth column.
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* plan = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "EXPLAIN QUERY PLAN SELECT hash, status, cost_usd FROM answers", -1, &plan, nullptr) ==
          SQLITE_OK);
  REQUIRE(sqlite3_step(plan) == SQLITE_ROW);
  CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(plan, 3))) ==
        "SCAN answers USING COVERING INDEX answers_states");
  sqlite3_finalize(plan);
  sqlite3_close(db);
  CHECK(query(file, "SELECT value FROM meta WHERE key = 'schema_version'") == "5");
}

TEST_CASE("store rows: what another connection wrote is found, and its answers are not written twice") {
  test::TempDir dir;
  std::string error;
  auto reader = Store::open(dir.path, error);
  auto writer = Store::open(dir.path, error);
  REQUIRE_MESSAGE((reader && writer), error);
  REQUIRE(writer->record_answer(answer_for("a"), attempt_for("a")));
  CHECK(reader->brief("b") == nullptr);  // the reader has now seen every row there is
  REQUIRE(writer->record_answer(answer_for("b", "failed"), attempt_for("b")));
  REQUIRE(reader->brief("b"));
  CHECK(reader->brief("b")->status == "failed");
  CHECK(reader->is_done("a"));
  // The reader now writes the success of "b": it must update the writer's row, not add one.
  REQUIRE(reader->record_answer(answer_for("b"), attempt_for("b")));
  CHECK(writer->answer("b")->status == "done");
  CHECK(writer->answer("b")->text == "answer b");
  CHECK(query(dir.path / "store.sqlite", "SELECT count(*) FROM answers WHERE hash = 'b'") == "1");
  // And a done answer the other one wrote is left alone.
  AnswerRecord again = answer_for("a");
  again.text = "another";
  REQUIRE(reader->record_answer(again, attempt_for("a")));
  CHECK(writer->answer("a")->text == "answer a");
  const auto st = reader->status({"a", "b", "c"});
  CHECK(st.done == 2);
  CHECK(st.pending == 1);
}

TEST_CASE("store rows: hex digests, hashes that only look like them and other keys are told apart") {
  // The rows are kept in memory by the 32 bytes of a lower-case hex SHA-256, and by the
  // text for anything else: the forms must not meet.
  const std::string hex(64, 'a');
  std::string upper = hex;
  upper[0] = 'A';
  std::string near = hex;
  near[63] = 'b';
  std::string longer = hex + "0";
  std::string with_g = hex;
  with_g[10] = 'g';
  const std::vector<std::string> hashes = {hex, upper, near, longer, with_g, "h", std::string(64, '0')};
  test::TempDir dir;
  std::string error;
  auto writer = Store::open(dir.path, error);
  auto reader = Store::open(dir.path, error);
  REQUIRE_MESSAGE((writer && reader), error);
  for (const auto& h : hashes) REQUIRE(writer->record_answer(answer_for(h), attempt_for(h)));
  std::string missing = hex;
  missing[31] = 'c';
  CHECK(reader->brief(missing) == nullptr);  // reads every row there is
  for (const auto& h : hashes) {
    INFO(h);
    REQUIRE(reader->brief(h));
    CHECK(reader->brief(h)->text == "answer " + h);
    CHECK(writer->brief(h)->text == "answer " + h);
  }
  // The set of done hashes keeps them apart the same way.
  const HashSet done = reader->done_hashes();
  CHECK(done.size() == hashes.size());
  for (const auto& h : hashes) CHECK(done.count(h));
  CHECK_FALSE(done.count(missing));
  CHECK_FALSE(done.count(std::string(64, 'A')));
  CHECK_FALSE(done.count(hex.substr(0, 63)));
  // A failed answer written again by the reader updates the one row of its exact hash.
  REQUIRE(writer->record_answer(answer_for(hex + "1", "failed"), attempt_for(hex + "1")));
  REQUIRE(reader->record_answer(answer_for(hex + "1"), attempt_for(hex + "1")));
  CHECK(query(dir.path / "store.sqlite", "SELECT count(*) FROM answers") == std::to_string(hashes.size() + 1));
}

TEST_CASE("store rows: a rolled-back batch leaves no row behind, in the store or in memory") {
  test::TempDir dir;
  std::string error;
  auto store = Store::open(dir.path, error);
  REQUIRE_MESSAGE(store, error);
  REQUIRE(store->record_answer(answer_for("kept"), attempt_for("kept")));
  REQUIRE(store->begin_batch());
  REQUIRE(store->record_answer(answer_for("dropped"), attempt_for("dropped")));
  REQUIRE(store->record_answer(answer_for("also dropped"), attempt_for("also dropped")));
  store->rollback_batch();
  CHECK(store->brief("dropped") == nullptr);
  CHECK_FALSE(store->answer("dropped"));
  CHECK(store->answer("kept")->text == "answer kept");
  // The same hash written again after the rollback gets a row of its own, once.
  REQUIRE(store->record_answer(answer_for("dropped"), attempt_for("dropped")));
  CHECK(store->answer("dropped")->text == "answer dropped");
  CHECK(query(dir.path / "store.sqlite", "SELECT count(*) FROM answers") == "2");
}

TEST_CASE("store rows: a store of schema 4 (with the hash index) comes to schema 5 and keeps every answer") {
  test::TempDir dir;
  {
    std::string error;
    auto store = Store::open(dir.path, error);
    REQUIRE_MESSAGE(store, error);
    REQUIRE(store->record_answer(answer_for("old"), attempt_for("old")));
  }
  {
    // As mirac left it at schema 4.
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open((dir.path / "store.sqlite").c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db,
                         "CREATE UNIQUE INDEX answers_by_hash ON answers (hash);"
                         "UPDATE meta SET value = '4' WHERE key = 'schema_version';",
                         nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  std::string error;
  auto store = Store::open(dir.path, error);
  REQUIRE_MESSAGE(store, error);
  const auto file = dir.path / "store.sqlite";
  CHECK(query(file, "SELECT value FROM meta WHERE key = 'schema_version'") == "5");
  CHECK(query(file, "SELECT count(*) FROM sqlite_schema WHERE name = 'answers_by_hash'") == "0");
  CHECK(query(file, "SELECT count(*) FROM sqlite_schema WHERE name = 'answers_states'") == "1");
  CHECK(store->answer("old")->request_body == R"({"user":"old"})");
  REQUIRE(store->record_answer(answer_for("new"), attempt_for("new")));
  const HashSet done = store->done_hashes();
  CHECK(done.size() == 2);
  CHECK(done.count("old"));
  CHECK(done.count("new"));
}

TEST_CASE("store rows: the done hashes among a few requests are looked up one by one, among many read in one scan") {
  test::TempDir dir;
  std::string error;
  auto store = Store::open(dir.path, error);
  REQUIRE_MESSAGE(store, error);
  for (int i = 0; i < 40; ++i) {
    const std::string hash = "h" + std::to_string(i);
    REQUIRE(store->record_answer(answer_for(hash, i % 4 == 3 ? "failed" : "done"), attempt_for(hash)));
  }
  // Three of forty rows: a lookup each (a judge phase's block against a large store).
  const std::vector<std::string_view> few = {"h1", "h3", "missing"};
  const HashSet some = store->done_hashes(few);
  CHECK(some.size() == 1);
  CHECK(some.count("h1"));
  CHECK_FALSE(some.count("h3"));  // failed: sent again
  CHECK_FALSE(some.count("missing"));
  // As many as the store holds: the scan, the same answer for every hash asked about.
  std::vector<std::string> names;
  for (int i = 0; i < 45; ++i) names.push_back("h" + std::to_string(i));
  const std::vector<std::string_view> many(names.begin(), names.end());
  const HashSet all = store->done_hashes(many);
  for (int i = 0; i < 45; ++i) CHECK(all.count(names[static_cast<std::size_t>(i)]) == (i < 40 && i % 4 != 3));
}

TEST_CASE("store rows: a read transaction sees the store as of its start, lets writers on, and ends") {
  test::TempDir dir;
  std::string error;
  auto reader = Store::open(dir.path, error);
  auto writer = Store::open(dir.path, error);
  REQUIRE_MESSAGE((reader && writer), error);
  REQUIRE(writer->record_answer(answer_for("a"), attempt_for("a")));
  {
    const Store::ReadTransaction reading(*reader);
    REQUIRE(reader->answer("a"));
    // A writer is not held up by the read (write-ahead log)...
    REQUIRE(writer->record_answer(answer_for("b"), attempt_for("b")));
    // ...and the read goes on seeing the store as it was when it began.
    CHECK(reader->brief("b") == nullptr);
    CHECK(reader->answer("a")->text == "answer a");
    {
      const Store::ReadTransaction nested(*reader);  // one open already: nothing, and no error
      CHECK(reader->answer("a"));
    }
    CHECK(reader->brief("b") == nullptr);  // the nested one did not end the outer read
  }
  // Ended: what was written meanwhile is seen.
  REQUIRE(reader->brief("b"));
  CHECK(reader->brief("b")->status == "done");
}
