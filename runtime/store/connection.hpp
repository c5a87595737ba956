// connection.hpp: the one way the store's tables reach their SQLite file. Every table class
// (Store's answers, BatchStore, AnnotationStore, DerivedValues) holds a StoreConnection and
// writes through StoreTransaction, so opening (busy timeout, the retries a store being
// created by another process needs) and the all-or-nothing rule live here once.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

struct sqlite3;

namespace mirac {

class StoreConnection {
 public:
  enum class Mode {
    read_write,  ///< creates the file when absent
    existing,    ///< reads and writes a file that must exist
    read_only,
  };
  /// Opens `file`, waiting up to `busy_timeout_s` for another process's write lock. Null
  /// with `error` ("cannot open store FILE: why") on failure.
  static std::unique_ptr<StoreConnection> open(const std::filesystem::path& file, Mode mode, std::string& error,
                                               double busy_timeout_s = 10);
  ~StoreConnection();
  StoreConnection(const StoreConnection&) = delete;
  StoreConnection& operator=(const StoreConnection&) = delete;

  sqlite3* db() const { return db_; }
  const std::filesystem::path& file() const { return file_; }
  /// Runs statements that return no rows. SQLite can answer BUSY at once, without its busy
  /// handler, to the switch to WAL and to a schema being created by another process: those
  /// are retried for as long as the busy handler would have waited.
  bool exec(const char* sql);
  bool exec(const char* sql, std::string& error);
  /// SQLite's message for the last failure on this connection.
  std::string last_error() const;

 private:
  StoreConnection() = default;
  sqlite3* db_ = nullptr;
  std::filesystem::path file_;
  int busy_retries_ = 200;
};

/// A write transaction (BEGIN IMMEDIATE, so a writer waits at the start rather than failing
/// at its commit): rolled back unless committed.
class StoreTransaction {
 public:
  explicit StoreTransaction(StoreConnection& connection);
  ~StoreTransaction();
  StoreTransaction(const StoreTransaction&) = delete;
  StoreTransaction& operator=(const StoreTransaction&) = delete;
  /// Whether it began; when not, `error()` says why.
  bool ok() const { return open_; }
  bool commit();
  const std::string& error() const { return error_; }

 private:
  StoreConnection& c_;
  bool open_ = false;
  std::string error_;
};

}  // namespace mirac
