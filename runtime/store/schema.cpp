#include "runtime/store/schema.hpp"

#include <fmt/format.h>

#include "runtime/store/connection.hpp"

namespace mirac {
namespace {

constexpr const char* kColumnsBeforeWarnings =
    "hash,status,provider,model,http_status,text,finish_reason,truncated,returned_model,provider_request_id,"
    "system_fingerprint,input_tokens,output_tokens,latency_s,started_at,ended_at,cost_usd,cause,message,attempts";

constexpr const char* kAttemptsAndParts = R"sql(
CREATE TABLE IF NOT EXISTS parts (id TEXT PRIMARY KEY, literal TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  hash TEXT NOT NULL, attempt INTEGER NOT NULL,
  started_at REAL NOT NULL, ended_at REAL NOT NULL, http_status INTEGER NOT NULL,
  outcome TEXT NOT NULL, cause TEXT NOT NULL, message TEXT NOT NULL,
  provider_request_id TEXT NOT NULL, retry_delay_s REAL NOT NULL, response_body TEXT NOT NULL);
DROP INDEX IF EXISTS attempts_by_hash;
)sql";

std::string answers_and_bodies() {
  return fmt::format("CREATE TABLE IF NOT EXISTS answers (id INTEGER PRIMARY KEY, hash TEXT NOT NULL, {});"
                     "CREATE TABLE IF NOT EXISTS bodies (answer INTEGER PRIMARY KEY, {});",
                     kAnswerFields, kBodyFields);
}

// What status, a run and the in-memory rows (answer_rows.hpp) read of every answer, in row
// order: new answers go at its end, as they do in the table, so it costs no random writes;
// a scan of it reads 8 MB instead of the table's 46 MB of texts (offline MIRA).
constexpr const char* kStatesIndex =
    "CREATE INDEX IF NOT EXISTS answers_states ON answers (id, hash, status, cause, cost_usd, truncated, warnings);";

// Only while an older store is moved: its bodies are found by hash. Schema 5 drops it
// (answer_rows.hpp says why).
constexpr const char* kHashIndex = "CREATE UNIQUE INDEX IF NOT EXISTS answers_by_hash ON answers (hash);";

// Every change to an answer (a new one, a failed one answered again, one removed) counts
// up meta's `answers_changes`, whichever program or SQL client makes it: what the analysis
// read is unchanged exactly when the count is (store_fingerprint, fingerprint.hpp). Per row,
// since SQLite has no statement triggers; the count's page stays in the transaction's cache.
// It starts at a random number, so that a count dropped and made again (by hand, or by an
// older mirac's copy of the store) cannot come back to a value an earlier state had.
constexpr const char* kChangeCount = R"sql(
INSERT OR IGNORE INTO meta (key, value) VALUES ('answers_changes', abs(random() % 1000000000000));
CREATE TRIGGER IF NOT EXISTS answers_inserted AFTER INSERT ON answers
  BEGIN UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'answers_changes'; END;
CREATE TRIGGER IF NOT EXISTS answers_updated AFTER UPDATE ON answers
  BEGIN UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'answers_changes'; END;
CREATE TRIGGER IF NOT EXISTS answers_deleted AFTER DELETE ON answers
  BEGIN UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'answers_changes'; END;
)sql";

bool has_table(sqlite3* db, const char* table) {
  Stmt q(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?");
  q.bind(1, std::string(table));
  return q.ok() && q.step() == SQLITE_ROW;
}

bool has_column(sqlite3* db, const char* table, const char* column) {
  Stmt q(db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?");
  q.bind(1, std::string(table)).bind(2, std::string(column));
  return q.ok() && q.step() == SQLITE_ROW;
}

// Schema 1 had no `warnings`; schema 2 kept both bodies in each answers row, verbatim;
// schema 3 kept them encoded in table `bodies` keyed by hash. All become schema 4 in one
// transaction: the old tables are renamed, the new ones filled from them, the old dropped.
bool migrate(StoreConnection& c) {
  sqlite3* db = c.db();
  if (!c.exec("BEGIN IMMEDIATE")) return false;
  auto fail = [&] {
    c.exec("ROLLBACK");
    return false;
  };
  // Another process may have moved it while this one waited for the write lock.
  if (has_column(db, "answers", "id")) return c.exec("COMMIT");
  const bool warnings = has_column(db, "answers", "warnings");
  const bool bodies_in_rows = has_column(db, "answers", "request_body");
  const bool bodies_table = has_table(db, "bodies");
  std::string sql = "ALTER TABLE answers RENAME TO old_answers;";
  if (bodies_table) sql += "ALTER TABLE bodies RENAME TO old_bodies;";
  sql += answers_and_bodies() + kAttemptsAndParts;
  sql += fmt::format("INSERT INTO answers ({0},warnings) SELECT {0},{1} FROM old_answers ORDER BY rowid;", kColumnsBeforeWarnings,
                     warnings ? "warnings" : "''");
  sql += kHashIndex;
  if (bodies_table)
    sql += "INSERT INTO bodies (answer,request_encoded,request_body,response_encoded,response_body,quoted) "
           "SELECT a.id,b.request_encoded,b.request_body,b.response_encoded,b.response_body,NULL "
           "FROM old_bodies b JOIN answers a ON a.hash = b.hash; DROP TABLE old_bodies;";
  if (!c.exec(sql.c_str())) return fail();
  if (bodies_in_rows) {
    Stmt rows(db, "SELECT a.id, o.request_body, o.response_body, o.text FROM old_answers o JOIN answers a ON a.hash = o.hash");
    Stmt put(db, kPutBodies), part(db, kPutPart);
    if (!rows.ok() || !put.ok() || !part.ok()) return fail();
    int rc = SQLITE_ROW;
    while ((rc = rows.step()) == SQLITE_ROW)
      if (!write_bodies(put, part, rows.integer(0), rows.text(1), rows.text(2), rows.text(3), {})) return fail();
    if (rc != SQLITE_DONE) return fail();  // a row not read is a body not moved: drop nothing
  }
  // Every answer must have come over before the old table goes.
  {
    Stmt counts(db, "SELECT (SELECT count(*) FROM old_answers) = (SELECT count(*) FROM answers)");
    if (!counts.ok() || counts.step() != SQLITE_ROW || counts.integer(0) != 1) return fail();
  }
  if (!c.exec(fmt::format("DROP TABLE old_answers; INSERT OR REPLACE INTO meta (key, value) "
                                          "VALUES ('schema_version', '{}'); COMMIT",
                                          kSchemaVersion)
                                  .c_str()))
    return fail();
  // Gives the freed pages back to the file system; a store it cannot compact (no room for
  // the copy VACUUM makes) is still whole, only larger.
  c.exec("VACUUM");
  return true;
}

}  // namespace

bool write_bodies(Stmt& put_bodies, Stmt& put_part, long long answer, const std::string& request_body,
                  const std::string& response_body, const std::string& text, const QuotedAnswer& quoted) {
  const EncodedBody request = encode_body(request_body, BodyTexts{{}, quoted.row > 0 ? quoted.text : ""}, kPartSizes);
  const EncodedBody response = encode_body(response_body, BodyTexts{text, {}}, PartSizes{});
  for (const auto* body : {&request, &response})
    for (const auto& [id, literal] : body->parts) {
      put_part.reset();
      put_part.bind(1, id).bind(2, literal);
      const int rc = put_part.step();
      put_part.reset();
      if (rc != SQLITE_DONE) return false;
    }
  put_bodies.reset();
  put_bodies.bind(1, answer).bind(2, static_cast<long long>(request.encoded)).bind(3, request.body)
      .bind(4, static_cast<long long>(response.encoded)).bind(5, response.body);
  if (request.quotes) put_bodies.bind(6, quoted.row);  // else NULL (cleared by reset)
  const int rc = put_bodies.step();
  put_bodies.reset();
  return rc == SQLITE_DONE;
}

bool create_or_migrate(StoreConnection& c) {
  sqlite3* db = c.db();
  if (!c.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")) return false;
  if (has_table(db, "answers") && !has_column(db, "answers", "id") && !migrate(c)) return false;
  // Schema 5 is schema 4 with the answers' states indexed in row order instead of the
  // index on the hash: the move drops one and builds the other.
  const std::string schema = answers_and_bodies() + kAttemptsAndParts + "DROP INDEX IF EXISTS answers_by_hash;" +
                             kStatesIndex + kChangeCount +
                             fmt::format("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '{0}');"
                                         "UPDATE meta SET value = '{0}' WHERE key = 'schema_version' AND value <> '{0}';",
                                         kSchemaVersion);
  return c.exec(schema.c_str());
}

}  // namespace mirac
