#include "runtime/store/schema3.hpp"

#include "runtime/store/bodies.hpp"
#include "runtime/store/sqlite_retry.hpp"

namespace mirac {

bool write_bodies(Stmt& put_bodies, Stmt& put_part, const std::string& hash, const std::string& request_body,
                  const std::string& response_body, const std::string& text) {
  const EncodedBody request = encode_body(request_body, "", kMinPart);
  const EncodedBody response = encode_body(response_body, text, std::string::npos);
  for (const auto* body : {&request, &response})
    for (const auto& [id, literal] : body->parts) {
      put_part.reset();
      put_part.bind(1, id).bind(2, literal);
      const int rc = put_part.step();
      put_part.reset();
      if (rc != SQLITE_DONE) return false;
    }
  put_bodies.reset();
  put_bodies.bind(1, hash).bind(2, static_cast<long long>(request.encoded)).bind(3, request.body)
      .bind(4, static_cast<long long>(response.encoded)).bind(5, response.body);
  const int rc = put_bodies.step();
  put_bodies.reset();
  return rc == SQLITE_DONE;
}

// Schema 2 kept both bodies in each answers row: the judge's instructions and an arm's
// system prompt repeated in every request, each answer's text again inside its response,
// and every read of a row's text stepping over both. Schema 3 keeps them apart and encoded
// (bodies.hpp). The move runs once, in one transaction, and then the file is compacted.
bool migrate_bodies(sqlite3* db) {
  if (Stmt probe(db, "SELECT request_body FROM answers LIMIT 0"); !probe.ok()) return true;  // schema 3
  if (!exec_retrying_busy(db, "BEGIN IMMEDIATE")) return false;
  auto fail = [&] {
    exec_retrying_busy(db, "ROLLBACK");
    return false;
  };
  {
    // Another process may have moved them while this one waited for the write lock.
    Stmt again(db, "SELECT request_body FROM answers LIMIT 0");
    if (!again.ok()) return exec_retrying_busy(db, "COMMIT");
  }
  {
    Stmt rows(db, "SELECT hash, request_body, response_body, text FROM answers");
    Stmt put(db, kPutBodies), part(db, kPutPart);
    if (!rows.ok() || !put.ok() || !part.ok()) return fail();
    int rc = SQLITE_ROW;
    while ((rc = rows.step()) == SQLITE_ROW)
      if (!write_bodies(put, part, rows.text(0), rows.text(1), rows.text(2), rows.text(3))) return fail();
    if (rc != SQLITE_DONE) return fail();  // a row not read is a body not moved: drop nothing
  }
  if (!exec_retrying_busy(db, "ALTER TABLE answers DROP COLUMN request_body; "
                              "ALTER TABLE answers DROP COLUMN response_body; "
                              "UPDATE meta SET value = '3' WHERE key = 'schema_version'; COMMIT"))
    return fail();
  // Gives the freed pages back to the file system; a store it cannot compact (no room for
  // the copy VACUUM makes) is still whole, only larger.
  exec_retrying_busy(db, "VACUUM");
  return true;
}

}  // namespace mirac
