// answer_rows.hpp: which row of table `answers` holds a request hash, kept in memory.
//
// The store has no SQLite index on the hash (schema 5). Hashes are uniformly random, so an
// index on them takes every new answer at a random page: each commit rewrote hundreds of
// the index's pages, 300 MB of log for a 7 MB index on the offline MIRA run, more than
// everything else the run wrote. Rows are only ever appended (a failed answer is updated in
// place, keeping its row), so the map is brought up to date by reading the rows numbered
// after the last one it has seen, which costs nothing when there are none.
//
// A request hash (64 lower-case hex digits) is kept as its 32 bytes: no allocation per row,
// and about half the memory of a string key (issue 29: a run at ten times MIRA keeps some
// 860,000 of them). Anything else a store may hold as a hash is kept as it is.
#pragma once

#include <sqlite3.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "runtime/store/hash_key.hpp"
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
  using Digest = std::array<std::uint64_t, 4>;
  struct DigestKey {
    std::size_t operator()(const Digest& d) const noexcept { return static_cast<std::size_t>(d[0] * 0x9E3779B97F4A7C15ull); }
  };
  /// The 32 bytes of a lower-case hex SHA-256; none for any other text.
  static std::optional<Digest> digest_of(std::string_view hash);
  long long* lookup(std::string_view hash);
  void insert(std::string_view hash, long long row);

  bool catch_up(sqlite3* db);
  std::unordered_map<Digest, long long, DigestKey> digests_;
  std::unordered_map<std::string, long long, RequestHashKey> others_;
  long long last_seen_ = 0;
  /// PRAGMA data_version when the map was last brought up to date: it changes when another
  /// connection commits, so a miss costs a look-up of the table only then (every new answer
  /// is a miss, 86,400 in a MIRA run). This connection's own rows come through add().
  long long version_ = -1;
  std::unique_ptr<Stmt> version_query_, new_rows_query_;
};

}  // namespace mirac
