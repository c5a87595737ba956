#include "runtime/store/fingerprint.hpp"

#include "runtime/hash/hash.hpp"
#include "runtime/store/connection.hpp"
#include "runtime/store/statement.hpp"

namespace mirac {

std::string store_fingerprint(const std::filesystem::path& store_file) {
  std::string error;
  auto connection = StoreConnection::open(store_file, StoreConnection::Mode::read_only, error);
  if (!connection) return "";
  sqlite3* db = connection->db();
  // One read transaction: the count and the annotations as of one moment.
  if (!connection->exec("BEGIN")) return "";
  std::string count;
  {
    Stmt q(db, "SELECT value FROM meta WHERE key = 'answers_changes'");
    if (q.ok() && q.step() == SQLITE_ROW) count = q.text(0);
  }
  Sha256 annotations;
  bool read = !count.empty();
  {
    Stmt exists(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'annotations'");
    if (read && exists.ok() && exists.step() == SQLITE_ROW) {
      Stmt q(db, "SELECT answer_hash, annotator, dimension, quote(value), comment, source, quote(imported_at) "
                 "FROM annotations ORDER BY answer_hash, annotator, dimension");
      int rc = SQLITE_ROW;
      while (q.ok() && (rc = q.step()) == SQLITE_ROW)
        for (int c = 0; c < 7; ++c) {
          const std::string field = q.text(c);
          annotations.update(std::to_string(field.size())).update(":").update(field);
        }
      read = q.ok() && rc == SQLITE_DONE;
    }
  }
  connection->exec("COMMIT");
  return read ? "answers change count " + count + "; annotations " + annotations.hex() : "";
}

}  // namespace mirac
