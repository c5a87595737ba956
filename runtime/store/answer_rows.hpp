// answer_rows.hpp: which row of table `answers` holds a request hash, kept in memory.
//
// The store has no SQLite index on the hash (schema 5). Hashes are uniformly random, so an
// index on them takes every new answer at a random page: each commit rewrote hundreds of
// the index's pages, 300 MB of log for a 7 MB index on the offline MIRA run, more than
// everything else the run wrote. Rows are only ever appended (a failed answer is updated in
// place, keeping its row), so the map is brought up to date by reading the rows numbered
// after the last one it has seen, which costs nothing when there are none.
// Hashes are held as their digests (hash_set.hpp).
#pragma once

#include <sqlite3.h>

#include <memory>
#include <string>

#include "runtime/store/hash_set.hpp"
#include "runtime/store/statement.hpp"

namespace mirac {

class AnswerRows {
 public:
  /// The row of `hash`, reading any rows added since the last call first when the map
  /// does not have it and another connection has written since. 0 when the store has no
  /// answer for it. False on a read error. Always with the same `db`.
  bool find(sqlite3* db, const std::string& hash, long long& row);
  /// An answer this connection has just inserted (inside its write transaction).
  void add(const std::string& hash, long long row);
  /// Forgets everything: after a rollback, rows it was told of may not exist.
  void clear();
  /// Finalises its statements: before the connection is closed.
  void close() {
    version_query_.reset();
    new_rows_query_.reset();
  }

 private:
  bool catch_up(sqlite3* db);
  HashMap<long long> rows_;
  long long last_seen_ = 0;
  /// PRAGMA data_version when the map was last brought up to date: it changes when another
  /// connection commits, so a miss costs a look-up of the table only then (every new answer
  /// is a miss, 86,400 in a MIRA run). This connection's own rows come through add().
  long long version_ = -1;
  std::unique_ptr<Stmt> version_query_, new_rows_query_;
};

}  // namespace mirac
